//! The layers tmux keeps besides the panes, where a withheld value can
//! linger after every pane is clean: the global environment, each session's
//! own environment, and the server process's own environment and argv.
//!
//! Everything is read in ONE tmux invocation (commands chained with `;`,
//! each session's output introduced by a marker line), so a plan's tmux cost
//! stays constant whatever the number of sessions. Values are held as
//! [`SecretValue`]s from the moment they are parsed.

use super::proc_env::{self, EnvRead, ProcessEnv};
use crate::secret::SecretValue;
use crate::tmux::{means_no_server, Tmux};
use std::collections::BTreeMap;

/// Introduces each block of the combined output. A marker is printed by
/// `display-message -p`, outside any quoted value, so the stream parser
/// below can never mistake a value's text for one.
const MARKER: &str = "the-loop-residue";

/// What tmux's layers hold, or why they could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResidueView {
    /// tmux answered that no server is running: there is nothing to hold.
    NoServer,
    /// tmux could not be asked, did not answer, or answered nonsense.
    Unanswered(String),
    Observed(TmuxLayers),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TmuxLayers {
    pub server_pid: Option<i32>,
    /// `show-environment -g`.
    pub global: Option<ProcessEnv>,
    /// `show-environment -t =NAME`, for each session that answered.
    pub sessions: BTreeMap<String, ProcessEnv>,
    /// Sessions asked about that gave no answer (gone meanwhile, or the
    /// chain stopped at an earlier error).
    pub unobserved_sessions: Vec<String>,
    /// `/proc/<server pid>/environ`.
    pub server_environ: EnvRead,
    /// `/proc/<server pid>/cmdline`, each argument unprintable.
    pub server_argv: Result<Vec<SecretValue>, String>,
}

/// The argv of the one tmux invocation: server pid, global environment,
/// then each session's environment, each block behind a marker line.
pub fn query_args(sessions: &[String]) -> Vec<String> {
    let mut args: Vec<String> = vec![
        "display-message".into(),
        "-p".into(),
        format!("{MARKER} server #{{pid}}"),
        ";".into(),
        "display-message".into(),
        "-p".into(),
        format!("{MARKER} global"),
        ";".into(),
        "show-environment".into(),
        "-g".into(),
        "-s".into(),
    ];
    for (i, session) in sessions.iter().enumerate() {
        // The index, not the name, goes in the marker: a name is tmux's to
        // format, and `#` in it would be expanded.
        args.extend([
            ";".into(),
            "display-message".into(),
            "-p".into(),
            format!("{MARKER} session {i}"),
            ";".into(),
            "show-environment".into(),
            "-s".into(),
            "-t".into(),
            format!("={session}"),
        ]);
    }
    args
}

/// One tmux call for every layer tmux itself keeps, then `/proc` for the
/// server process. `sessions` are the managed sessions to read.
pub fn observe(tmux: &Tmux, sessions: &[String]) -> ResidueView {
    let out = match tmux.run(query_args(sessions)) {
        Ok(out) => out,
        Err(err) => return ResidueView::Unanswered(err.to_string()),
    };
    if !out.success && means_no_server(&out.stderr) {
        return ResidueView::NoServer;
    }
    let blocks = match parse_blocks(&out.stdout) {
        Ok(blocks) => blocks,
        Err(why) => return ResidueView::Unanswered(why),
    };
    if blocks.server_pid.is_none() && !out.success {
        // tmux refused the first command, so nothing below it ran: say so
        // rather than report an empty (clean-looking) set of layers.
        return ResidueView::Unanswered(format!("tmux show-environment failed: {}", out.stderr));
    }
    let mut layers = TmuxLayers {
        server_pid: blocks.server_pid,
        global: blocks.global,
        sessions: BTreeMap::new(),
        unobserved_sessions: Vec::new(),
        server_environ: EnvRead::Unverified("the tmux server's pid is unknown".into()),
        server_argv: Err("the tmux server's pid is unknown".into()),
    };
    let mut by_index = blocks.sessions;
    for (i, name) in sessions.iter().enumerate() {
        match by_index.remove(&i) {
            Some(env) => {
                layers.sessions.insert(name.clone(), env);
            }
            None => layers.unobserved_sessions.push(name.clone()),
        }
    }
    if let Some(pid) = layers.server_pid {
        // Read whatever the process holds, launcher check not applicable:
        // this is tmux's own process, not a harness.
        layers.server_environ = proc_env::read_environ(pid);
        layers.server_argv = proc_env::cmdline_bytes(pid)
            .map(|args| args.into_iter().map(SecretValue::new).collect());
    }
    ResidueView::Observed(layers)
}

/// The combined output, split back into its blocks.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Blocks {
    pub server_pid: Option<i32>,
    pub global: Option<ProcessEnv>,
    pub sessions: BTreeMap<usize, ProcessEnv>,
}

enum Block {
    None,
    Global,
    Session(usize),
}

/// Parses the combined output: marker lines, and `show-environment -s`
/// entries (`NAME="escaped value"; export NAME;` or `unset NAME;`), whose
/// quoted values may span lines. Errors never quote the text.
pub fn parse_blocks(text: &str) -> Result<Blocks, String> {
    let mut blocks = Blocks::default();
    let mut current = Block::None;
    let mut pairs: Vec<(String, Vec<u8>)> = Vec::new();
    let mut rest = text;
    let mut entry = 0usize;
    let flush = |current: &Block, pairs: &mut Vec<(String, Vec<u8>)>, blocks: &mut Blocks| {
        let env = ProcessEnv::from_pairs(std::mem::take(pairs));
        match current {
            Block::None => {}
            Block::Global => blocks.global = Some(env),
            Block::Session(i) => {
                blocks.sessions.insert(*i, env);
            }
        }
    };
    while !rest.is_empty() {
        entry += 1;
        let bad = || format!("unexpected tmux output at entry {entry}");
        if let Some(marker) = rest.strip_prefix(MARKER).and_then(|r| r.strip_prefix(' ')) {
            let (line, after) = marker.split_once('\n').unwrap_or((marker, ""));
            flush(&current, &mut pairs, &mut blocks);
            current = Block::None;
            let mut words = line.split(' ');
            match (words.next(), words.next()) {
                (Some("server"), Some(pid)) => blocks.server_pid = pid.parse().ok(),
                (Some("global"), None) => current = Block::Global,
                (Some("session"), Some(i)) => {
                    current = Block::Session(i.parse().map_err(|_| bad())?)
                }
                _ => return Err(bad()),
            }
            rest = after;
        } else if let Some(unset) = rest.strip_prefix("unset ") {
            // A name tmux will remove from the environment of new panes: not a value.
            let (_, after) = unset.split_once(";\n").ok_or_else(bad)?;
            rest = after;
        } else {
            let (name, after) = rest.split_once("=\"").ok_or_else(bad)?;
            if name.is_empty() || name.contains(['\n', '"']) {
                return Err(bad());
            }
            let (value, after) = unquote(after).ok_or_else(bad)?;
            let tail = format!("; export {name};");
            let after = after.strip_prefix(tail.as_str()).ok_or_else(bad)?;
            rest = after.strip_prefix('\n').unwrap_or(after);
            if matches!(current, Block::None) {
                return Err(bad());
            }
            pairs.push((name.to_owned(), value));
        }
    }
    flush(&current, &mut pairs, &mut blocks);
    Ok(blocks)
}

/// Reads up to the closing unescaped `"`; tmux escapes `$`, `` ` ``, `"`
/// and `\` with a backslash and writes everything else as it is.
fn unquote(text: &str) -> Option<(Vec<u8>, &str)> {
    let bytes = text.as_bytes();
    let mut value = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => return Some((value, &text[i + 1..])),
            b'\\' if i + 1 < bytes.len() => {
                value.push(bytes[i + 1]);
                i += 2;
            }
            b => {
                value.push(b);
                i += 1;
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(env: &ProcessEnv, name: &str) -> Option<Vec<u8>> {
        env.get(name).map(|v| v.expose_bytes().to_vec())
    }

    #[test]
    fn query_is_one_invocation_naming_sessions_exactly() {
        let args = query_args(&["loop-a".into(), "loop-b".into()]);
        insta::assert_debug_snapshot!(args);
    }

    #[test]
    fn parses_markers_escapes_multiline_values_and_unsets() {
        let out = "the-loop-residue server 4242\n\
                   the-loop-residue global\n\
                   HOME=\"/root\"; export HOME;\n\
                   TOK=\"a\\$b\\\"c\\`d\\\\e\nthe-loop-residue session 0\nx\"; export TOK;\n\
                   unset DISPLAY;\n\
                   the-loop-residue session 0\n\
                   unset SSH_AUTH_SOCK;\n\
                   S=\"one\"; export S;\n\
                   the-loop-residue session 1\n";
        let blocks = parse_blocks(out).unwrap();
        assert_eq!(blocks.server_pid, Some(4242));
        let global = blocks.global.as_ref().unwrap();
        assert_eq!(value(global, "HOME").unwrap(), b"/root");
        assert_eq!(
            value(global, "TOK").unwrap(),
            b"a$b\"c`d\\e\nthe-loop-residue session 0\nx",
            "a marker inside a quoted value is value text"
        );
        assert_eq!(value(global, "DISPLAY"), None);
        assert_eq!(value(&blocks.sessions[&0], "S").unwrap(), b"one");
        assert_eq!(blocks.sessions[&1].names().count(), 0);
    }

    #[test]
    fn garbage_is_refused_without_quoting_it() {
        for bad in [
            "NOT-A-LINE-secret-canary-9q\n",
            "the-loop-residue global\nA=\"unterminated-secret-canary-9q",
            "the-loop-residue global\nA=\"v\"; export B;\n",
            "A=\"outside-any-block\"; export A;\n",
            "the-loop-residue what\n",
        ] {
            let err = parse_blocks(bad).unwrap_err();
            assert!(!err.contains("canary") && !err.contains("outside"), "{err}");
        }
    }

    #[test]
    fn empty_output_is_no_blocks() {
        assert_eq!(parse_blocks("").unwrap(), Blocks::default());
    }
}
