//! The session lifecycle on a real tmux with the stand-in harness: delivery
//! (paste, respawn, occupancy rules), pause, close, reset, cleanup, attach,
//! pull-request links and standing sessions.

use crate::support::delivery::{deliver, deliveries, pasted, ESC_CLOSE, ESC_OPEN};
use crate::support::*;
use std::process::Output;
use std::time::{Duration, Instant};

mod delivery;
mod links_and_attach;
mod occupancy;
mod pause_stop_close;
mod reset_and_cleanup;
mod respawn;
mod standing_sessions;

/// A world whose env file exists (the launcher and `plan` read it).
fn world() -> World {
    let w = World::new();
    w.write_env("EXAMPLE_SETTING=not-secret\n");
    w
}

/// Rewrites the config: the world's state root and env file, and `routing`
/// as given (YAML lines, indented under `routing:`).
fn write_routing(w: &World, routing: &str) {
    w.write_raw_config(&format!(
        "state:\n  root: {}\nenv:\n  file: .env\nrouting:\n{routing}",
        w.state.display()
    ));
}

/// Rewrites the config with checkouts under `root` (what cleanup removes),
/// a short resume probe and kill grace, and `routing` lines before them.
fn write_workspace(w: &World, root: &std::path::Path, routing: &str) {
    write_routing(
        w,
        &format!(
            "{routing}  workspace:\n    root: {}\n  tmux:\n    resumeProbeSeconds: 0.5\n    harnessKillGraceSeconds: 3\n",
            root.display()
        ),
    );
}

/// A world whose checkouts live under its work directory (see
/// [`write_workspace`]).
fn workspace_world(routing: &str) -> World {
    let w = world();
    write_workspace(&w, &w.work, routing);
    w
}

/// `sessions link-pr`: links `pr` to the work item of `issue`.
fn link_pr(w: &World, issue: &LegacySession, pr: &LegacySession) -> Output {
    w.the_loop(&[
        "sessions",
        "link-pr",
        &issue.reference,
        "--pull-request",
        &pr.reference,
    ])
}

/// A real refusal from tmux: `command` becomes an alias, in alias slot
/// `slot`, of a command that does not exist.
fn break_command(w: &World, slot: usize, command: &str) {
    w.tmux_ok(&[
        "set-option",
        "-s",
        &format!("command-alias[{slot}]"),
        &format!("{command}=no-such-command"),
    ]);
}

fn wait_for_inputs(w: &World, s: &LegacySession, n: usize) -> Vec<String> {
    wait_for(|| w.inputs(s).len() >= n, "the harness read the delivery");
    w.inputs(s)
}

/// SIGTERMs the session's harness (`pid`) as a crash would, and waits for its
/// pane to be retained dead.
fn end_harness_leaving_a_dead_pane(w: &World, s: &LegacySession, pid: i32) {
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    wait_for(
        || w.pane(&s.name).is_some_and(|p| p.dead),
        "the pane is retained dead",
    );
}
