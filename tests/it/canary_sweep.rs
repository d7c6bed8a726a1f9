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

use crate::support::*;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

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

#[rustfmt::skip]
const ROWS: &[Row] = &[
    // plan
    row(Drifted, "plan", 0, "will be respawned"),
    row(Drifted, "plan --json", 0, "\"residue\""),
    row(Drifted, "plan --detailed-exitcode", 2, "will be respawned"),
    row(Drifted, "plan --out {plan}", 0, "Saved this plan"),
    row(Drifted, "plan --json --out {plan}", 0, "\"format_version\""),
    row(Drifted, "plan --target {ref} --json", 0, "\"respawn\""),
    row(Drifted, "plan --target github:octo/nope#1", 1, "no registered session"),
    row(Fresh, "plan", 0, "No loop-* sessions"),
    row(Malformed, "plan", 1, "unterminated double-quoted"),
    row(Malformed, "plan --json", 1, "unterminated double-quoted"),
    row(EnvIsDirectory, "plan", 1, "cannot read env file"),
    row(EnvDangling, "plan --json", 1, "cannot read env file"),
    row(NoTmux, "plan", 1, "tmux is not installed"),
    row(NoTmux, "plan --json --detailed-exitcode", 1, "tmux is not installed"),
    row(NoServer, "plan", 0, "no tmux server runs"),
    row(NoServer, "plan --detailed-exitcode", 1, "sessions start --all"),
    row(Hung, "plan --json", 0, "did not answer"),
    row(Hung, "plan --detailed-exitcode", 1, "could not observe 1 managed session"),
    row(DeadPane, "plan --detailed-exitcode", 2, "not running"),
    row(CorruptRecords, "plan", 0, "registry record"),
    row(CorruptRecords, "plan --json", 0, "\"corrupt_records\""),
    row(Drifted, "plan --env-file {candidate}", 0, "a candidate for env.file"),
    row(Drifted, "plan --env-file {candidate} --json --detailed-exitcode", 2, "\"candidate_for\""),
    row(Drifted, "plan --env-file {candidate} --out {plan}", 0, "Saved this plan"),
    row(Malformed, "plan --env-file {candidate}", 0, "a candidate for env.file"),
    row(Fresh, "plan --env-file {env}", 0, "No loop-* sessions"),
    // show
    row(Drifted, "show {plan}", 0, "Saved plan:"),
    row(Drifted, "show {plan} --json", 0, "\"env_fingerprints\""),
    row(Drifted, "show {candplan}", 0, "a candidate for env.file"),
    row(Drifted, "show {env}", 1, "is not a saved plan"),
    row(Malformed, "show {env} --json", 1, "is not a saved plan"),
    row(Drifted, "show {config}", 1, "is not a saved plan"),
    row(Drifted, "show --help", 0, "PLANFILE"),
    // validate
    row(Drifted, "validate", 0, "The configuration is valid"),
    row(Drifted, "validate --json", 0, "\"valid\": true"),
    row(Drifted, "validate --env-file {candidate}", 0, "a candidate"),
    row(NoTmux, "validate --json", 0, "\"valid\": true"),
    row(Malformed, "validate", 1, "unterminated double-quoted"),
    row(Malformed, "validate --json", 1, "the_loop::envfile::syntax"),
    row(EnvIsDirectory, "validate --json", 1, "cannot read env file"),
    row(EnvDangling, "validate", 1, "no such file"),
    row(Drifted, "validate --help", 0, "--env-file"),
    // apply
    row(Drifted, "apply", 1, "without confirmation"),
    row(Drifted, "apply --auto-approve", 0, "restarted (verified)"),
    row(Drifted, "apply --auto-approve --json", 0, "\"restarted\""),
    row(Drifted, "apply --dry-run", 0, "would restart"),
    row(Drifted, "apply --dry-run --json", 0, "\"would_restart\""),
    row(Drifted, "apply --plan {plan} --auto-approve", 0, "restarted (verified)"),
    row(Drifted, "apply --plan {plan} --auto-approve --json", 0, "\"restarted\""),
    row(Drifted, "apply --auto-approve --scrub-tmux-env", 0, "tmux environment scrub: unset"),
    row(Drifted, "apply --auto-approve --scrub-tmux-env --json", 0, "\"tmux_env_scrub\""),
    row(Drifted, "apply --dry-run --scrub-tmux-env --json", 0, "\"would_restart\""),
    row(Drifted, "apply --auto-approve --target {ref} --parallelism 1", 0, "restarted (verified)"),
    row(Drifted, "apply --auto-approve --now --include-attached --drain-timeout 30s", 0, "restarted (verified)"),
    row(Drifted, "apply --auto-approve --json --drain-timeout 0s", 0, "\"conversation\""),
    row(Drifted, "apply --dry-run --now --json", 0, "\"would_restart\""),
    row(Drifted, "apply --auto-approve --json-stream", 0, "\"type\":\"finished\""),
    row(Drifted, "apply --json-stream", 1, "--auto-approve"),
    row(Drifted, "apply --input=false", 1, "--input=false"),
    row(Drifted, "apply {plan} --target {ref} --auto-approve --lock-timeout 5s", 0, "restarted (verified)"),
    row(Drifted, "apply {plan}", 0, "restarted (verified)"),
    row(Drifted, "apply {plan} --json-stream", 0, "\"type\":\"finished\""),
    row(Drifted, "apply {candplan}", 1, "swap it in"),
    row(Drifted, "sessions restart --all --json-stream --no-color", 0, "\"type\":\"verified\""),
    row(Malformed, "apply --auto-approve", 1, "unterminated double-quoted"),
    row(Malformed, "apply --auto-approve --json", 1, "unterminated double-quoted"),
    row(EnvIsDirectory, "apply --auto-approve --json", 1, "cannot read env file"),
    row(EnvDangling, "apply --dry-run", 1, "cannot read env file"),
    row(NoTmux, "apply --auto-approve", 1, "tmux is not installed"),
    row(NoTmux, "apply --auto-approve --scrub-tmux-env --json", 1, "tmux is not installed"),
    row(NoServer, "apply --auto-approve --json", 1, "\"skipped\""),
    row(Hung, "apply --auto-approve", 1, "did not answer within 300ms"),
    row(DeadPane, "apply --auto-approve --json", 0, "\"skipped\""),
    row(Mismatch, "apply --auto-approve", 1, "mismatch (SLACK_BOT_TOKEN)"),
    row(Mismatch, "apply --auto-approve --json", 1, "\"mismatch\""),
    row(ResumeFails, "apply --auto-approve", 1, "resume failed"),
    row(ResumeFails, "apply --auto-approve --json", 1, "\"resume_failed\""),
    row(CorruptRecords, "apply --auto-approve --json", 0, "\"restarted\""),
    // status
    row(Drifted, "status", 0, "stale environment"),
    row(Drifted, "status --json", 0, "\"stale_sessions\""),
    row(Malformed, "status", 0, "env file not usable"),
    row(Malformed, "status --json", 0, "\"sessions\""),
    row(EnvIsDirectory, "status --json", 0, "\"sessions\""),
    row(NoTmux, "status --json", 1, "tmux is not installed"),
    row(Hung, "status", 0, "sessions"),
    row(Hung, "status --json", 0, "\"tmux_unanswered\""),
    row(CorruptRecords, "status --json", 0, "\"sessions\""),
    // sessions
    row(Drifted, "sessions list", 0, "github:octo/repo#1"),
    row(Drifted, "sessions list --json", 0, "\"tmux_target\""),
    row(CorruptRecords, "sessions list", 0, "cannot be read"),
    row(CorruptRecords, "sessions list --json", 0, "\"format_version\""),
    row(Drifted, "sessions list --status active --work-item #1", 0, "github:octo/repo#1"),
    row(Drifted, "sessions list --standing --json", 0, "\"sessions\""),
    row(NoServer, "sessions list", 0, "absent"),
    row(Hung, "sessions list", 0, "did not answer"),
    row(NoTmux, "sessions list --json", 1, "tmux is not installed"),
    row(Drifted, "sessions attach #1", 1, "not a terminal"),
    row(Drifted, "sessions attach #404", 1, "no registered session matches"),
    row(Drifted, "sessions attach --work-item octo/repo#1 --read-only", 1, "not a terminal"),
    row(Drifted, "sessions attach --help", 0, "switch"),
    row(Drifted, "sessions restart", 1, "needs --all or a work-item ref"),
    row(Drifted, "sessions restart --all", 0, "restarted (verified)"),
    row(Drifted, "sessions restart --all --json", 0, "\"restarted\""),
    row(Drifted, "sessions restart {ref}", 0, "restarted (verified)"),
    row(Drifted, "sessions restart --all --json --now --include-attached --drain-timeout 5s", 0, "\"restarted\""),
    row(Drifted, "sessions restart --all --dry-run --json", 0, "\"would_restart\""),
    row(Malformed, "sessions restart --all", 1, "unterminated double-quoted"),
    row(EnvDangling, "sessions restart --all --json", 1, "cannot read env file"),
    row(NoServer, "sessions restart --all", 1, "skipped"),
    row(NoServer, "sessions start --all --dry-run", 0, "would start"),
    row(NoServer, "sessions start --all --json", 0, "\"started\""),
    row(Drifted, "sessions start --all", 0, "nothing to start"),
    row(Mismatch, "sessions restart --all --json", 1, "\"mismatch\""),
    row(ResumeFails, "sessions restart {ref}", 1, "resume failed"),
    row(Fresh, "sessions start {ref} --cwd {cwd}", 0, "Started"),
    row(Fresh, "sessions start {ref} --cwd {cwd} --json", 0, "\"harness_session_id\""),
    row(Drifted, "sessions start {ref} --cwd {cwd}", 1, "is live"),
    row(Drifted, "sessions start {ref} --cwd {cwd} --fresh", 1, "is live"),
    row(Drifted, "sessions start github:Octo/Repo#1 --cwd {cwd}", 1, "is recorded as"),
    row(Drifted, "sessions start github:octo/repo#9 --cwd {config}", 1, "not a directory"),
    row(Drifted, "sessions start github:octo/repo#9 --cwd {cwd} --json", 0, "\"harness_session_id\""),
    row(Malformed, "sessions start github:octo/repo#9 --cwd {cwd}", 1, "unterminated double-quoted"),
    row(EnvIsDirectory, "sessions start github:octo/repo#9 --cwd {cwd}", 1, "cannot read env file"),
    row(NoTmux, "sessions start github:octo/repo#9 --cwd {cwd}", 1, "tmux is not installed"),
    row(Hung, "sessions start github:octo/repo#9 --cwd {cwd}", 1, "did not answer"),
    // session lifecycle (deliver, pause, stop, close, reset, cleanup, link-pr)
    row(Drifted, "sessions deliver {ref} --message please-look --delivery-id d-1", 0, ""),
    row(Drifted, "sessions deliver {ref} --message please-look --json", 0, ""),
    row(DeadPane, "sessions deliver github:octo/repo#2 --message please-look", 0, ""),
    row(ResumeFails, "sessions deliver {ref} --message please-look --json", 0, ""),
    row(Malformed, "sessions deliver github:octo/repo#2 --message please-look", 0, ""),
    row(Hung, "sessions deliver {ref} --message please-look", 1, "did not answer"),
    row(Drifted, "sessions pause {ref}", 0, ""),
    row(Drifted, "sessions resume {ref} --json", 0, ""),
    row(NoTmux, "sessions pause #1", 0, "Paused"),
    row(NoTmux, "sessions resume {ref} --json", 0, "\"changed\""),
    row(Drifted, "sessions stop {ref}", 0, ""),
    row(Drifted, "sessions stop {ref} --json", 0, ""),
    row(Drifted, "sessions close {ref}", 0, ""),
    row(Drifted, "sessions reset {ref} --dry-run", 0, ""),
    row(Drifted, "sessions reset {ref} --json", 0, ""),
    row(Drifted, "sessions cleanup {ref}", 0, ""),
    row(Drifted, "sessions link-pr {ref} --pull-request github:octo/repo#99", 0, ""),
    row(Drifted, "sessions forget {ref}", 0, "Forgot"),
    row(Drifted, "sessions forget {ref} --json", 0, "\"record_deleted\": true"),
    row(Drifted, "sessions forget github:octo/repo#404", 1, "no session is registered"),
    // uninstall: what a start wrote into the harnesses' settings
    row(Drifted, "uninstall --harness-settings --dry-run", 0, "nothing to take out"),
    row(Drifted, "uninstall --harness-settings --json", 0, "\"format_version\""),
    row(Drifted, "uninstall", 1, "--harness-settings"),
    // standing sessions
    row(Drifted, "standing create ops --cwd {cwd}", 0, ""),
    row(Drifted, "standing create ops --cwd {cwd} --json", 0, ""),
    row(Malformed, "standing create ops --cwd {cwd}", 1, "unterminated double-quoted"),
    row(Drifted, "standing list --json", 0, ""),
    row(Drifted, "standing say ops --message hello", 1, "no session is registered"),
    row(Drifted, "standing stop ops", 1, "no standing session is named ops"),
    row(Drifted, "standing start ops", 1, "no standing session is named ops"),
    row(Drifted, "standing restart ops", 1, "no registered session matches target"),
    // long-running services: their refusals and help
    row(Drifted, "watch --help", 0, "Usage"),
    row(Drifted, "watch --metrics-listen not-an-address", 1, "--metrics-listen"),
    row(Drifted, "web-terminal", 1, "not enabled"),
    row(Drifted, "web-terminal --help", 0, "Usage"),
    row(Drifted, "standing --help", 0, "Usage"),
    row(Drifted, "sessions deliver --help", 0, "Usage"),
    // the launcher
    row(Drifted, "exec --config {config} --work-item {ref} -- /bin/true", 0, ""),
    row(Drifted, "exec --config {config} --work-item {ref} -- /nonexistent/harness", 1, "cannot start the harness"),
    row(Malformed, "exec --config {config} --work-item {ref} -- /bin/true", 1, "unterminated double-quoted"),
    row(EnvIsDirectory, "exec --config {config} --standing ops -- /bin/true", 1, "cannot read env file"),
    // harnesses the-loop does not manage, and import
    row(ByHand, "plan", 0, "Harnesses the-loop does not manage"),
    row(ByHand, "plan --json", 0, "\"unmanaged_harnesses\""),
    row(ByHand, "plan --detailed-exitcode --include-unmanaged", 2, "Counted as drift"),
    row(ByHand, "import {pane} github:octo/repo#5 --dry-run", 0, "Would import"),
    row(ByHand, "import {pane} github:octo/repo#5 --json", 0, "\"harness_session_id\""),
    row(ByHand, "import {pane} github:octo/repo#5", 0, "Imported"),
    row(ByHand, "import bare github:octo/repo#5", 1, "cannot tell which conversation"),
    row(ByHand, "import %999 github:octo/repo#5 --json", 1, "no pane"),
    row(ByHand, "import {pane} {ref}", 1, "has a session already"),
    row(Imported, "plan --json", 0, "\"pane_process\""),
    row(Imported, "apply --auto-approve --json", 0, "\"restarted\""),
    // Claude Code's background host (docs/hosts.md)
    row(BackgroundHost, "plan", 0, "Claude Code background host"),
    row(BackgroundHost, "plan --json --detailed-exitcode", 2, "\"hosts\""),
    row(BackgroundHost, "status --json", 0, "\"layer_stale\""),
    row(BackgroundHost, "import 0123abcd github:octo/repo#9 --host claude-background", 1, "already managed"),
    row(BackgroundHost, "apply --auto-approve --json", 1, "\"refused\""),
    row(BackgroundHost, "sessions start {ref} --cwd {cwd} --host claude-background", 1, "does not hold the env file's values"),
    row(NoTmux, "import %1 github:octo/repo#5", 1, "tmux is not installed"),
    row(Drifted, "import --help", 0, "--dry-run"),
    // completions, help, version
    row(Drifted, "completions bash", 0, "the-loop"),
    row(Drifted, "completions zsh", 0, "the-loop"),
    row(Drifted, "completions fish", 0, "the-loop"),
    row(Drifted, "man", 0, ".TH the-loop"),
    row(Drifted, "man --out-dir {cwd}", 0, "Wrote manual pages"),
    row(Drifted, "man --help", 0, "--out-dir"),
    row(Drifted, "--help", 0, "Usage"),
    row(Drifted, "--version", 0, "the-loop"),
    row(Drifted, "version", 0, "commit"),
    row(Drifted, "version --json", 0, "\"build_date\""),
    // history
    row(Rolled, "history", 0, "SLACK_BOT_TOKEN"),
    row(Rolled, "history --json", 0, "\"SLACK_BOT_TOKEN\""),
    row(Drifted, "history", 0, "No rolls recorded"),
    row(Malformed, "history --json", 0, "\"rolls\""),
    row(Drifted, "history --help", 0, "--json"),
    row(Drifted, "plan --help", 0, "--detailed-exitcode"),
    row(Drifted, "apply --help", 0, "--scrub-tmux-env"),
    row(Drifted, "status --help", 0, "Usage"),
    row(Drifted, "sessions --help", 0, "restart"),
    row(Drifted, "sessions start --help", 0, "--cwd"),
    row(Drifted, "sessions list --help", 0, "Usage"),
    row(Drifted, "sessions restart --help", 0, "--all"),
    row(Drifted, "completions --help", 0, "Usage"),
    row(Drifted, "exec --help", 0, "Usage"),
    // fingerprint: a value on stdin, in both modes
    row(Drifted, "fingerprint SLACK_BOT_TOKEN <TOKEN", 0, "this one"),
    row(Drifted, "fingerprint SHORT_SECRET --json <SHORT", 0, "\"withheld\""),
    row(Drifted, "fingerprint SLACK_BOT_TOKEN", 0, "another one"),
    row(Drifted, "fingerprint bad-name <TOKEN", 1, "[A-Za-z_]"),
    row(Drifted, "fingerprint --help", 0, "stdin"),
    row(Malformed, "fingerprint SLACK_BOT_TOKEN <TOKEN", 1, "unterminated double-quoted"),
    row(Keyed, "fingerprint SHORT_SECRET <SHORT", 0, "HMAC-SHA-256 under key"),
    row(Keyed, "fingerprint SLACK_BOT_TOKEN --json <TOKEN", 0, "\"keyed\""),
    row(Keyed, "plan", 0, "Fingerprints changed"),
    row(Keyed, "plan --json", 0, "\"key_id\""),
    row(Keyed, "apply --auto-approve --json", 0, "\"restarted\""),
    row(Keyed, "apply --plan {plan} --auto-approve", 0, "restarted (verified)"),
    row(Keyed, "status --json", 0, "\"stale_sessions\""),
    row(Drifted, "no-such-command", 1, "unrecognized subcommand"),
];

// ---- worlds --------------------------------------------------------------

const REF: &str = "github:octo/repo#1";

struct Built {
    hung: Option<HungSocket>,
    w: World,
    /// Extra environment for the-loop (besides the caller's canaries).
    env: Vec<(String, String)>,
    /// Files the scenario planted with canaries in them, not swept.
    planted: Vec<PathBuf>,
    /// Whether tmux can be asked about this world afterwards.
    tmux_reachable: bool,
    /// The pane of a harness a person started (`ByHand`, `Imported`).
    pane: String,
    /// A background worker's stand-in (`BackgroundHost`).
    _worker: Option<crate::hosts::Worker>,
}

fn current_env_file() -> String {
    format!(
        "# current values\n\
         SLACK_BOT_TOKEN={FILE_TOKEN}\n\
         SHORT_SECRET='{FILE_SHORT}'\n\
         QUOTE_SECRET=\"it's \\\"q\\\" sw33p-7a9\"\n\
         DOLLAR_SECRET={FILE_DOLLAR}\n\
         export MULTI_SECRET=\"{FILE_MULTI}\"\n\
         DELIVERED_TOKEN={FILE_DELIVERED}\n"
    )
}

fn sessions_on_old_server(w: &World, n: usize) -> Vec<LegacySession> {
    w.start_server_holding(&[
        ("SLACK_BOT_TOKEN", OLD_TOKEN),
        ("SHORT_SECRET", OLD_SHORT),
        ("MULTI_SECRET", OLD_MULTI),
        ("EXTRA_CRED", OLD_EXTRA),
        ("DELIVERED_TOKEN", OLD_DELIVERED),
    ]);
    let sessions: Vec<LegacySession> = (1..=n)
        .map(|i| {
            w.legacy_session(
                &format!("github:octo/repo#{i}"),
                &format!("github-octo-repo-{i}"),
            )
        })
        .collect();
    w.source_tmux(&format!(
        "set-environment -g SLACK_BOT_TOKEN {}\nset-environment -t ={} SHORT_SECRET {}\n",
        tmux_quote(GLOBAL_TOKEN),
        sessions[0].name,
        tmux_quote(SESSION_SHORT)
    ));
    sessions
}

fn build(scenario: Scenario) -> Built {
    let w = World::new();
    let keyed = if scenario == Keyed {
        "  fingerprint: keyed\n"
    } else {
        ""
    };
    w.write_config(&format!(
        "  deliver: [DELIVERED_TOKEN]\n  credentials: [EXTRA_CRED]\n{keyed}"
    ));
    w.install_tmux_wrapper();
    let mut built = Built {
        hung: None,
        env: Vec::new(),
        planted: Vec::new(),
        tmux_reachable: true,
        pane: String::new(),
        _worker: None,
        w,
    };
    let w = &built.w;
    match scenario {
        Fresh => w.write_env(&current_env_file()),
        ByHand | Imported => {
            w.write_env(&current_env_file());
            sessions_on_old_server(w, 2);
            built.pane = by_hand(w, "mywork", "--session-id 0000-by-hand");
            by_hand(w, "bare", "");
            if scenario == Imported {
                let out = w.the_loop(&["import", &built.pane, "github:octo/repo#5"]);
                assert_eq!(code(&out), Some(0), "{}", explain(&out));
            }
        }
        Rolled => {
            w.write_env(&current_env_file());
            sessions_on_old_server(w, 2);
            let out = w.the_loop(&["apply", "--auto-approve"]);
            assert_eq!(code(&out), Some(0), "{}", explain(&out));
            w.write_env(&format!(
                "{}SLACK_BOT_TOKEN={OLD_TOKEN}\nADDED_SECRET={OLD_DELIVERED}\n",
                current_env_file().replace(&format!("SLACK_BOT_TOKEN={FILE_TOKEN}\n"), "")
            ));
            let out = w.the_loop(&["sessions", "restart", "--all"]);
            assert_eq!(code(&out), Some(0), "{}", explain(&out));
        }
        BackgroundHost => {
            w.write_env(&current_env_file());
            sessions_on_old_server(w, 2);
            let (worker, _) = crate::hosts::plant(
                w,
                &[
                    ("SLACK_BOT_TOKEN", OLD_TOKEN),
                    ("DELIVERED_TOKEN", OLD_DELIVERED),
                ],
                true,
            );
            let out = w.the_loop(&[
                "import",
                crate::hosts::ID,
                "github:octo/repo#8",
                "--host",
                "claude-background",
            ]);
            assert_eq!(code(&out), Some(0), "{}", explain(&out));
            built._worker = Some(worker);
        }
        Drifted | Keyed | NoTmux | DeadPane | Mismatch | ResumeFails | CorruptRecords
        | Malformed | EnvIsDirectory | EnvDangling => {
            w.write_env(&current_env_file());
            let sessions = sessions_on_old_server(w, 2);
            match scenario {
                Malformed => w.write_env(&format!(
                    "A=1\nSLACK_BOT_TOKEN=\"{UNTERMINATED}\nNEXT_SECRET={REST_OF_FILE}\n"
                )),
                EnvIsDirectory => {
                    std::fs::remove_file(&w.env_path).unwrap();
                    std::fs::create_dir(&w.env_path).unwrap();
                }
                EnvDangling => {
                    std::fs::remove_file(&w.env_path).unwrap();
                    std::os::unix::fs::symlink(w.root().join("gone.env"), &w.env_path).unwrap();
                }
                NoTmux => {
                    let bin = w.root().join("bin-without-tmux");
                    std::fs::create_dir_all(&bin).unwrap();
                    std::fs::copy(w.bin_dir.join("claude"), bin.join("claude")).unwrap();
                    built
                        .env
                        .push(("PATH".into(), bin.to_string_lossy().into_owned()));
                }
                DeadPane => {
                    let pid = w.pane(&sessions[1].name).unwrap().pid;
                    nix::sys::signal::kill(
                        nix::unistd::Pid::from_raw(pid),
                        nix::sys::signal::Signal::SIGKILL,
                    )
                    .unwrap();
                    wait_for(|| w.pane(&sessions[1].name).unwrap().dead, "the pane died");
                }
                Mismatch => std::fs::write(
                    w.transcript(&sessions[0]),
                    "{\"tamper\":\"SLACK_BOT_TOKEN\"}\n",
                )
                .unwrap(),
                ResumeFails => {
                    std::fs::write(w.transcript(&sessions[0]), "{\"test\":\"fail-resume\"}\n")
                        .unwrap()
                }
                CorruptRecords => {
                    let local = w.state.join("local");
                    let truncated = local.join("github-octo-repo-77.json");
                    std::fs::write(
                        &truncated,
                        format!("{{\"workItem\": {{\"ref\": \"{CORRUPT_TRUNCATED}"),
                    )
                    .unwrap();
                    let wrong = local.join("github-octo-repo-78.json");
                    std::fs::write(
                        &wrong,
                        format!("{{\"workItem\": \"{CORRUPT_WRONG_TYPE}\", \"harness\": 7}}"),
                    )
                    .unwrap();
                    built.planted.extend([truncated, wrong]);
                }
                _ => {}
            }
        }
        NoServer => {
            w.write_env(&current_env_file());
            for i in 1..=2 {
                let s = LegacySession {
                    reference: format!("github:octo/repo#{i}"),
                    slug: format!("github-octo-repo-{i}"),
                    name: format!("loop-github-octo-repo-{i}"),
                    session_id: format!("0000-github-octo-repo-{i}"),
                    cwd: w.work.join(format!("github-octo-repo-{i}")),
                };
                std::fs::create_dir_all(&s.cwd).unwrap();
                w.write_record(&s, "active");
                // A conversation to resume: `sessions start --all` brings it back.
                let transcript = w.transcript(&s);
                std::fs::create_dir_all(transcript.parent().unwrap()).unwrap();
                std::fs::write(&transcript, "{\"type\":\"start\"}\n").unwrap();
            }
        }
        Hung => {
            w.write_env(&current_env_file());
            let s = LegacySession {
                reference: REF.into(),
                slug: "github-octo-repo-1".into(),
                name: "loop-github-octo-repo-1".into(),
                session_id: "0000-github-octo-repo-1".into(),
                cwd: w.work.join("github-octo-repo-1"),
            };
            std::fs::create_dir_all(&s.cwd).unwrap();
            w.write_record(&s, "active");
            built.hung = Some(HungSocket::bind(&w.tmux_tmpdir));
            built
                .env
                .push(("THE_LOOP_TMUX_TIMEOUT_MS".into(), "300".into()));
            built.tmux_reachable = false;
        }
    }
    built
}

/// A session `name` a person made, where they run the stand-in as `claude
/// ARGS` from their shell; its pane id, once the stand-in is ready.
fn by_hand(w: &World, name: &str, args: &str) -> String {
    let cwd = w.work.join(name);
    std::fs::create_dir_all(&cwd).unwrap();
    w.tmux_ok(&["new-session", "-d", "-s", name, "-c", cwd.to_str().unwrap()]);
    let typed = format!("export PATH={}:$PATH && claude {args}", w.bin_dir.display());
    w.tmux_ok(&["send-keys", "-t", &format!("={name}:"), "-l", &typed]);
    w.tmux_ok(&["send-keys", "-t", &format!("={name}:"), "Enter"]);
    let pane = w.pane(name).unwrap();
    wait_for(
        || {
            descendants(pane.pid)
                .iter()
                .any(|pid| cmdline(*pid).iter().any(|a| a.ends_with("/claude")))
        },
        "the stand-in runs beneath the person's shell",
    );
    let project = w.home.join(".claude/projects").join(
        cwd.canonicalize()
            .unwrap()
            .to_string_lossy()
            .replace(|c: char| !c.is_ascii_alphanumeric(), "-"),
    );
    wait_for(
        || {
            std::fs::read_dir(&project).is_ok_and(|files| {
                files.flatten().any(|f| {
                    std::fs::read_to_string(f.path()).is_ok_and(|t| t.contains("\"ready\""))
                })
            })
        },
        "the stand-in is ready",
    );
    pane.id
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
