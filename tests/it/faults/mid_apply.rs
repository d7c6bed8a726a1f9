//! The env file replaced mid-apply, SIGINT mid-apply, and two applies at once.

use super::*;

#[test]
fn an_env_file_replaced_mid_apply_is_said_and_the_roll_stops() {
    let w = World::new();
    w.write_config("  deliver: [DELIVERED_TOKEN]\n");
    w.write_env(&format!(
        "SLACK_BOT_TOKEN={RETIRED}\nDELIVERED_TOKEN={DELIVERED}\n"
    ));
    w.start_server_holding(&[("SLACK_BOT_TOKEN", RETIRED)]);
    let sessions: Vec<LegacySession> = (1..=3)
        .map(|i| {
            w.legacy_session(
                &format!("github:octo/repo#{i}"),
                &format!("github-octo-repo-{i}"),
            )
        })
        .collect();
    w.write_env(&format!(
        "SLACK_BOT_TOKEN={ROTATED}\nDELIVERED_TOKEN={DELIVERED}\n"
    ));
    let baseline = Baseline::take(&w);
    slow_to_end(&w, &sessions[0]);
    let child = spawn(&w, &["apply", "--auto-approve", "--json"], &[]);
    wait_for(
        || w.transcript_text(&sessions[0]).contains("TERM-ignored"),
        "the canary is being ended",
    );
    // Replaced, not edited: a new file renamed over the old one.
    let replacement = w.root().join(".env.new");
    std::fs::write(
        &replacement,
        format!("SLACK_BOT_TOKEN={ROTATED}\nDELIVERED_TOKEN={REPLACED}\n"),
    )
    .unwrap();
    std::fs::rename(&replacement, &w.env_path).unwrap();
    let out = finish(child, "apply");
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let report = json(&out);
    // The canary's launcher read the replacement: it holds the file's
    // current value, which is not a mismatch (issue 35, point 3).
    let canary = session_in(&report, &sessions[0].reference);
    assert_eq!(canary["outcome"], "superseded", "{canary}");
    assert_eq!(
        canary["detail"],
        "the env file changed during the roll; it holds the file's current value"
    );
    assert_eq!(canary["mismatches"], serde_json::json!([]));
    let pid = w.pane(&sessions[0].name).unwrap().pid;
    assert_eq!(
        environ(pid).get("DELIVERED_TOKEN").map(String::as_str),
        Some(REPLACED)
    );
    assert_eq!(
        report["env_file_changed"],
        serde_json::json!({"superseded_sessions": 0})
    );
    for s in &sessions[1..] {
        let session = session_in(&report, &s.reference);
        // Not reached for the newer value: superseded, not a session left stale.
        assert_eq!(session["outcome"], "superseded");
        assert_eq!(session["detail"], "the env file changed during the roll");
        assert_eq!(session["new_pid"], serde_json::Value::Null);
    }
    baseline.holds(&w, &sessions);
    assert_clean(&[&out]);
}

#[test]
fn sigint_mid_apply_of_ten_sessions_finishes_what_started_and_releases_the_lock() {
    let (w, sessions) = rotated_world(10);
    let baseline = Baseline::take(&w);
    for s in &sessions {
        slow_to_end(&w, s);
    }
    let before: Vec<i32> = sessions
        .iter()
        .map(|s| w.pane(&s.name).unwrap().pid)
        .collect();
    let child = spawn(
        &w,
        &["apply", "--auto-approve", "--json", "--parallelism", "2"],
        &[],
    );
    let pid = child.id() as i32;
    // The canary is done and the parallel roll has begun: a session after
    // the canary is waiting out its grace period.
    wait_for(
        || {
            sessions[1..]
                .iter()
                .any(|s| w.transcript_text(s).contains("TERM-ignored"))
        },
        "the parallel roll has begun",
    );
    kill(Pid::from_raw(pid), Signal::SIGINT).unwrap();
    let out = finish(child, "apply");
    let report = json(&out);
    assert_eq!(report["interrupted"], true);
    let mut restarted = 0;
    let mut not_attempted = 0;
    for (s, old) in sessions.iter().zip(&before) {
        let o = session_in(&report, &s.reference);
        let pane = w.pane(&s.name).expect("the session exists");
        assert!(!pane.dead, "{}: no session left dead", s.reference);
        match o["outcome"].as_str().unwrap() {
            "restarted" => {
                restarted += 1;
                assert_ne!(pane.pid, *old);
                assert_eq!(o["new_pid"], pane.pid, "verified on the new process");
            }
            "not_attempted" => {
                not_attempted += 1;
                assert_eq!(o["detail"], "interrupted");
                assert_eq!(pane.pid, *old, "untouched");
            }
            other => panic!("{}: unexpected outcome {other}: {o}", s.reference),
        }
    }
    assert!(
        restarted >= 2,
        "the canary and the sessions in flight finished"
    );
    assert!(not_attempted >= 1, "the interrupt stopped new respawns");
    assert_eq!(restarted + not_attempted, 10, "every session accounted for");
    assert_eq!(
        out.status.code(),
        Some(1),
        "sessions left stale by the interrupt make it exit 1: {}",
        stderr(&out)
    );
    assert!(apply_lock_is_free(&w.state), "the lock was released");
    let events = std::fs::read_to_string(w.state.join("events.jsonl")).unwrap();
    assert!(events.contains("\"interrupted\":true"));
    baseline.holds(&w, &sessions);
    assert_clean(&[&out]);
}

#[test]
fn two_applies_at_once_one_runs_the_other_is_refused_and_nothing_is_lost() {
    let (w, sessions) = rotated_world(2);
    let baseline = Baseline::take(&w);
    slow_to_end(&w, &sessions[0]);
    let first = spawn(&w, &["apply", "--auto-approve", "--json"], &[]);
    wait_for(
        || std::fs::read_to_string(w.state.join("apply.lock")).is_ok_and(|t| t.contains("pid")),
        "the first apply holds the lock",
    );
    let second = finish(
        spawn(&w, &["sessions", "restart", "--all", "--json"], &[]),
        "second",
    );
    assert_eq!(second.status.code(), Some(1));
    assert!(stderr(&second).contains("another apply or restart is running"));
    let first = finish(first, "first");
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    for s in &sessions {
        assert_eq!(
            session_in(&json(&first), &s.reference)["outcome"],
            "restarted"
        );
    }
    assert!(apply_lock_is_free(&w.state));
    baseline.holds(&w, &sessions);
    assert_clean(&[&first, &second]);
}
