//! The once-per-env-file rule: no roll repeated, and what cannot roll said once a change.

use super::*;

#[test]
fn a_restart_of_watch_with_a_clean_fleet_rolls_nothing() {
    // The reporter's case: sessions born on the retired token, the token
    // rotated (and withheld from sessions) before watch starts.
    let w = World::new();
    let sessions = legacy_fleet(&w, 2);
    w.write_env(&format!("SLACK_BOT_TOKEN={ROTATED}\n"));
    let mut first = start_watch(&w, &["--apply", "--interval", "1"]);
    first.wait_for_log(
        "watch roll finished: 2 respawned, 0 failed",
        Duration::from_secs(20),
    );
    first.wait_for_log("no drift: 2 running session(s)", Duration::from_secs(10));
    assert_eq!(first.stop().code(), Some(0));
    assert!(plan_is_clean(&w));
    let pids: Vec<i32> = sessions
        .iter()
        .map(|s| w.pane(&s.name).unwrap().pid)
        .collect();
    for pid in &pids {
        assert!(!environ(*pid).contains_key("SLACK_BOT_TOKEN"), "withheld");
    }

    let mut second = start_watch(&w, &["--apply", "--interval", "1"]);
    second.wait_for_log("no drift: 2 running session(s)", Duration::from_secs(10));
    // A few intervals of re-planning.
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(second.stop().code(), Some(0));
    let after: Vec<i32> = sessions
        .iter()
        .map(|s| w.pane(&s.name).unwrap().pid)
        .collect();
    assert_eq!(pids, after, "nothing was rolled by the restarted watch");
    assert_eq!(watch_rolls(&w), 1);
    assert_eq!(second.count("watch roll"), 0, "{}", second.text());
    sweep(&w, &[&first, &second], CANARIES);
}

#[test]
fn a_session_still_drifted_after_its_roll_is_not_rolled_again_even_after_a_restart() {
    let w = World::new();
    let sessions = legacy_fleet(&w, 1);
    w.write_env(&format!("SLACK_BOT_TOKEN={ROTATED}\n"));
    // The stand-in re-execs itself holding the name again: the roll mismatches.
    std::fs::write(
        w.transcript(&sessions[0]),
        "{\"tamper\":\"SLACK_BOT_TOKEN\"}\n",
    )
    .unwrap();
    let mut first = start_watch(&w, &["--apply", "--interval", "1"]);
    first.wait_for_log(
        "watch roll finished: 1 respawned, 1 failed",
        Duration::from_secs(20),
    );
    first.wait_for_log(
        "is still drifted after watch rolled it",
        Duration::from_secs(10),
    );
    let pid = w.pane(&sessions[0].name).unwrap().pid;
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(first.count("is still drifted after watch rolled it"), 1);
    assert_eq!(first.stop().code(), Some(0));

    let mut second = start_watch(&w, &["--apply", "--interval", "1"]);
    second.wait_for_log("env drift:", Duration::from_secs(10));
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(second.stop().code(), Some(0));
    assert_eq!(watch_rolls(&w), 1, "{}", second.text());
    assert_eq!(
        w.pane(&sessions[0].name).unwrap().pid,
        pid,
        "not rolled again"
    );
    assert_eq!(
        count_events(&w, "watch.held"),
        1,
        "the hold was reported once, and not again after the restart"
    );
    let memory = std::fs::read_to_string(w.state.join("watch-state.json")).unwrap();
    assert!(memory.contains("\"outcome\": \"mismatch\""), "{memory}");
    sweep(&w, &[&first, &second], CANARIES);
}

#[test]
fn an_unresumable_session_is_reported_once_per_change_not_every_interval() {
    let w = World::new();
    let sessions = legacy_fleet(&w, 2);
    w.write_env(&format!("SLACK_BOT_TOKEN={ROTATED}\n"));
    let lost = &sessions[0];
    let transcript = std::fs::read(w.transcript(lost)).unwrap();
    std::fs::remove_file(w.transcript(lost)).unwrap();
    let lost_pid = w.pane(&lost.name).unwrap().pid;

    let mut watch = start_watch(&w, &["--apply", "--interval", "1", "--debounce-ms", "200"]);
    watch.wait_for_log("watch roll finished", Duration::from_secs(20));
    // Several intervals pass with nothing new to say.
    std::thread::sleep(Duration::from_millis(3500));
    assert_eq!(count_events(&w, "session.left_alone"), 1);
    assert_eq!(
        watch.count(&format!(
            "{}: left alone (unresumable: no transcript",
            lost.reference
        )),
        1,
        "{}",
        watch.text()
    );
    assert_eq!(
        count_events(&w, "env.drift"),
        2,
        "the first sighting, then the one left after the roll"
    );
    assert_eq!(w.pane(&lost.name).unwrap().pid, lost_pid, "untouched");
    assert_eq!(
        environ(lost_pid).get("SLACK_BOT_TOKEN").map(String::as_str),
        Some(RETIRED)
    );

    // A change (another rotation) is reported, once.
    let third = "xoxb-THIRD-canary-0c0c";
    save_env_like_an_editor(&w, &format!("SLACK_BOT_TOKEN={third}\n"));
    watch.wait_for_count("watch roll finished", 2, Duration::from_secs(20));
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(
        count_events(&w, "session.left_alone"),
        2,
        "{}",
        watch.text()
    );
    assert_eq!(w.pane(&lost.name).unwrap().pid, lost_pid, "still untouched");

    // Its transcript comes back: something changed, so it is retried (after
    // the backoff) and rolled.
    std::fs::write(w.transcript(lost), transcript).unwrap();
    watch.wait_for_count("watch roll finished", 3, Duration::from_secs(20));
    watch.wait_for_log(
        &format!("watch roll: {}: restarted (verified)", lost.reference),
        Duration::from_secs(5),
    );
    assert_ne!(w.pane(&lost.name).unwrap().pid, lost_pid);
    assert_eq!(count_events(&w, "session.left_alone"), 2);
    assert_eq!(watch.stop_with(Signal::SIGINT).code(), Some(0));
    assert!(plan_is_clean(&w));
    let mut canaries = CANARIES.to_vec();
    canaries.push(third);
    sweep(&w, &[&watch], &canaries);
}

#[test]
fn unverified_sessions_are_reported_once_and_never_rolled() {
    let w = World::new();
    let sessions = legacy_fleet(&w, 1);
    w.write_env(&format!("SLACK_BOT_TOKEN={ROTATED}\n"));
    let pid = w.pane(&sessions[0].name).unwrap().pid;
    // A /proc view with nothing in it: no environment can be read.
    let empty = w.root().join("empty-proc");
    std::fs::create_dir_all(&empty).unwrap();
    let mut watch = start_watch_with(
        &w,
        &["--apply", "--interval", "1"],
        &[("THE_LOOP_PROC_ROOT", empty.to_str().unwrap())],
    );
    watch.wait_for_log(
        "cannot observe 1 session, so watch will not roll them",
        Duration::from_secs(10),
    );
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(watch.stop().code(), Some(0));
    assert_eq!(watch.count("cannot observe"), 1, "{}", watch.text());
    assert_eq!(count_events(&w, "env.unverified"), 1);
    assert_eq!(
        count_events(&w, "env.drift"),
        0,
        "no drift it did not observe"
    );
    assert_eq!(watch_rolls(&w), 0);
    assert_eq!(w.pane(&sessions[0].name).unwrap().pid, pid, "never rolled");
    sweep(&w, &[&watch], CANARIES);
}
