//! The observation's tmux questions as a command script, for fleets whose
//! `;` chain would not fit on one command line.
//!
//! tmux refuses a command line longer than one message to its server
//! (16 KiB), which holds the listing and about two hundred and fifty
//! sessions' environments. A script fed to `tmux source-file -` on stdin
//! has no such limit, so the whole observation stays one tmux client
//! whatever the number of sessions (measured: 1000 sessions, one call).
//!
//! Each line of a sourced script is its own command group: a command that
//! fails (a session that vanished) skips the rest of ITS line only, where
//! in a `;` chain it stops everything after it. Every block is still closed
//! by its marker on the same line, so a failed command's block has no
//! marker and is never read as an empty environment. `source-file -` reads
//! stdin from tmux 3.1 on; on an older tmux no marker comes back at all, and
//! the caller falls back to the chain.

use super::residue::Markers;

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

/// The script asking what [`super::residue::query_args`] asks, one group
/// per line: the pane listing (closed by its nonce marker), the server pid,
/// the global environment and each session's environment, each block
/// closed by its marker. `None` when a word cannot be written in a script.
pub fn query_script(markers: &Markers, panes: &str, sessions: &[String]) -> Option<String> {
    let panes_marker = markers.line("panes");
    let mut script = line(&[
        &["list-panes", "-a", "-F", panes],
        &["display", "-p", &panes_marker],
    ])?;
    script.push_str(&line(&[&["display", "-p", "@p #{pid}"]])?);
    script.push_str(&line(&[&["showenv", "-gs"], &["display", "-p", "@g"]])?);
    if let Some((gate, word)) = super::session_loop::gated_word(markers, sessions) {
        // One quoted word, built into commands only when the gate holds: a
        // `{ }` block would be built either way, and building the commands
        // is most of what a long script costs tmux (measured: 126 ms for
        // 500 sessions' lines behind a false gate as a block, 22 ms as one
        // word).
        if let Some(word) = word {
            let closed = super::session_loop::GATE_CLOSED;
            let (gate, word, closed) = (quote(gate)?, quote(&word)?, quote(closed)?);
            script.push_str(&format!("if -F {gate} {word} {closed}\n"));
        }
        return Some(script);
    }
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
        let script = query_script(
            &Markers::with_nonce("n0"),
            "#{pane_id}",
            &["loop-a".into(), "loop-b".into()],
        )
        .unwrap();
        insta::assert_snapshot!(script);
        assert_eq!(
            query_script(&Markers::with_nonce("n0"), "x", &["a\nb".into()]),
            None
        );
    }
}
