//! A background session in a turn or asking for permission is held by `apply` and `watch`.

use super::*;
use crate::support::watching::Watch;
use std::time::Instant;

#[test]
fn a_busy_background_session_is_held_until_its_turn_ends() {
    let _alone = alone();
    let Some(claude) = real_claude() else {
        return;
    };
    let host = Host::new(&claude, &["busy"]);
    let id = host.start("busy", "long tool please");
    wait_long(|| host.agent(&id)["status"] == "busy", "the tool runs");
    host.import(&id, "github:octo/repo#7");
    let old = host.pid(&id).unwrap();
    host.key(NEW);
    let plan = json(&host.w.the_loop(&["plan", "--json"]));
    let row = &plan["hosts"][0]["sessions"][0];
    assert_eq!(row["apply_will"], "wait_busy", "{plan:#}");

    // A short drain: held, left as it was, exit 1.
    let out = host
        .w
        .the_loop(&["apply", "--auto-approve", "--json", "--drain-timeout", "2s"]);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    let report = json(&out);
    let row = &report["hosts"][0]["sessions"][0];
    assert_eq!(row["outcome"], "deferred", "{report:#}");
    assert!(
        row["detail"]
            .as_str()
            .unwrap()
            .starts_with("held: a turn runs"),
        "{report:#}"
    );
    assert_eq!(host.pid(&id), Some(old), "respawned mid-turn");

    // A drain long enough: rolled once the turn ended, not before.
    let began = Instant::now();
    let out = host.w.the_loop(&[
        "apply",
        "--auto-approve",
        "--json",
        "--drain-timeout",
        "120s",
    ]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    assert!(
        began.elapsed() > Duration::from_secs(5),
        "rolled mid-turn: {:?}",
        began.elapsed()
    );
    let pid = host.pid(&id).unwrap();
    assert_ne!(pid, old);
    assert_eq!(key_of(pid).as_deref(), Some(NEW));
}

/// A tool call waiting for a person's permission (a session started in
/// the default permission mode) is held like a running turn: the host's
/// respawn would cut the prompt.
#[test]
fn a_background_session_asking_for_permission_is_held() {
    let _alone = alone();
    let Some(claude) = real_claude() else {
        return;
    };
    let host = Host::new(&claude, &["asks"]);
    let id = host.start_with("asks", &["--permission-mode", "default", "tool please"]);
    wait_long(
        || host.agent(&id)["status"] == "waiting",
        "the permission prompt",
    );
    host.import(&id, "github:octo/repo#8");
    let old = host.pid(&id).unwrap();
    host.key(NEW);
    let plan = json(&host.w.the_loop(&["plan", "--json"]));
    assert_eq!(
        plan["hosts"][0]["sessions"][0]["apply_will"], "wait_asking",
        "{plan:#}"
    );
    let text = stdout(&host.w.the_loop(&["plan"]));
    assert!(text.contains("waits: it asks a person"), "{text}");
    let out = host
        .w
        .the_loop(&["apply", "--auto-approve", "--json", "--drain-timeout", "3s"]);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    let report = json(&out);
    let row = &report["hosts"][0]["sessions"][0];
    assert_eq!(row["outcome"], "deferred", "{report:#}");
    assert_eq!(row["detail"], "held: it asks a person", "{report:#}");
    assert_eq!(host.pid(&id), Some(old), "respawned over the prompt");
    assert_eq!(host.agent(&id)["status"], "waiting", "the prompt was cut");
    assert_eq!(key_of(old).as_deref(), Some(OLD));
}

/// `watch --apply` rolls the host too: a rotation while a turn runs is
/// held (said in the log, the worker untouched), then rolled within
/// seconds of the turn's end, without waiting for the interval.
#[test]
fn watch_apply_holds_a_busy_background_session_then_rolls_it() {
    let _alone = alone();
    let Some(claude) = real_claude() else {
        return;
    };
    let host = Host::new(&claude, &["watched"]);
    let id = host.start("watched", "long tool please");
    wait_long(|| host.agent(&id)["status"] == "busy", "the tool runs");
    host.import(&id, "github:octo/repo#4");
    let old = host.pid(&id).unwrap();
    let watch = Watch::spawn(&host.w, Duration::from_secs(120));
    host.key(NEW);
    watch.wait_for("deferred (held: a turn runs");
    assert_eq!(
        host.pid(&id),
        Some(old),
        "respawned mid-turn:\n{}",
        watch.text()
    );
    let deadline = Instant::now() + Duration::from_secs(120);
    let rolled = loop {
        let pid = host.pid(&id);
        if pid.is_some_and(|p| p != old) {
            break pid.unwrap();
        }
        assert!(Instant::now() < deadline, "not rolled:\n{}", watch.text());
        std::thread::sleep(Duration::from_millis(500));
    };
    wait_long(|| key_of(rolled).is_some(), "the new worker's environment");
    assert_eq!(key_of(rolled).as_deref(), Some(NEW));
    watch.wait_for(": restarted");
    assert_no_canary(watch.text().as_bytes(), &[OLD, NEW], "watch's log");
}
