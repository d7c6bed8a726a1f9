//! Safe points and readiness on a real tmux with the stand-in harness, whose
//! hooks report its activity: a running turn is never ended without
//! `--now`, an attached session is left alone without `--include-attached`,
//! the drain's deadline defers, and each respawn says whether the harness
//! itself reported resuming the recorded conversation.

mod conversations;
mod running_turns;

use crate::support::*;
use std::process::{Child, Stdio};

/// A world whose sessions hold `EXTRA` from the env file, so rewriting it
/// is drift.
fn world() -> World {
    let w = World::new();
    w.write_config("  deliver: [EXTRA]\n");
    w.write_env("EXTRA=one\n");
    w
}

/// A session started by the-loop (so its harness has the hooks), idle at
/// its prompt, then made stale by a rotation.
fn stale_session(w: &World, n: u32) -> LegacySession {
    let s = w.started_session(
        &format!("github:octo/repo#{n}"),
        &format!("github-octo-repo-{n}"),
    );
    wait_plan(w, &s, "activity", "idle");
    s
}

fn rotate(w: &World) {
    w.write_env("EXTRA=two\n");
}

/// One session holding a value the env file has since rotated, its
/// harness in a turn, as the plan reads it.
fn drifted_in_a_turn() -> (World, LegacySession) {
    let w = world();
    let s = stale_session(&w, 1);
    rotate(&w);
    type_line(&w, &s, "/busy");
    wait_plan(&w, &s, "activity", "busy");
    (w, s)
}

fn plan_row(w: &World, s: &LegacySession) -> serde_json::Value {
    let out = w.the_loop(&["plan", "--json"]);
    session_in(&json(&out), &s.reference).clone()
}

fn wait_plan(w: &World, s: &LegacySession, field: &str, want: &str) {
    wait_for(
        || plan_row(w, s)[field] == want,
        &format!("{} {field} {want}", s.reference),
    );
}

fn type_line(w: &World, s: &LegacySession, text: &str) {
    w.tmux_ok(&["send-keys", "-t", &format!("={}:", s.name), "-l", text]);
    w.tmux_ok(&["send-keys", "-t", &format!("={}:", s.name), "Enter"]);
}

/// Whether the harness was sent a signal (the stand-in records each).
fn signalled(w: &World, s: &LegacySession) -> bool {
    w.transcript_text(s).contains("\"type\":\"signal\"")
}

/// Starts `apply --auto-approve --json --drain-timeout DRAIN` in the
/// background and waits until the roll has begun.
fn start_roll(w: &World, drain: &str) -> Child {
    let apply = spawn(
        w,
        &[
            "apply",
            "--auto-approve",
            "--json",
            "--drain-timeout",
            drain,
        ],
    );
    wait_for(
        || w.events_named("apply.started").len() == 1,
        "the roll started",
    );
    apply
}

/// Gives a roll that is holding `s` time to go wrong, then checks that it
/// has not signalled the harness.
fn holds_without_a_signal(w: &World, s: &LegacySession) {
    std::thread::sleep(std::time::Duration::from_millis(1500));
    assert!(!signalled(w, s), "a running turn was interrupted");
}

fn spawn(w: &World, args: &[&str]) -> Child {
    w.the_loop_command(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn the-loop")
}

#[test]
fn an_attached_session_is_left_alone_and_rolled_with_include_attached() {
    let w = world();
    let s = stale_session(&w, 1);
    rotate(&w);
    let _client = w.the_loop_in_pty(&["sessions", "attach", &s.reference]);
    wait_for(|| !w.clients().is_empty(), "a real client attached");
    let row = plan_row(&w, &s);
    assert_eq!(row["attached"], 1, "{row}");
    assert_eq!(row["apply_will"], "leave_attached", "{row}");
    let old = w.pane(&s.name).unwrap();

    let out = w.the_loop(&["apply", "--auto-approve", "--json"]);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    let report = json(&out);
    let row = session_in(&report, &s.reference);
    assert_eq!(row["outcome"], "deferred", "{report}");
    assert!(
        row["detail"].as_str().unwrap().contains("attached"),
        "{report}"
    );
    let out = w.the_loop(&["sessions", "restart", &s.reference, "--json"]);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    assert_eq!(session_in(&json(&out), &s.reference)["outcome"], "deferred");
    assert!(!signalled(&w, &s));
    assert_eq!(w.pane(&s.name).unwrap().pid, old.pid);

    let out = w.the_loop(&[
        "sessions",
        "restart",
        &s.reference,
        "--json",
        "--include-attached",
    ]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let report = json(&out);
    let row = session_in(&report, &s.reference);
    assert_eq!(row["outcome"], "restarted", "{report}");
    assert_eq!(row["conversation"], "confirmed", "{report}");
    assert_ne!(w.pane(&s.name).unwrap().pid, old.pid);
}

/// `/exit` while a roll holds the session: the person closed that
/// conversation, so it is dropped (`skipped`), never signalled or resumed,
/// although its harness takes a while to go after `SessionEnd`.
#[test]
fn a_session_the_person_ends_while_held_is_skipped_not_respawned() {
    let (w, s) = drifted_in_a_turn();
    let old = w.pane(&s.name).unwrap();
    let apply = start_roll(&w, "60s");
    type_line(&w, &s, "/exit");
    let out = apply.wait_with_output().unwrap();
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let report = json(&out);
    let row = session_in(&report, &s.reference);
    assert_eq!(row["outcome"], "skipped", "{report}");
    assert_eq!(
        row["detail"], "ended by the user; not respawned",
        "{report}"
    );
    assert!(row["conversation"].is_null(), "{report}");
    assert!(!signalled(&w, &s), "the person's exit was overruled");
    // Nothing was respawned in its pane: it is gone, or still the old process.
    if let Some(now) = w.pane(&s.name) {
        assert_eq!(now.pid, old.pid);
    }
}

/// The plan's rule: a harness the person ended is left alone, whatever the
/// flags, and `plan` says so.
#[test]
fn an_ended_session_is_planned_left_alone_even_with_now() {
    let w = world();
    let s = stale_session(&w, 1);
    rotate(&w);
    type_line(&w, &s, "/exit");
    wait_plan(&w, &s, "activity", "ended");
    assert_eq!(plan_row(&w, &s)["apply_will"], "leave_ended");
    let out = w.the_loop(&["apply", "--auto-approve", "--json", "--now"]);
    let report = json(&out);
    let row = session_in(&report, &s.reference);
    assert_eq!(row["outcome"], "skipped", "{report}");
    assert!(!signalled(&w, &s), "the person's exit was overruled");
}
