//! Issue 43, fault 1 on a real tmux with the stand-in harness: a delivery
//! notes its id in the record before anything reaches the harness, so a
//! state root that cannot take the note refuses the delivery (exit 1,
//! nothing pasted or spawned) instead of pasting and forgetting the id; once
//! there is room again, a redelivery reaches the harness exactly once.

use crate::start_faults::TinyFs;
use crate::support::delivery::{deliver, deliveries, pasted};
use crate::support::*;
use std::process::Output;
use std::time::Duration;

/// The refusal names the record file and the OS error, as a failed
/// delivery: the id is not recorded.
fn assert_refused_for_space(w: &World, out: &Output, slug: &str) {
    assert_eq!(code(out), Some(1), "{}", explain(out));
    let report = json(out);
    assert_eq!(report["outcome"], "failed", "{report}");
    let reason = report["reason"].as_str().unwrap();
    let record = w.record_path(slug);
    assert!(
        reason.contains(&record.display().to_string()),
        "names the record file: {reason}"
    );
    assert!(
        reason.contains("no space is left"),
        "names the error: {reason}"
    );
    assert!(reason.contains("nothing was pasted"), "{reason}");
    assert!(deliveries(w, slug).is_empty(), "the id is not recorded");
}

#[test]
fn a_delivery_on_a_full_state_root_is_refused_and_delivered_once_when_space_returns() {
    let w = World::new();
    let Some(fs) = TinyFs::mount(&w.state) else {
        return;
    };
    w.write_env("UNRELATED=1\n");
    let s = w.started_session("github:octo/deliver43#1", "github-octo-deliver43-1");
    fs.fill();

    // The webhook redelivers the same event while the disk is full: each
    // try is refused, and nothing reaches the harness.
    for _ in 0..3 {
        let out = deliver(&w, &s.reference, "look at the failing check", "full-1");
        assert_refused_for_space(&w, &out, &s.slug);
    }
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        w.inputs(&s).is_empty(),
        "nothing pasted: {:?}",
        w.inputs(&s)
    );

    fs.free();
    let out = deliver(&w, &s.reference, "look at the failing check", "full-1");
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    assert_eq!(json(&out)["outcome"], "delivered");
    let again = deliver(&w, &s.reference, "look at the failing check", "full-1");
    assert_eq!(code(&again), Some(0), "{}", explain(&again));
    assert_eq!(json(&again)["outcome"], "duplicate");
    wait_for(|| !w.inputs(&s).is_empty(), "the harness read the delivery");
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(
        w.inputs(&s),
        [pasted("look at the failing check")],
        "exactly once"
    );
    assert_eq!(deliveries(&w, &s.slug), ["full-1"]);
    let record = w.record(&s.slug).unwrap();
    assert!(record.get("pendingDelivery").is_none(), "{record}");
    assert!(record.get("pendingSubmit").is_none(), "{record}");
}

/// The respawn path: a session that is gone is not brought back with the
/// text as its first prompt while the id cannot be noted.
#[test]
fn a_delivery_to_a_gone_session_on_a_full_state_root_spawns_nothing() {
    let w = World::new();
    let Some(fs) = TinyFs::mount(&w.state) else {
        return;
    };
    w.write_env("UNRELATED=1\n");
    let s = w.started_session("github:octo/deliver43#2", "github-octo-deliver43-2");
    w.tmux_ok(&["kill-session", "-t", &format!("={}", s.name)]);
    fs.fill();

    let out = deliver(&w, &s.reference, "wake up", "gone-1");
    assert_refused_for_space(&w, &out, &s.slug);
    assert!(w.pane(&s.name).is_none(), "nothing was spawned");
    assert!(w.boot_prompts(&s).is_empty());

    fs.free();
    let out = deliver(&w, &s.reference, "wake up", "gone-1");
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    assert_eq!(json(&out)["route"], "respawned");
    let again = deliver(&w, &s.reference, "wake up", "gone-1");
    assert_eq!(json(&again)["outcome"], "duplicate", "{}", explain(&again));
    assert_eq!(w.boot_prompts(&s), ["wake up"], "exactly once");
    assert!(w.inputs(&s).is_empty(), "and never pasted as well");
    assert_eq!(deliveries(&w, &s.slug), ["gone-1"]);
}

/// The note alone never makes a retry skip the text: a paste tmux refused
/// leaves the id noted (`pendingDelivery`) and unrecorded, and the retry
/// pastes it, once.
#[test]
fn a_noted_id_whose_paste_was_refused_is_pasted_on_retry() {
    let w = World::new();
    w.write_env("UNRELATED=1\n");
    let s = w.started_session("github:octo/deliver43#3", "github-octo-deliver43-3");
    // A real refusal from tmux: paste-buffer is aliased to a command that
    // does not exist.
    w.tmux_ok(&[
        "set-option",
        "-s",
        "command-alias[90]",
        "paste-buffer=no-such-command",
    ]);
    let out = deliver(&w, &s.reference, "noted, not pasted", "n-1");
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    let record = w.record(&s.slug).unwrap();
    assert_eq!(record["pendingDelivery"], "n-1", "{record}");
    assert!(record.get("pendingSubmit").is_none(), "{record}");
    assert!(deliveries(&w, &s.slug).is_empty());

    w.tmux_ok(&["set-option", "-su", "command-alias[90]"]);
    let retry = deliver(&w, &s.reference, "noted, not pasted", "n-1");
    assert_eq!(code(&retry), Some(0), "{}", explain(&retry));
    wait_for(|| !w.inputs(&s).is_empty(), "the harness read the delivery");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(w.inputs(&s), [pasted("noted, not pasted")], "once");
    assert_eq!(deliveries(&w, &s.slug), ["n-1"]);
    assert!(w.record(&s.slug).unwrap().get("pendingDelivery").is_none());
}
