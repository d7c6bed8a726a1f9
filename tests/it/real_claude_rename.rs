//! Issue 43's acceptance on the real Claude Code (the pinned CLI, offline,
//! on a private tmux): a person renames a managed session; then `deliver`
//! pastes into the renamed session's harness, `plan --detailed-exitcode`
//! after a rotation exits 2 with that session's drift where it lives,
//! `apply` rolls it there (resuming the conversation, confirmed by the new
//! process itself), and `sessions stop` ends it. At no point do two live
//! processes hold the conversation (read from `/proc`).
//!
//! Skips loudly without the CLI (see `real_claude.rs`).

use crate::real_claude::{real_claude, screen, wait_long};
use crate::support::real_setup::{claude_transcript, RealSession};
use crate::support::*;
use the_loop::activity::store;

const OLD: &str = "tok-OLD-canary-r3nm";
const NEW: &str = "tok-NEW-canary-r3nm";

#[test]
fn a_renamed_real_claude_session_is_delivered_into_rolled_and_stopped_where_it_lives() {
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
    let first = w.pane(&name).expect("a pane");
    wait_long(|| screen(&w, &name).contains('❯'), "the prompt");
    w.tmux_ok(&["rename-session", "-t", &format!("={name}"), "mywork"]);

    // The webhook's delivery reaches the renamed session's harness.
    let out = w.the_loop(&[
        "sessions",
        "deliver",
        "github:octo/repo#1",
        "--message",
        "remember the word zebra",
        "--delivery-id",
        "d-1",
        "--json",
    ]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let report = json(&out);
    assert_eq!(report["route"], "pasted", "{report:#}");
    assert_eq!(report["tmux_target"], "mywork", "{report:#}");
    let transcript = claude_transcript(&config_dir, &cwd, &id);
    wait_long(
        || std::fs::read_to_string(&transcript).is_ok_and(|t| t.contains("zebra")),
        "the transcript holds the delivered prompt",
    );
    assert_eq!(holding_ours(&id), vec![first.pid], "one harness");
    assert!(!w.tmux_sessions().contains(&name), "nothing started");

    // A rotation is drift where it lives, and is rolled there.
    w.write_env(&format!("EXTRA_TOKEN={NEW}\n"));
    let plan = w.the_loop(&["plan", "--json", "--detailed-exitcode"]);
    assert_eq!(code(&plan), Some(2), "{}", explain(&plan));
    let row = session_in(&json(&plan), "github:octo/repo#1").clone();
    assert_eq!(row["tmux_target"], "mywork", "{row:#}");
    assert_eq!(row["action"], "respawn", "{row:#}");
    let out = w.the_loop(&["apply", "--auto-approve", "--json"]);
    assert_no_canary(&out.stdout, &[OLD, NEW], "apply stdout");
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let row = session_in(&json(&out), "github:octo/repo#1").clone();
    assert_eq!(row["outcome"], "restarted", "{row:#}");
    let now = w.pane("mywork").expect("the renamed session");
    assert_eq!(now.id, first.id, "rolled in place");
    assert_ne!(now.pid, first.pid);
    assert_eq!(
        environ(now.pid).get("EXTRA_TOKEN").map(String::as_str),
        Some(NEW)
    );
    wait_long(
        || store::read_one(&w.state, now.pid).confirmed_resume(&id),
        "the new process reported resuming the recorded conversation",
    );
    assert_eq!(
        holding_ours(&id),
        vec![now.pid],
        "one harness after the roll"
    );
    let plan = w.the_loop(&["plan", "--detailed-exitcode"]);
    assert_eq!(code(&plan), Some(0), "{}", explain(&plan));

    // Stopped where it lives: the conversation is held by no process.
    let out = w.the_loop(&["sessions", "stop", "github:octo/repo#1", "--json"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    assert_eq!(json(&out)["close"]["tmux_target"], "mywork");
    wait_long(
        || holding_ours(&id).is_empty(),
        "no process holds the conversation",
    );
    for (path, bytes) in w.state_files() {
        assert_no_canary(&bytes, &[OLD, NEW], &path.display().to_string());
    }
}

/// The live harnesses holding conversation `id`.
fn holding_ours(id: &str) -> Vec<i32> {
    crate::support::holders::holding(id, false)
}
