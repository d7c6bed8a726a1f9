//! `the-loop --help`: the commands in groups, the loop first, then a
//! three-line recipe. clap lists subcommands in one flat block and has no
//! headings for them, so the top-level help template is built here from
//! the command tree itself: each command's line is its own `about`, and a
//! command in no group below lands under "Other commands", so none is ever
//! left out (`tests/it/help_tree.rs` checks both).

use clap::Command;

/// The main loop: declare, see the drift, roll it, keep watching.
pub const MAIN_LOOP: &[&str] = &["validate", "plan", "apply", "watch", "top"];
/// The sessions themselves.
pub const SESSIONS: &[&str] = &["sessions", "standing", "import"];

const RECIPE: &str =
    "  the-loop validate   # the config and the env file load, and the policy holds
  the-loop plan       # which sessions hold a stale or withheld value, by fingerprint
  the-loop apply      # roll them in place, resuming each conversation, and verify";

/// Where clap wraps help (`Cli`'s `max_term_width`).
const WIDTH: usize = 100;

/// `cmd` with its help template grouping the subcommands.
pub fn grouped(cmd: Command) -> Command {
    let template = template(&cmd);
    cmd.help_template(template)
}

fn template(cmd: &Command) -> String {
    let header = cmd.get_styles().get_header();
    let heading = |text: &str| format!("{header}{text}{header:#}");
    let visible: Vec<&Command> = cmd.get_subcommands().filter(|c| !c.is_hide_set()).collect();
    let mut lines: Vec<(String, String)> = visible
        .iter()
        .map(|c| {
            let about = c.get_about().map(|a| a.to_string()).unwrap_or_default();
            (c.get_name().to_owned(), about)
        })
        .collect();
    if !lines.iter().any(|(name, _)| name == "help") {
        let about = "Print this message or the help of the given subcommand(s)";
        lines.push(("help".into(), about.into()));
    }
    let pad = lines.iter().map(|(n, _)| n.len()).max().unwrap_or(0) + 2;
    let block = |names: &mut dyn Iterator<Item = &(String, String)>| -> String {
        names
            .map(|(name, about)| wrap(&format!("  {name:<pad$}"), about))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let in_group = |group: &[&str]| -> String {
        let mut picked = group
            .iter()
            .filter_map(|g| lines.iter().find(|(n, _)| n == g));
        block(&mut picked)
    };
    let mut others = lines
        .iter()
        .filter(|(n, _)| !MAIN_LOOP.contains(&n.as_str()) && !SESSIONS.contains(&n.as_str()));
    format!(
        "{{before-help}}{{about-with-newline}}\n{{usage-heading}} {{usage}}\n\n\
         {}\n{}\n\n{}\n{}\n\n{}\n{}\n\n{}\n{RECIPE}\n\n{}\n{{options}}{{after-help}}",
        heading("The loop (declare, see the drift, roll it, keep watching):"),
        in_group(MAIN_LOOP),
        heading("Sessions:"),
        in_group(SESSIONS),
        heading("Other commands:"),
        block(&mut others),
        heading("Start here:"),
        heading("Options:"),
    )
}

/// `lead` then `text`, wrapped at [`WIDTH`] with continuation lines
/// under the text's first column, as clap wraps a command's line.
fn wrap(lead: &str, text: &str) -> String {
    let indent = " ".repeat(lead.len());
    let mut out = lead.to_owned();
    let mut column = lead.len();
    for (i, word) in text.split(' ').enumerate() {
        if i > 0 && column + 1 + word.len() > WIDTH {
            out.push('\n');
            out.push_str(&indent);
            column = indent.len();
        } else if i > 0 {
            out.push(' ');
            column += 1;
        }
        out.push_str(word);
        column += word.len();
    }
    out
}
