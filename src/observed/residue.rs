//! The layers tmux keeps besides the panes, where a withheld value can
//! linger after every pane is clean: the global environment, each session's
//! own environment, and the server process's own environment and argv.
//!
//! Everything is read in ONE tmux invocation (commands chained with `;`,
//! each block closed by a marker line), the pane listing's own when a plan
//! observes, so a plan's tmux cost stays constant whatever the number of
//! sessions; the sessions' own layers, when they must be asked, in calls of
//! their own cut below tmux's limit. Values are held as
//! [`SecretValue`]s from the moment they are parsed.

pub use super::markers::{split_panes, Markers};
use super::session_loop::gate_words;
use crate::proc_env::{self, EnvRead, ProcessEnv};
use crate::secret::SecretValue;
use crate::tmux::{argv_bytes as argv_len, means_no_server, Tmux, TmuxOutput};
use std::collections::BTreeMap;

/// tmux refuses a command sequence longer than one message to its server
/// ([`crate::tmux::COMMAND_LIMIT`]): every call of the observation stays
/// under this, and the sessions' environments are asked in as few calls as
/// fit under it.
pub const ARGV_BUDGET: usize = 15_500;

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
    /// `#{version}`, as the server reported it in the listing's call: the
    /// preflight's answer, without a `tmux -V` of its own.
    pub tmux_version: Option<String>,
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

/// `; display -p LINE`, by the short alias, for the argv budget.
fn print_line(line: String) -> [String; 4] {
    [";".into(), "display".into(), "-p".into(), line]
}

/// One marker line of the layers' output.
enum LayerMarker {
    Server(Option<i32>),
    /// `#{version}` of the server.
    Version(String),
    Global,
    Session(usize),
    /// The gate was closed: no session shows a watched value.
    GateClosed,
    /// The gate was open: the sessions are asked in a call of their own.
    GateOpen,
}

impl LayerMarker {
    fn parse(line: &str) -> Option<LayerMarker> {
        let rest = line.strip_prefix('@')?;
        if rest == "g" {
            return Some(LayerMarker::Global);
        }
        if let Some(pid) = rest.strip_prefix("p ") {
            return Some(LayerMarker::Server(pid.parse().ok()));
        }
        if let Some(version) = rest.strip_prefix("v ") {
            return Some(LayerMarker::Version(version.to_owned()));
        }
        match rest {
            "c 0" => return Some(LayerMarker::GateClosed),
            "c 1" => return Some(LayerMarker::GateOpen),
            _ => {}
        }
        (!rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()))
            .then(|| rest.parse().ok().map(LayerMarker::Session))
            .flatten()
    }
}

/// The argv of one tmux invocation. With `panes`, the pane listing
/// comes first, closed by a `panes` marker, then the server's version
/// (`@v`). Then the server pid, the global environment and each session's
/// environment, each block CLOSED by its marker: a command that fails stops
/// the chain before its marker, so a block without one is never read as an
/// empty (clean-looking) answer. With a gate ([`Markers::gated`]) its one
/// `if -F <gate> "display -p '@c 1'" "display -p '@c 0'"` closes the chain:
/// `@c 0` says no session shows a watched value. Commands go by their short
/// aliases, for the argv budget.
pub fn query_args(markers: &Markers, panes: Option<&str>, sessions: &[String]) -> Vec<String> {
    let mut args: Vec<String> = Vec::new();
    if let Some(format) = panes {
        args.extend(["list-panes".into(), "-a".into(), "-F".into(), format.into()]);
        args.extend(print_line(markers.line("panes")));
        args.extend(print_line("@v #{version}".into()));
    }
    // `#{pid}` is tmux's to expand: the server's pid.
    args.extend(print_line("@p #{pid}".into()));
    args.extend([";".into(), "showenv".into(), "-gs".into()]);
    args.extend(print_line("@g".into()));
    for (i, session) in sessions.iter().enumerate() {
        args.extend(session_args(i, session));
    }
    args.extend(gate_words(markers).into_iter().flatten());
    if panes.is_none() {
        // The chain must not start with `;`.
        args.remove(0);
    }
    args
}

/// One session's environment and its closing marker. The index, not the
/// name, goes in the marker: a name is tmux's to format, and `#` in it
/// would be expanded.
fn session_args(i: usize, session: &str) -> Vec<String> {
    let mut args = vec![";".into(), "showenv".into(), format!("-st={session}")];
    args.extend(print_line(format!("@{i}")));
    args
}

/// How many of `sessions` fit in one call after the fixed part of it.
pub fn fitting(markers: &Markers, panes: Option<&str>, sessions: &[String]) -> usize {
    let mut used = argv_len(&query_args(markers, panes, &[]));
    for (i, session) in sessions.iter().enumerate() {
        used += argv_len(&session_args(i, session));
        if used > ARGV_BUDGET {
            return i;
        }
    }
    sessions.len()
}

/// Every layer tmux itself keeps, in as few tmux calls as the argv budget
/// allows (one for up to about two hundred sessions), then `/proc` for the
/// server process. `sessions` are the managed sessions to read.
pub fn observe(tmux: &Tmux, sessions: &[String]) -> ResidueView {
    let markers = Markers::new();
    let first = fitting(&markers, None, sessions).max(1).min(sessions.len());
    let out = match tmux.run(query_args(&markers, None, &sessions[..first])) {
        Ok(out) => out,
        Err(err) => return ResidueView::Unanswered(err.to_string()),
    };
    let view = layers_from(&out.stdout, &out.stderr, out.success, &sessions[..first]);
    match view {
        ResidueView::Observed(mut layers) => {
            more_sessions(tmux, &mut layers, &sessions[first..]);
            ResidueView::Observed(layers)
        }
        other => other,
    }
}

/// Adds the environments of `rest` to `view`, in further calls that ask
/// about sessions only.
pub fn more_sessions(tmux: &Tmux, layers: &mut TmuxLayers, rest: &[String]) {
    let mut rest = rest;
    while !rest.is_empty() {
        let markers = Markers::new();
        let fixed = argv_len(&query_args(&markers, None, &[]));
        let mut used = fixed;
        let mut n = 0;
        while n < rest.len() {
            used += argv_len(&session_args(n, &rest[n]));
            if used > ARGV_BUDGET && n > 0 {
                break;
            }
            n += 1;
        }
        let (chunk, after) = rest.split_at(n);
        rest = after;
        let answer = tmux.run(query_args(&markers, None, chunk));
        add_answer(layers, answer.as_ref().ok(), chunk);
    }
}

/// Adds one sessions-only answer about `asked` to `layers`: each session it
/// read, the rest unobserved. The server answered a moment ago, so anything
/// but layers (no answer, no server, nonsense) leaves every asked session
/// unobserved. The server's process is not read again: the first call did.
pub fn add_answer(layers: &mut TmuxLayers, answer: Option<&TmuxOutput>, asked: &[String]) {
    let view = answer.map(|out| parse_layers(&out.stdout, &out.stderr, out.success, asked));
    match view {
        Some(ResidueView::Observed(more)) => {
            layers.sessions.extend(more.sessions);
            layers.unobserved_sessions.extend(more.unobserved_sessions);
        }
        _ => layers.unobserved_sessions.extend(asked.iter().cloned()),
    }
}

/// The layers from the part of tmux's answer after the pane listing, and
/// the server process's own environment and argv from `/proc`.
pub fn layers_from(stdout: &str, stderr: &str, success: bool, sessions: &[String]) -> ResidueView {
    let mut view = parse_layers(stdout, stderr, success, sessions);
    if let ResidueView::Observed(layers) = &mut view {
        if let Some(pid) = layers.server_pid {
            // Read whatever the process holds, launcher check not applicable:
            // this is tmux's own process, not a harness.
            layers.server_environ = proc_env::read_environ(pid);
            layers.server_argv = proc_env::cmdline_bytes(pid)
                .map(|args| args.into_iter().map(SecretValue::new).collect());
        }
    }
    view
}

/// [`layers_from`] without reading `/proc`: the server process is left
/// unread.
fn parse_layers(stdout: &str, stderr: &str, success: bool, sessions: &[String]) -> ResidueView {
    if !success && means_no_server(stderr) {
        return ResidueView::NoServer;
    }
    let blocks = match parse_blocks(stdout) {
        Ok(blocks) => blocks,
        Err(why) => return ResidueView::Unanswered(why),
    };
    if blocks.server_pid.is_none() && !success {
        // tmux refused the first command, so nothing below it ran: say so
        // rather than report an empty (clean-looking) set of layers.
        return ResidueView::Unanswered(format!("tmux show-environment failed: {stderr}"));
    }
    let mut layers = TmuxLayers {
        server_pid: blocks.server_pid,
        tmux_version: blocks.version,
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
            // The gate said no session shows a watched value: none holds one.
            None if blocks.gate_closed => {
                layers.sessions.insert(name.clone(), ProcessEnv::default());
            }
            None => layers.unobserved_sessions.push(name.clone()),
        }
    }
    ResidueView::Observed(layers)
}

/// The combined output, split back into its blocks.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Blocks {
    pub server_pid: Option<i32>,
    pub version: Option<String>,
    pub global: Option<ProcessEnv>,
    pub sessions: BTreeMap<usize, ProcessEnv>,
    /// A gated call's gate was closed: every asked session is clean.
    pub gate_closed: bool,
}

/// Parses the layers' output: `show-environment -s` entries
/// (`NAME="escaped value"; export NAME;` or `unset NAME;`), whose quoted
/// values may span lines, each block closed by its marker line. Entries
/// not closed by a marker are dropped. Errors never quote the text.
pub fn parse_blocks(text: &str) -> Result<Blocks, String> {
    let mut blocks = Blocks::default();
    let mut pairs: Vec<(String, Vec<u8>)> = Vec::new();
    let mut rest = text;
    let mut entry = 0usize;
    while !rest.is_empty() {
        entry += 1;
        let bad = || format!("unexpected tmux output at entry {entry}");
        let (line, after) = rest.split_once('\n').unwrap_or((rest, ""));
        if let Some(marker) = LayerMarker::parse(line) {
            let env = ProcessEnv::from_pairs(std::mem::take(&mut pairs));
            match marker {
                LayerMarker::Server(pid) => blocks.server_pid = pid,
                LayerMarker::Version(version) => blocks.version = Some(version),
                LayerMarker::Global => blocks.global = Some(env),
                LayerMarker::Session(i) => {
                    blocks.sessions.insert(i, env);
                }
                LayerMarker::GateClosed => blocks.gate_closed = true,
                LayerMarker::GateOpen => {}
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
            pairs.push((name.to_owned(), value));
        }
    }
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

    fn markers() -> Markers {
        Markers::with_nonce("n0")
    }

    #[test]
    fn query_is_one_invocation_naming_sessions_exactly() {
        let args = query_args(
            &markers(),
            Some("#{pane_id}"),
            &["loop-a".into(), "loop-b".into()],
        );
        insta::assert_debug_snapshot!(args);
        assert_eq!(
            query_args(&markers(), None, &[])[0],
            "display",
            "without the listing, the chain starts at the server marker"
        );
    }

    #[test]
    fn five_hundred_sessions_fit_in_two_calls_with_the_listing() {
        let names: Vec<String> = (1..=500)
            .map(|n| format!("loop-github-octo-fleet-{n}"))
            .collect();
        let m = markers();
        let first = fitting(&m, Some(crate::observed::fleet::LIST_PANES_FORMAT), &names);
        assert!(first >= 250, "{first} fit beside the listing");
        let second = fitting(&m, None, &names[first..]);
        assert_eq!(first + second, 500);
        let argv: usize = query_args(&m, None, &names[first..])
            .iter()
            .map(|a| a.len() + 1)
            .sum();
        assert!(argv <= ARGV_BUDGET, "{argv}");
    }

    #[test]
    fn the_listing_is_split_at_its_own_marker_only() {
        let m = markers();
        let out = "loop-a\t0\ntl-n1 panes\ntl-n0 panes\nrest\n";
        assert_eq!(
            split_panes(&m, out),
            Some(("loop-a\t0\ntl-n1 panes\n", "rest\n"))
        );
        assert_eq!(split_panes(&m, "tl-n0 panes\nx"), Some(("", "x")));
        assert_eq!(split_panes(&m, "loop-a\t0\n"), None, "the listing failed");
    }

    #[test]
    fn parses_markers_escapes_multiline_values_and_unsets() {
        let out = "@p 4242\n\
                   HOME=\"/root\"; export HOME;\n\
                   TOK=\"a\\$b\\\"c\\`d\\\\e\n@0\nx\"; export TOK;\n\
                   unset DISPLAY;\n\
                   @g\n\
                   unset SSH_AUTH_SOCK;\n\
                   S=\"one\"; export S;\n\
                   @0\n\
                   @1\n\
                   LEFT=\"unclosed\"; export LEFT;\n";
        let blocks = parse_blocks(out).unwrap();
        assert_eq!(blocks.server_pid, Some(4242));
        let global = blocks.global.as_ref().unwrap();
        assert_eq!(value(global, "HOME").unwrap(), b"/root");
        assert_eq!(
            value(global, "TOK").unwrap(),
            b"a$b\"c`d\\e\n@0\nx",
            "a marker inside a quoted value is value text"
        );
        assert_eq!(value(global, "DISPLAY"), None);
        assert_eq!(value(&blocks.sessions[&0], "S").unwrap(), b"one");
        assert_eq!(blocks.sessions[&1].names().count(), 0);
        assert!(
            !blocks.sessions.values().any(|e| e.get("LEFT").is_some()),
            "a block with no closing marker is no answer"
        );
    }

    #[test]
    fn garbage_is_refused_without_quoting_it() {
        assert_eq!(parse_blocks("").unwrap(), Blocks::default());
        for bad in [
            "NOT-A-LINE-secret-canary-9q\n",
            "A=\"unterminated-secret-canary-9q",
            "A=\"v\"; export B;\n@g\n",
            "@what\n",
        ] {
            let err = parse_blocks(bad).unwrap_err();
            assert!(!err.contains("canary") && !err.contains("outside"), "{err}");
        }
    }
}
