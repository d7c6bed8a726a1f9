//! Rotations noticed and rolled under --apply: debounce, bursts, auto-apply, busy sessions.

use super::*;

#[test]
fn a_rotation_is_noticed_within_the_debounce_and_rolled_with_apply() {
    let (w, sessions) = clean_delivering_fleet(2);
    let before: Vec<Pane> = sessions.iter().map(|s| w.pane(&s.name).unwrap()).collect();
    // A long interval: only inotify can notice the rotation in time.
    let mut watch = start_watch(
        &w,
        &["--apply", "--interval", "3600", "--debounce-ms", "300"],
    );
    watch.wait_for_log("no drift: 2 running session(s)", Duration::from_secs(10));

    save_env_like_an_editor(&w, &format!("SLACK_BOT_TOKEN={ROTATED}\n"));
    let noticed = watch.wait_for_log("env drift:", Duration::from_secs(10));
    assert!(
        noticed <= Duration::from_millis(300 + 1000),
        "drift logged {noticed:?} after the rotation; the debounce is 300 ms"
    );
    let log = watch.text();
    let line = log.lines().find(|l| l.contains("env drift:")).unwrap();
    assert!(
        line.contains("2 sessions hold a stale environment")
            && line.contains(&format!(
                "SLACK_BOT_TOKEN {} → {} (stale) ×2",
                fp(RETIRED),
                fp(ROTATED)
            ))
            && line.contains("github:octo/repo#1, github:octo/repo#2")
            && line.contains("the-loop apply"),
        "one line with names, fingerprints, count and the fix: {line}"
    );

    watch.wait_for_log(
        "watch roll finished: 2 respawned, 0 failed",
        Duration::from_secs(20),
    );
    // Said at start, and again once the roll cleaned the fleet.
    watch.wait_for_count("no drift: 2 running session(s)", 2, Duration::from_secs(10));
    for (s, old) in sessions.iter().zip(&before) {
        let now = w.pane(&s.name).unwrap();
        assert_ne!(now.pid, old.pid, "{} respawned", s.reference);
        assert_eq!((now.id.as_str(), now.window), (old.id.as_str(), old.window));
        assert_eq!(
            environ(now.pid).get("SLACK_BOT_TOKEN").map(String::as_str),
            Some(ROTATED),
            "the new process holds the rotated value"
        );
        assert!(
            cmdline(now.pid)
                .windows(2)
                .any(|a| a[0] == "--resume" && a[1] == s.session_id),
            "the conversation was resumed"
        );
    }
    assert!(plan_is_clean(&w), "plan is clean after watch's roll");

    let drift: Vec<_> = events(&w)
        .into_iter()
        .filter(|e| e["event"] == "env.drift")
        .collect();
    assert_eq!(drift.len(), 1, "{drift:?}");
    assert_eq!(drift[0]["count"], 2);
    assert_eq!(drift[0]["env_fingerprints"]["SLACK_BOT_TOKEN"], fp(ROTATED));
    assert_eq!(watch_rolls(&w), 1);
    let finished: Vec<_> = events(&w)
        .into_iter()
        .filter(|e| e["event"] == "apply.finished" && e["command"] == "watch")
        .collect();
    assert_eq!(finished.len(), 1);
    assert!(finished[0]["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s["outcome"] == "restarted"));
    let verified = events(&w)
        .iter()
        .filter(|e| e["event"] == "session.respawned" && e["verification"] == "verified")
        .count();
    assert_eq!(verified, 4, "2 by the hand roll, 2 by watch");

    let status = watch.stop();
    assert_eq!(status.code(), Some(0), "{}", watch.text());
    assert!(watch.text().contains("watch stopped (signal)"));
    assert!(!w.state.join("watch.pid").exists(), "pidfile removed");
    sweep(&w, &[&watch], CANARIES);
}

#[test]
fn rapid_successive_writes_cause_one_roll() {
    let (w, sessions) = clean_delivering_fleet(1);
    let mut watch = start_watch(
        &w,
        &["--apply", "--interval", "3600", "--debounce-ms", "1000"],
    );
    watch.wait_for_log("no drift", Duration::from_secs(10));
    let values: Vec<String> = (1..=5)
        .map(|i| format!("xoxb-burst-{i}-canary-{i}{i}"))
        .collect();
    for (i, value) in values.iter().enumerate() {
        if i % 2 == 0 {
            save_env_like_an_editor(&w, &format!("SLACK_BOT_TOKEN={value}\n"));
        } else {
            w.write_env(&format!("SLACK_BOT_TOKEN={value}\n"));
        }
        std::thread::sleep(Duration::from_millis(30));
    }
    watch.wait_for_log("watch roll finished", Duration::from_secs(20));
    watch.wait_for_count("no drift", 2, Duration::from_secs(10));
    // Long enough for a second burst, had there been one, to be due.
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(watch_rolls(&w), 1, "one roll:\n{}", watch.text());
    assert_eq!(count_events(&w, "env.drift"), 1);
    let pane = w.pane(&sessions[0].name).unwrap();
    assert_eq!(
        environ(pane.pid).get("SLACK_BOT_TOKEN"),
        values.last(),
        "rolled onto the last write"
    );
    assert_eq!(watch.stop().code(), Some(0));
    let mut canaries: Vec<&str> = values.iter().map(String::as_str).collect();
    canaries.extend_from_slice(CANARIES);
    sweep(&w, &[&watch], &canaries);
}

#[test]
fn turning_on_auto_apply_in_the_config_takes_effect_at_once() {
    let w = World::new();
    let sessions = legacy_fleet(&w, 1);
    w.write_env(&format!("SLACK_BOT_TOKEN={ROTATED}\n"));
    let pid = w.pane(&sessions[0].name).unwrap().pid;
    let mut watch = start_watch(&w, &["--interval", "3600", "--debounce-ms", "200"]);
    watch.wait_for_log("env drift: 1 session holds", Duration::from_secs(10));
    assert!(
        watch.text().contains("fix with `the-loop apply`"),
        "{}",
        watch.text()
    );
    assert_eq!(watch_rolls(&w), 0, "report only");
    assert_eq!(w.pane(&sessions[0].name).unwrap().pid, pid);

    // The config is watched too. A broken edit is reported, and nothing is done.
    w.write_raw_config("env: [unclosed\n");
    watch.wait_for_log("watch cannot plan:", Duration::from_secs(10));
    assert_eq!(count_events(&w, "watch.error"), 1);
    // The fixed edit alone starts the roll.
    w.write_config("  autoApply: true\n");
    watch.wait_for_log("watch can plan again", Duration::from_secs(10));
    watch.wait_for_log(
        "watch roll finished: 1 respawned, 0 failed",
        Duration::from_secs(20),
    );
    assert_ne!(w.pane(&sessions[0].name).unwrap().pid, pid);
    assert!(plan_is_clean(&w));
    assert_eq!(watch.stop().code(), Some(0));
    sweep(&w, &[&watch], CANARIES);
}

/// The activity the plan shows for `reference`.
fn activity_of(w: &World, reference: &str) -> serde_json::Value {
    let out = w.the_loop(&["plan", "--json"]);
    session_in(&json(&out), reference)["activity"].clone()
}

fn type_into(w: &World, s: &LegacySession, text: &str) {
    w.tmux_ok(&["send-keys", "-t", &format!("={}:", s.name), "-l", text]);
    w.tmux_ok(&["send-keys", "-t", &format!("={}:", s.name), "Enter"]);
}

/// Milliseconds since the epoch, as the hook records them.
fn epoch_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

#[test]
fn a_busy_session_is_rolled_within_a_second_of_its_turn_ending() {
    let (w, sessions) = clean_delivering_fleet(1);
    let s = &sessions[0];
    wait_for(
        || activity_of(&w, &s.reference) == "idle",
        "hooks report idle",
    );
    type_into(&w, s, "/busy");
    wait_for(|| activity_of(&w, &s.reference) == "busy", "busy");
    let old = w.pane(&s.name).unwrap();
    let signals = |w: &World| w.transcript_text(s).matches("\"type\":\"signal\"").count();
    let signalled_before = signals(&w);
    let mut watch = start_watch(
        &w,
        &["--apply", "--interval", "3600", "--debounce-ms", "300"],
    );
    save_env_like_an_editor(&w, &format!("SLACK_BOT_TOKEN={ROTATED}\n"));
    watch.wait_for_log(
        "(its turn is running); rolled the moment its turn ends",
        Duration::from_secs(10),
    );
    std::thread::sleep(Duration::from_millis(1000));
    assert_eq!(signals(&w), signalled_before, "a running turn was ended");
    assert_eq!(w.pane(&s.name).unwrap().pid, old.pid);

    type_into(&w, s, "/idle");
    // The hook's own time of the turn's end, against the moment the old
    // harness got its signal.
    let activity = w.state.join(format!("activity/{}.jsonl", old.pid));
    let stop_ms = || {
        std::fs::read_to_string(&activity)
            .unwrap_or_default()
            .lines()
            .filter(|l| l.contains("\"Stop\""))
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter_map(|v| v["at_ms"].as_u64())
            .next_back()
    };
    // The Stop line is read as it comes: once the roll has respawned the
    // harness, the new one's start sweeps the old process's file away.
    let mut signal_ms = None;
    let mut stopped_ms = None;
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        stopped_ms = stop_ms().or(stopped_ms);
        if signals(&w) > signalled_before {
            signal_ms = Some(epoch_ms());
            stopped_ms = stop_ms().or(stopped_ms);
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let signal_ms = signal_ms.expect("the held session was rolled");
    let stop_ms = stopped_ms.expect("the Stop hook ran before the roll");
    assert!(
        signal_ms.saturating_sub(stop_ms) < 1000,
        "rolled {} ms after its turn ended:\n{}",
        signal_ms.saturating_sub(stop_ms),
        watch.text()
    );
    watch.wait_for_log(
        "watch roll finished: 1 respawned, 0 failed",
        Duration::from_secs(20),
    );
    let now = w.pane(&s.name).unwrap();
    assert_ne!(now.pid, old.pid);
    assert_eq!(
        environ(now.pid).get("SLACK_BOT_TOKEN").map(String::as_str),
        Some(ROTATED)
    );
    watch.stop();
}
