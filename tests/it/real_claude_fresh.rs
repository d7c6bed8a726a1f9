//! A conversation that never began, on the real Claude Code (the pinned
//! CLI, `.ci/run`), offline: `sessions start` without `--prompt`, as the
//! README shows, pre-assigns the conversation id, but Claude Code writes
//! the transcript only with the first prompt. Nobody types into it; the
//! token rotates. There is nothing to lose, so the roll relaunches it on
//! the same id and verifies it, rather than leave the retired value in it
//! for good. A conversation whose transcript went missing after it began
//! is still left alone.

use crate::real_claude::{real_claude, screen, wait_long};
use crate::support::real_setup::{claude_transcript, RealSession};
use crate::support::*;
use std::time::Duration;
use the_loop::activity::store;

const OLD: &str = "tok-OLD-fresh-canary";
const NEW: &str = "tok-NEW-fresh-canary";
const NEWER: &str = "tok-NEWER-fresh-canary";

#[test]
fn a_session_nobody_typed_into_is_relaunched_on_its_id_and_a_begun_one_without_transcript_is_not() {
    let _alone = alone();
    let Some(claude) = real_claude() else {
        return;
    };
    let RealSession {
        w,
        config_dir,
        cwd,
        name,
        id,
    } = RealSession::start(&claude, OLD, &[]);
    let first = w.pane(&name).unwrap();
    wait_long(|| screen(&w, &name).contains('❯'), "the prompt");
    wait_long(
        || store::read_one(&w.state, first.pid).conversation.as_deref() == Some(id.as_str()),
        "SessionStart from the real CLI",
    );
    let transcript = claude_transcript(&config_dir, &cwd, &id);
    assert!(!transcript.exists(), "no transcript before a prompt");
    assert_eq!(
        w.record("github-octo-repo-1").unwrap()["conversationBegun"],
        false
    );

    // Rotated; nobody typed: the plan rolls it, and apply relaunches it on
    // the same id and verifies it.
    w.write_env(&format!("EXTRA_TOKEN={NEW}\n"));
    let plan = json(&w.the_loop(&["plan", "--json"]));
    let row = session_in(&plan, "github:octo/repo#1");
    assert_eq!(row["action"], "respawn", "{plan:#}");
    assert!(row["left_alone"].is_null(), "{plan:#}");
    let out = w.the_loop(&["apply", "--auto-approve", "--json"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let report = json(&out);
    let row = session_in(&report, "github:octo/repo#1");
    assert_eq!(row["outcome"], "restarted", "{report:#}");
    assert_eq!(row["conversation"], "confirmed", "{report:#}");
    assert_eq!(
        row["detail"], "no conversation yet: relaunched on the same id",
        "{report:#}"
    );
    let now = w.pane(&name).unwrap();
    assert_ne!(now.pid, first.pid);
    assert_eq!(
        environ(now.pid).get("EXTRA_TOKEN").map(String::as_str),
        Some(NEW)
    );
    let argv = cmdline(now.pid);
    assert!(
        argv.windows(2)
            .any(|a| a[0] == "--session-id" && a[1] == id),
        "{argv:?}"
    );
    let plan = w.the_loop(&["plan", "--detailed-exitcode"]);
    assert_eq!(code(&plan), Some(0), "{}", explain(&plan));

    // A person types the first prompt: the conversation begins. Its
    // transcript is moved away: then it is left alone, never relaunched.
    wait_long(|| screen(&w, &name).contains('❯'), "the prompt again");
    let target = format!("={name}:");
    w.tmux_ok(&["send-keys", "-t", &target, "-l", "remember the word zebra"]);
    std::thread::sleep(Duration::from_millis(500));
    w.tmux_ok(&["send-keys", "-t", &target, "Enter"]);
    wait_long(
        || transcript.is_file(),
        "the transcript of the first prompt",
    );
    wait_long(
        || store::read_one(&w.state, now.pid).had_a_turn,
        "the hooks reported the prompt",
    );
    // The offline turn fails; until it has ended the CLI may write the
    // transcript again (a rename before that raced it on 2.1.332).
    wait_long(
        || !store::read_one(&w.state, now.pid).activity.in_turn(),
        "the failed turn ended",
    );
    std::thread::sleep(Duration::from_millis(500));
    let kept = w.root().join("kept.jsonl");
    std::fs::rename(&transcript, &kept).unwrap();
    w.write_env(&format!("EXTRA_TOKEN={NEWER}\n"));
    let out = w.the_loop(&["apply", "--auto-approve", "--json"]);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    let report = json(&out);
    let row = session_in(&report, "github:octo/repo#1");
    assert_ne!(row["outcome"], "restarted", "{report:#}");
    assert!(
        row["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("no transcript"),
        "{report:#}"
    );
    assert_eq!(w.pane(&name).unwrap().pid, now.pid, "left alone");
    for (path, bytes) in w.state_files() {
        assert_no_canary(&bytes, &[OLD, NEW, NEWER], &path.display().to_string());
    }
}
