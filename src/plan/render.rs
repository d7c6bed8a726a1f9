//! Plan rendering for people, in the spirit of `terraform plan`: one block
//! per session, a symbol for the action, names with fingerprints only.

use super::model::*;
use crate::desired::policy::{Change, ChangeCase};
use std::fmt::Write;

/// Whether to colour output: on a terminal, unless `NO_COLOR` is set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    pub color: bool,
}

impl Style {
    pub const PLAIN: Style = Style { color: false };

    /// Colour only on a TTY, and never when `NO_COLOR` is set (no-color.org).
    pub fn detect(is_terminal: bool) -> Style {
        Style {
            color: is_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
        }
    }

    fn paint(self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }

    pub fn yellow(self, t: &str) -> String {
        self.paint("33", t)
    }
    pub fn green(self, t: &str) -> String {
        self.paint("32", t)
    }
    pub fn red(self, t: &str) -> String {
        self.paint("31", t)
    }
    pub fn dim(self, t: &str) -> String {
        self.paint("2", t)
    }
    pub fn bold(self, t: &str) -> String {
        self.paint("1", t)
    }
}

pub fn fingerprint_or_absent(fp: &Option<crate::secret::Fingerprint>) -> String {
    fp.map(|f| f.to_string())
        .unwrap_or_else(|| "(absent)".into())
}

/// One line per differing name: `NAME  have → want  (case: meaning)`.
pub fn render_change(change: &Change, style: Style) -> String {
    let meaning = match change.case {
        ChangeCase::Stale if change.want.is_none() => {
            "stale: a withheld name holding a value that is not the file's"
        }
        ChangeCase::Stale => "stale: not the file's current value",
        ChangeCase::Exposed => "exposed: a withheld name holding the file's current value",
        ChangeCase::Missing => "missing: the harness should hold the file's value",
        ChangeCase::Identifier => "identifier: the-loop's own variable",
    };
    let symbol = if change.want.is_none() {
        style.red("-")
    } else {
        style.yellow("~")
    };
    format!(
        "{symbol} {:<28} {} → {}   {}",
        change.name,
        fingerprint_or_absent(&change.have),
        fingerprint_or_absent(&change.want),
        style.dim(&format!("({meaning})"))
    )
}

/// One line per differing launch argument: `--model  have → want  (args: …)`.
/// Argv words are never secret, so they are shown as they are.
pub fn render_args_change(change: &ArgsChange, style: Style) -> String {
    let label = match change.name {
        ArgsField::Model => "--model",
        ArgsField::Effort => "--effort",
        ArgsField::HarnessArgs => "harness args",
    };
    let show = |words: &[String]| {
        if words.is_empty() {
            "(none)".to_owned()
        } else {
            words.join(" ")
        }
    };
    let mut line = format!(
        "{} {label:<28} {} → {}   {}",
        style.yellow("~"),
        show(&change.have),
        show(&change.want),
        style.dim("(args: the harness was launched with other arguments)")
    );
    if let Some(dropped) = &change.dropped {
        let _ = write!(line, "\n      {} {dropped}", style.red("!"));
    }
    line
}

pub fn render_plan(plan: &Plan, style: Style) -> String {
    let mut out = String::new();
    match &plan.env_file {
        Some(path) => {
            let _ = writeln!(
                out,
                "env file: {} ({} names declared)",
                path.display(),
                plan.env_fingerprints.len()
            );
        }
        None => out.push_str("env file: none configured\n"),
    }
    if let Some(reason) = &plan.tmux_unanswered {
        let _ = writeln!(
            out,
            "{} {reason}; every session's state is unknown",
            style.red("tmux did not answer:")
        );
    }
    out.push('\n');
    if plan.sessions.is_empty() {
        out.push_str("No loop-* sessions are registered or running.\n");
    }
    for session in &plan.sessions {
        render_session(&mut out, session, style);
    }
    for corrupt in &plan.corrupt_records {
        let _ = writeln!(
            out,
            "{} registry record {}: {}",
            style.red("!"),
            corrupt.path.display(),
            corrupt.reason
        );
    }
    if let Some(residue) = &plan.residue {
        out.push_str(&super::residue::render(residue, style));
    }
    let s = &plan.summary;
    let _ = writeln!(
        out,
        "\n{} {} to respawn, {} up to date, {} skipped, {} unverified, {} unmanaged.",
        style.bold("Plan:"),
        s.respawn,
        s.up_to_date,
        s.skipped,
        s.unverified,
        s.unmanaged
    );
    if plan.has_drift() {
        out.push_str(
            "Run `the-loop apply` to respawn the drifted sessions, resuming each conversation.\n",
        );
    } else {
        out.push_str("No drift: every session that could be read holds the desired environment.\n");
    }
    out
}

fn render_session(out: &mut String, session: &SessionPlan, style: Style) {
    let pane = match (&session.pane_id, session.pane_pid) {
        (Some(id), Some(pid)) => format!("{}, pane {id}, pid {pid}", session.tmux_target),
        _ => session.tmux_target.clone(),
    };
    let (symbol, verdict) = match session.action {
        Action::Respawn => (style.yellow("~"), style.yellow("will be respawned")),
        Action::None => (style.green("="), style.green("up to date")),
        Action::Skip if session.is_unverified() || session.kind == SessionKind::Unmanaged => {
            (style.dim("?"), session.reason.clone().unwrap_or_default())
        }
        Action::Skip => (
            style.dim("-"),
            format!("skip: {}", session.reason.as_deref().unwrap_or("")),
        ),
    };
    let _ = writeln!(
        out,
        "{symbol} {}  {}  {verdict}",
        style.bold(session.label()),
        style.dim(&format!("({pane})"))
    );
    for change in &session.changes {
        let _ = writeln!(out, "    {}", render_change(change, style));
    }
    for change in &session.args_changes {
        let _ = writeln!(out, "    {}", render_args_change(change, style));
    }
}
