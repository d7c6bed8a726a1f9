//! Running one documented command line the way a shell would, against a
//! private world, and the redactions that make its output comparable.

use crate::support::{fp, World};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A command line's words: whitespace separates them, `'…'` is literal,
/// `"…"` takes `\"`, `\\` and `\$`, a word starting with `#` starts a
/// comment, and `~` at the start of a word is the world's HOME. Pipes,
/// redirections and substitutions are refused: an example that needs them
/// is not a plain command, and is marked `skip`.
pub fn words(line: &str, home: &Path) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut chars = line.chars().peekable();
    loop {
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        let Some(&first) = chars.peek() else { break };
        if first == '#' {
            break;
        }
        let mut word = String::new();
        if first == '~' {
            chars.next();
            if chars.peek().is_none_or(|c| *c == '/' || c.is_whitespace()) {
                word.push_str(&home.display().to_string());
            } else {
                word.push('~');
            }
        }
        while let Some(c) = chars.next_if(|c| !c.is_whitespace()) {
            match c {
                '\'' => loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err(format!("unclosed quote in `{line}`")),
                    }
                },
                '"' => loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') if chars.peek().is_some_and(|c| "\"\\$".contains(*c)) => {
                            word.push(chars.next().unwrap())
                        }
                        Some('$' | '`') => return Err(format!("substitution in `{line}`")),
                        Some(c) => word.push(c),
                        None => return Err(format!("unclosed quote in `{line}`")),
                    }
                },
                '|' | '>' | '<' | ';' | '&' | '$' | '`' | '(' | ')' => {
                    return Err(format!("`{c}` in `{line}`: not a plain command"));
                }
                c => word.push(c),
            }
        }
        words.push(word);
    }
    Ok(words)
}

/// A command line that pipes one literal value into the-loop, as the pages
/// show a value handed to `the-loop fingerprint`: `printf %s 'VALUE' |
/// the-loop …`. The value and the-loop's own command line, or `None` for
/// any other line (which [`words`] then refuses if it pipes).
pub fn piped(line: &str, home: &Path) -> Result<Option<(String, String)>, String> {
    let Some((printf, command)) = line.split_once(" | ") else {
        return Ok(None);
    };
    let printf = words(printf, home)?;
    match &printf[..] {
        [p, format, value] if p == "printf" && format == "%s" => {
            Ok(Some((value.clone(), command.to_owned())))
        }
        _ => Err(format!(
            "`{line}`: only `printf %s 'VALUE' | the-loop …` may pipe"
        )),
    }
}

/// What a command printed (stdout and stderr in one stream, as a terminal
/// shows them), then `[exit code N]` when it did not exit 0. `stdin` is
/// what it reads there (nothing when `None`). With `tty`, it runs on a
/// pseudo-terminal of its own (`tests/it/support/in-pty`), and what it
/// wrote there is what it printed.
pub fn run(
    w: &World,
    args: &[String],
    interrupt_when: Option<&dyn Fn(&str) -> bool>,
    stdin: Option<&str>,
    tty: bool,
) -> String {
    let log = w.root().join("docs-example.log");
    let file = std::fs::File::create(&log).unwrap();
    let mut cmd = w.the_loop_bare();
    if tty {
        let the_loop = cmd.get_program().to_owned();
        let mut helper = Command::new("python3");
        for (name, value) in cmd.get_envs() {
            match value {
                Some(value) => helper.env(name, value),
                None => helper.env_remove(name),
            };
        }
        helper
            .env("TERM", "xterm")
            .arg(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/it/support/in-pty"
            ))
            .arg(&log)
            .arg("--")
            .arg(the_loop);
        cmd = helper;
    }
    cmd.args(args)
        .env("THE_LOOP_CLI_CONFIG", &w.config_path)
        .current_dir(&w.home)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(file.try_clone().unwrap())
        .stderr(file);
    let mut child = cmd.spawn().expect("run the-loop");
    drop(cmd);
    if let (Some(value), Some(mut pipe)) = (stdin, child.stdin.take()) {
        use std::io::Write;
        pipe.write_all(value.as_bytes()).unwrap();
    }
    let deadline = Instant::now() + Duration::from_secs(120);
    if let Some(said_enough) = interrupt_when {
        // A foreground service: Ctrl-C once what it printed (some first
        // lines of it) matches what the page shows before the `^C`.
        let mut checked = 0;
        'wait: loop {
            let out = std::fs::read_to_string(&log).unwrap();
            let ends: Vec<usize> = out.match_indices('\n').map(|(at, _)| at + 1).collect();
            for &end in ends.iter().skip(checked) {
                if said_enough(&out[..end]) {
                    break 'wait;
                }
            }
            checked = ends.len();
            assert!(
                Instant::now() < deadline,
                "{args:?} never said enough; it said:\n{out}"
            );
            assert!(
                child.try_wait().unwrap().is_none(),
                "{args:?} ended early; it said:\n{out}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        std::thread::sleep(Duration::from_millis(300));
        let kill = std::process::Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(kill.success());
    }
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("{args:?} ran for more than two minutes");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut out = String::from_utf8_lossy(&std::fs::read(&log).unwrap()).replace("\r\n", "\n");
    match status.code() {
        Some(0) => {}
        Some(code) => out.push_str(&format!("[exit code {code}]\n")),
        None => out.push_str("[killed by a signal]\n"),
    }
    out
}

/// What differs from one run to the next, as placeholders: the world's
/// directory, pids, times, conversation ids, the tmux version, and the
/// fingerprint of the config's path (a random directory). Fingerprints of
/// the example tokens are kept: a reader can check them by hand.
pub fn redactions(w: &World) -> snapbox::Redactions {
    let regex = |r: &str| regex::Regex::new(r).unwrap();
    let mut r = snapbox::Redactions::new();
    r.insert("[ROOT]", w.root()).unwrap();
    // tmux's socket directory is named for the user who runs the tests.
    r.insert("[UID]", regex(r"/tmux-(?<redacted>\d+)/"))
        .unwrap();
    r.insert("[CONFIG_FP]", fp(&w.config_path.display().to_string()))
        .unwrap();
    r.insert("[PID]", regex(r"\bpid (?<redacted>\d+)")).unwrap();
    r.insert("[PID]", regex(r"\bpid (?:\d+|\[PID\]) → (?<redacted>\d+)"))
        .unwrap();
    r.insert(
        "[PID]",
        regex(r#""(?:pane_pid|server_pid|old_pid|new_pid|pid)": ?(?<redacted>\d+)"#),
    )
    .unwrap();
    r.insert(
        "[TIME]",
        regex(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z"),
    )
    .unwrap();
    let uuid = regex(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
    r.insert("[UUID]", uuid.clone()).unwrap();
    // A record's fingerprint covers its times and paths.
    r.insert(
        "[RECORD_FP]",
        regex(r#""record_fingerprint": ?"(?<redacted>[0-9a-f]{8})""#),
    )
    .unwrap();
    // `sessions list` shows a conversation id's first 8 characters: those
    // of the random ones `sessions start` made (the scenes' own are fixed).
    for id in conversation_ids(&w.state.join("local")) {
        if uuid.is_match(&id) {
            r.insert("[CONVID]", id[..8].to_owned()).unwrap();
        }
    }
    r.insert("[TMUX_VERSION]", regex(r"(?m)^tmux +(?<redacted>\S+)$"))
        .unwrap();
    r
}

/// The conversation ids of every record under `dir`.
fn conversation_ids(dir: &Path) -> Vec<String> {
    let mut ids = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            ids.extend(conversation_ids(&path));
        } else if let Ok(text) = std::fs::read_to_string(&path) {
            let record: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
            if let Some(id) = record["harnessSessionId"].as_str() {
                ids.push(id.to_owned());
            }
        }
    }
    ids
}

/// The port the pages' `curl` lines name: the one the user unit of
/// `docs/watch.md` listens on. A background watch of the test listens on a
/// free port (`--metrics-listen 127.0.0.1:0`), and a `curl` line is pointed
/// there.
pub const DOCUMENTED_PORT: &str = "127.0.0.1:9464";

/// A `curl` line of a page, run against `address` in place of `named`
/// ([`DOCUMENTED_PORT`], or the Prometheus of `docs/fleet.md`): what it
/// printed (headers' `\r\n` as `\n`), then `[exit code N]` when it did
/// not exit 0.
pub fn curl(args: &[String], named: &str, address: &str) -> String {
    let out = Command::new("curl")
        .args(args.iter().map(|a| a.replace(named, address)))
        .stdin(Stdio::null())
        .output()
        .expect("run curl");
    let mut text = String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n");
    // A body that does not end its last line (Prometheus's JSON) ends it
    // here: a page shows the next prompt on a line of its own.
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    if let Some(code) = out.status.code().filter(|c| *c != 0) {
        text.push_str(&format!("[exit code {code}]\n"));
    }
    text
}
