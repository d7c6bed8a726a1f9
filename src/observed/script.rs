//! The sessions' tmux questions as a command script, for fleets whose `;`
//! chain would not fit on one command line.
//!
//! tmux refuses a command line longer than one message to its server
//! (16 KiB), which holds about two hundred and fifty sessions' questions.
//! A script fed to `tmux source-file -` on stdin has no such limit, so the
//! sessions' layers stay one tmux client whatever the number of sessions
//! (measured: 1000 sessions, one call).
//!
//! Each line of a sourced script is its own command group: a command that
//! fails (a session that vanished) skips the rest of ITS line only, where
//! in a `;` chain it stops everything after it. Every block is still closed
//! by its marker on the same line, so a failed command's block has no
//! marker and is never read as an empty environment. `source-file -` reads
//! stdin from tmux 3.1 on; on an older tmux no marker comes back at all, and
//! the caller falls back to chains.

use super::residue::{self, Markers, TmuxLayers};
use crate::tmux::{means_no_server, Tmux};

/// One tmux word, quoted for tmux's own parser: single quotes keep
/// everything literal (`#`, `;`, `$`, `~`, spaces, tabs); a word holding a
/// `'` goes in double quotes with `\`, `"` and `$` escaped. `None` for a
/// word with a line break or another control character, which a line-based
/// script cannot carry as it is.
pub fn quote(word: &str) -> Option<String> {
    if word.chars().any(|c| c.is_control() && c != '\t') {
        return None;
    }
    if !word.contains('\'') {
        return Some(format!("'{word}'"));
    }
    let mut quoted = String::with_capacity(word.len() + 2);
    quoted.push('"');
    for c in word.chars() {
        if matches!(c, '\\' | '"' | '$') {
            quoted.push('\\');
        }
        quoted.push(c);
    }
    quoted.push('"');
    Some(quoted)
}

/// One script line: the commands of one group, each a list of words.
fn line(commands: &[&[&str]]) -> Option<String> {
    let mut out = Vec::new();
    for command in commands {
        let words: Option<Vec<String>> = command.iter().map(|w| quote(w)).collect();
        out.push(words?.join(" "));
    }
    Some(out.join(" ; ") + "\n")
}

/// The script asking what [`residue::query_args`] asks without a listing,
/// one group per line: the server pid, the global environment and each
/// session's environment, each block closed by its marker. `None` when a
/// word cannot be written in a script.
pub fn sessions_script(sessions: &[String]) -> Option<String> {
    let mut script = line(&[&["display", "-p", "@p #{pid}"]])?;
    script.push_str(&line(&[&["showenv", "-gs"], &["display", "-p", "@g"]])?);
    for (i, session) in sessions.iter().enumerate() {
        let target = format!("-st={session}");
        let marker = format!("@{i}");
        script.push_str(&line(&[
            &["showenv", &target],
            &["display", "-p", &marker],
        ])?);
    }
    Some(script)
}

/// The argv that runs a script given on stdin.
pub const SOURCE_STDIN: [&str; 2] = ["source-file", "-"];

/// Adds the environments of `sessions` to `layers`: in one chain when they
/// fit on a command line, else in one `source-file -` call, and in chains
/// ([`residue::more_sessions`]) when the script cannot be written or tmux
/// did not run it (older than 3.1: no marker came back, and no server said
/// it is not running). A tmux that did not answer is an answer: asking
/// again would only wait again, so those sessions read unobserved.
pub fn ask_sessions(tmux: &Tmux, layers: &mut TmuxLayers, sessions: &[String]) {
    let markers = Markers::new();
    let script = (residue::fitting(&markers, None, sessions) < sessions.len())
        .then(|| sessions_script(sessions))
        .flatten();
    let Some(script) = script else {
        return residue::more_sessions(tmux, layers, sessions);
    };
    let answer = tmux.run_with_input(SOURCE_STDIN, Some(script.as_bytes()));
    match answer {
        Ok(out) if !out.stdout.starts_with("@p ") && !means_no_server(&out.stderr) => {
            residue::more_sessions(tmux, layers, sessions)
        }
        answer => residue::add_answer(layers, answer.as_ref().ok(), sessions),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_word_is_quoted_for_tmux_and_line_breaks_are_refused() {
        assert_eq!(
            quote("loop-a#1;x $y ~").as_deref(),
            Some("'loop-a#1;x $y ~'")
        );
        assert_eq!(quote("a'b\"c\\d$e").as_deref(), Some(r#""a'b\"c\\d\$e""#));
        assert_eq!(quote("tab\there").as_deref(), Some("'tab\there'"));
        assert_eq!(quote("two\nlines"), None);
        assert_eq!(quote("nul\0"), None);
    }

    #[test]
    fn one_group_per_line_with_its_marker() {
        let script = sessions_script(&["loop-a".into(), "loop-b".into()]).unwrap();
        insta::assert_snapshot!(script);
        assert_eq!(sessions_script(&["a\nb".into()]), None);
    }
}
