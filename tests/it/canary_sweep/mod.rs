//! The canary sweep (issue 6, point 1): every command the binary has, on
//! its success path and on every failure path we can provoke, with and
//! without `RUST_LOG=trace`, and then a search of everything it could have
//! written for every planted value, raw and in base64 and hex.
//!
//! The sweep is a TABLE: one [`row`] per invocation. A new command, flag or
//! failure path is one more line in [`ROWS`]; a new kind of world is one
//! more [`Scenario`].
//!
//! Canaries are planted where a value can sit: the env file (current
//! values, and the text after an unterminated quote), the caller's own
//! process environment, the tmux server's process environment, the tmux
//! global and session environments, the panes (born on the server's
//! environment), and corrupt registry records. Every row is run in a fresh
//! world, and after it the sweep reads stdout, stderr, every file under the
//! state root (event log, registry records, saved plans, the lock), the argv
//! of every tmux invocation (recorded by a wrapper on PATH), and the
//! cmdline of the tmux server and of every process in a pane.

mod rows;
mod worlds;

use crate::support::*;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use rows::ROWS;
use worlds::{build, current_env_file, Built, REF};

// ---- canaries ------------------------------------------------------------

/// The env file's current values.
const FILE_TOKEN: &str = "xoxb-ROTATED-sw33p-4d2c";
const FILE_SHORT: &str = "%Qz$7~"; // short, `$`, `%`, `~`
const FILE_QUOTES: &str = "it's \"q\" sw33p-7a9";
const FILE_DOLLAR: &str = "p$$w0rd-${HOME}-sw33p-5d2";
const FILE_MULTI: &str = "first-sw33p-line-3b1\nsecond-sw33p-line-6e0";
const FILE_DELIVERED: &str = "dlv-sw33p-2c7d";
/// What the tmux server's process environment (and so the panes born on it) holds.
const OLD_TOKEN: &str = "xoxb-RETIRED-sw33p-0b5e";
const OLD_SHORT: &str = "~Wq$4%";
const OLD_MULTI: &str = "old-sw33p-one-9c\nold-sw33p-two-4f";
const OLD_EXTRA: &str = "x'\"$sw33p-e1";
const OLD_DELIVERED: &str = "old-dlv-sw33p-8e8e";
/// The tmux global and session environments, set after the server started.
const GLOBAL_TOKEN: &str = "glob-sw33p-$'\"-91ab";
const SESSION_SHORT: &str = "q'$\"Zx";
/// The environment of whoever runs the-loop.
const CALLER_TOKEN: &str = "caller-sw33p-aa01";
const CALLER_EXTRA: &str = "%c$1!x";
const CALLER_QUOTES: &str = "caller \"q\" 'sw33p'";
/// A candidate env file (`plan --env-file`, `validate --env-file`).
const CANDIDATE_TOKEN: &str = "xoxb-CANDIDATE-sw33p-6f1e";
/// A malformed env file: everything after the unterminated quote.
const UNTERMINATED: &str = "unterminated-sw33p-71c";
const REST_OF_FILE: &str = "rest-of-file-sw33p-0e0";
/// Corrupt registry records (the planted files themselves are not swept).
const CORRUPT_TRUNCATED: &str = "corrupt-sw33p-c0c0";
const CORRUPT_WRONG_TYPE: &str = "corrupt-path-sw33p-d1d1";

const CANARIES: &[&str] = &[
    FILE_TOKEN,
    FILE_SHORT,
    FILE_QUOTES,
    FILE_DOLLAR,
    FILE_MULTI,
    "first-sw33p-line-3b1",
    "second-sw33p-line-6e0",
    FILE_DELIVERED,
    OLD_TOKEN,
    OLD_SHORT,
    OLD_MULTI,
    "old-sw33p-one-9c",
    "old-sw33p-two-4f",
    OLD_EXTRA,
    OLD_DELIVERED,
    GLOBAL_TOKEN,
    SESSION_SHORT,
    CALLER_TOKEN,
    CALLER_EXTRA,
    CALLER_QUOTES,
    UNTERMINATED,
    REST_OF_FILE,
    CORRUPT_TRUNCATED,
    CORRUPT_WRONG_TYPE,
    CANDIDATE_TOKEN,
];

const CALLER_ENV: &[(&str, &str)] = &[
    ("SLACK_BOT_TOKEN", CALLER_TOKEN),
    ("EXTRA_CRED", CALLER_EXTRA),
    ("QUOTE_SECRET", CALLER_QUOTES),
];

// ---- the table -----------------------------------------------------------

/// The world a row runs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scenario {
    /// A server frozen on old values, two sessions born on it, the env file
    /// rotated, canaries in the global and a session environment.
    Drifted,
    /// No server and no session yet.
    Fresh,
    /// The env file has an unterminated quote around a canary.
    Malformed,
    /// The env file's path is a directory (root reads through chmod 000).
    EnvIsDirectory,
    /// The env file's path is a dangling symlink.
    EnvDangling,
    /// Sessions run, but tmux is not on the-loop's PATH.
    NoTmux,
    /// Sessions are registered, and no tmux server runs.
    NoServer,
    /// tmux's socket accepts and never answers.
    Hung,
    /// A registered session's harness has exited (pane kept by remain-on-exit).
    DeadPane,
    /// The harness re-execs itself holding a withheld name after a respawn.
    Mismatch,
    /// The harness refuses to resume.
    ResumeFails,
    /// Two corrupt registry records holding canaries, beside a good one.
    CorruptRecords,
    /// As `Drifted`, plus a harness a person started by hand in a session
    /// of their own (`mywork`, pane `{pane}`) and a bare one (`bare`).
    ByHand,
    /// As `ByHand`, with `mywork`'s harness imported as github:octo/repo#5.
    Imported,
    /// As `Drifted`, with `env.fingerprint: keyed` (the key made on first use).
    Keyed,
    /// As `Drifted`, rolled by `apply`, then the env file changed (a value
    /// rotated back, a name added) and rolled again: two rolls in the log.
    Rolled,
    /// As `Drifted`, with Claude Code's background host turned on over a
    /// stand-in worker holding retired values, imported as
    /// github:octo/repo#8 (`hosts::plant`: its host commands fail).
    BackgroundHost,
}

use Scenario::*;

struct Row {
    scenario: Scenario,
    /// Split on spaces after `{ref}`, `{cwd}`, `{config}`, `{plan}`, `{pane}`,
    /// `{env}` (the env file), `{candidate}` (a candidate env file) and
    /// `{candplan}` (a plan saved against the candidate) are filled in.
    /// A last word `<TOKEN` or `<SHORT` is not an argument: that canary
    /// ([`FILE_TOKEN`], [`FILE_SHORT`]) is written to the command's stdin.
    args: &'static str,
    code: i32,
    /// Text that must appear in stdout or stderr, proving the path was taken.
    expect: &'static str,
}

const fn row(scenario: Scenario, args: &'static str, code: i32, expect: &'static str) -> Row {
    Row {
        scenario,
        args,
        code,
        expect,
    }
}

// ---- the sweep -----------------------------------------------------------

/// Every byte the row could have left where someone can read it.
fn haystacks(b: &Built, out: &std::process::Output) -> Vec<(String, Vec<u8>)> {
    let w = &b.w;
    let mut found = vec![
        ("stdout".to_owned(), out.stdout.clone()),
        ("stderr".to_owned(), out.stderr.clone()),
    ];
    for (path, bytes) in w.state_files() {
        if !b.planted.contains(&path) {
            found.push((path.display().to_string(), bytes));
        }
    }
    for (i, argv) in w.tmux_invocations().into_iter().enumerate() {
        found.push((
            format!("tmux invocation {i} argv"),
            argv.join("\u{1f}").into_bytes(),
        ));
    }
    found.push((
        "the lines sent to tmux control clients".to_owned(),
        std::fs::read(w.tmux_control_log()).unwrap_or_default(),
    ));
    if b.tmux_reachable {
        if let Some(server) = w.server_pid() {
            found.push((
                format!("/proc/{server}/cmdline (tmux server)"),
                std::fs::read(format!("/proc/{server}/cmdline")).unwrap_or_default(),
            ));
            for pane in w.all_pane_pids() {
                for pid in std::iter::once(pane).chain(descendants(pane)) {
                    found.push((
                        format!("/proc/{pid}/cmdline (pane process)"),
                        std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default(),
                    ));
                }
            }
        }
    }
    found
}

fn run_row(row: &Row, trace: bool) -> usize {
    let b = build(row.scenario);
    let w = &b.w;
    let plan_path = w.state.join("saved-plan.json");
    let candplan = w.state.join("candidate-plan.json");
    let candidate = w.root().join("candidate.env");
    std::fs::write(
        &candidate,
        current_env_file().replace(FILE_TOKEN, CANDIDATE_TOKEN),
    )
    .unwrap();
    let cwd = w.work.join("new-session");
    std::fs::create_dir_all(&cwd).unwrap();
    let filled = row
        .args
        .replace("{ref}", REF)
        .replace("{cwd}", cwd.to_str().unwrap())
        .replace("{config}", w.config_path.to_str().unwrap())
        .replace("{plan}", plan_path.to_str().unwrap())
        .replace("{pane}", &b.pane)
        .replace("{env}", w.env_path.to_str().unwrap())
        .replace("{candidate}", candidate.to_str().unwrap())
        .replace("{candplan}", candplan.to_str().unwrap());
    let mut args: Vec<&str> = filled.split(' ').collect();
    let stdin = match args.last() {
        Some(&"<TOKEN") => Some(FILE_TOKEN),
        Some(&"<SHORT") => Some(FILE_SHORT),
        _ => None,
    };
    if stdin.is_some() {
        args.pop();
    }
    let mut env: Vec<(&str, &str)> = CALLER_ENV.to_vec();
    env.extend(b.env.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    if trace {
        env.push(("RUST_LOG", "trace"));
    }
    if row.args.contains("{plan}") {
        let saved = w.the_loop_with(&["plan", "--out", plan_path.to_str().unwrap()], &env);
        assert_eq!(
            saved.status.code(),
            Some(0),
            "saving the plan: {}",
            stderr(&saved)
        );
    }
    if row.args.contains("{candplan}") {
        let saved = w.the_loop_with(
            &[
                "plan",
                "--env-file",
                candidate.to_str().unwrap(),
                "--out",
                candplan.to_str().unwrap(),
            ],
            &env,
        );
        assert_eq!(
            saved.status.code(),
            Some(0),
            "saving the candidate's plan: {}",
            stderr(&saved)
        );
    }
    let out = match stdin {
        None => w.the_loop_with(&args, &env),
        Some(value) => {
            let mut cmd = w.the_loop_command(&args);
            cmd.envs(env.iter().copied())
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped());
            let mut child = cmd.spawn().expect("run the-loop");
            use std::io::Write;
            // A usage error exits before reading: a closed pipe is no failure.
            let _ = child.stdin.take().unwrap().write_all(value.as_bytes());
            child.wait_with_output().expect("run the-loop")
        }
    };
    let said = format!("{}{}", stdout(&out), stderr(&out));
    assert_eq!(
        out.status.code(),
        Some(row.code),
        "exit code of `{}` in {:?}:\n{said}",
        row.args,
        row.scenario
    );
    assert!(
        said.contains(row.expect),
        "`{}` in {:?} should say {:?}:\n{said}",
        row.args,
        row.scenario,
        row.expect
    );
    let stacks = haystacks(&b, &out);
    for (what, bytes) in &stacks {
        assert_no_canary(bytes, CANARIES, what);
    }
    stacks.len()
}

#[test]
#[allow(
    clippy::print_stdout,
    reason = "the sweep's coverage figures belong in the test log"
)]
fn no_canary_leaks_from_any_command_on_any_path() {
    let only = std::env::var("SWEEP_ONLY").ok();
    let cases: Vec<(&Row, bool)> = ROWS
        .iter()
        .filter(|r| only.as_deref().is_none_or(|o| r.args.contains(o)))
        .flat_map(|r| [(r, false), (r, true)])
        .collect();
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let swept = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..3 {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some((row, trace)) = cases.get(i) else {
                    break;
                };
                let result =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_row(row, *trace)));
                match result {
                    Ok(n) => {
                        swept.fetch_add(n, Ordering::SeqCst);
                    }
                    Err(panic) => {
                        let why = panic
                            .downcast_ref::<String>()
                            .cloned()
                            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                            .unwrap_or_default();
                        failures.lock().unwrap().push(format!(
                            "{:?} `{}`{}: {why}",
                            row.scenario,
                            row.args,
                            if *trace { " (RUST_LOG=trace)" } else { "" }
                        ));
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "{} of {} sweep cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
    assert!(cases.len() >= 2 * ROWS.len() || only.is_some());
    println!(
        "canary sweep: {} invocations, {} canaries (each raw, base64 and hex), {} haystacks searched",
        cases.len(),
        CANARIES.len(),
        swept.load(Ordering::SeqCst)
    );
}

/// `the-loop top` shows names and fingerprints only: its table, its help
/// and a session's plan, captured from a real tmux pane, hold no value.
#[test]
fn top_screens_hold_no_canary() {
    use crate::top::{capture, keys, shell_pane, start_top, wait_for_screen};
    let w = World::new();
    w.rotated_fleet(2, OLD_TOKEN, FILE_TOKEN);
    let pane = shell_pane(&w, 200, 50);
    start_top(&w, &pane, "");
    wait_for_screen(&w, &pane, "to respawn");
    let mut screens = capture(&w, &pane);
    keys(&w, &pane, &["?"]);
    wait_for_screen(&w, &pane, "this help");
    screens += &capture(&w, &pane);
    keys(&w, &pane, &["Escape", "p"]);
    wait_for_screen(&w, &pane, "plan: github:octo/repo#1");
    screens += &capture(&w, &pane);
    keys(&w, &pane, &["Escape", "q"]);
    assert_no_canary(
        screens.as_bytes(),
        &[OLD_TOKEN, FILE_TOKEN],
        "top's screens",
    );
}
