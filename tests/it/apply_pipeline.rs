//! The roll after the canary on a real tmux: `--parallelism` bounds the
//! sessions in flight (ended and not yet verified), whose probe waits
//! overlap; the first failed verification stops the roll; Ctrl-C stops new
//! respawns and still verifies every session already respawned.

use crate::support::*;

const RETIRED: &str = "xoxb-RETIRED-pipeline-canary-31f0";
const ROTATED: &str = "xoxb-ROTATED-pipeline-canary-c86b";

/// `n` sessions born on the retired token, then the rotation; probes wait
/// `probe_seconds`.
fn rotated_world(n: usize, probe_seconds: &str) -> (World, Vec<LegacySession>) {
    World::rotated_with_probe(n, probe_seconds, RETIRED, ROTATED)
}

/// Index of the first event line naming `event` for `reference`.
fn event_line(events: &str, event: &str, reference: &str) -> usize {
    events
        .lines()
        .position(|l| {
            l.contains(&format!("\"event\":\"{event}\""))
                && l.contains(&format!("\"ref\":\"{reference}\""))
        })
        .unwrap_or_else(|| panic!("no {event} for {reference} in {events}"))
}

fn roll_three(parallelism: &str) -> (World, Vec<LegacySession>, String) {
    // A long probe wait, so the order below cannot come from timing luck.
    let (w, sessions) = rotated_world(3, "3");
    let out = w.the_loop(&[
        "sessions",
        "restart",
        "--all",
        "--json",
        "--parallelism",
        parallelism,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report = json(&out);
    for s in &sessions {
        assert_eq!(session_in(&report, &s.reference)["outcome"], "restarted");
        let pid = w.pane(&s.name).unwrap().pid;
        assert!(
            !environ(pid).contains_key("SLACK_BOT_TOKEN"),
            "the new process holds the file's state"
        );
    }
    let events = std::fs::read_to_string(w.state.join("events.jsonl")).unwrap();
    let canary_verified = event_line(&events, "session.respawned", &sessions[0].reference);
    let second_ended = event_line(
        &events,
        "session.harness_terminated",
        &sessions[1].reference,
    );
    assert!(
        canary_verified < second_ended,
        "the canary is verified before anything else is touched:\n{events}"
    );
    (w, sessions, events)
}

/// Rolls three sessions through `slots` slots: where in the event log the
/// second session was verified and the third harness was ended, and the log.
fn second_verified_third_ended(slots: &str) -> (usize, usize, String) {
    let (_w, sessions, events) = roll_three(slots);
    let second_verified = event_line(&events, "session.respawned", &sessions[1].reference);
    let third_ended = event_line(
        &events,
        "session.harness_terminated",
        &sessions[2].reference,
    );
    (second_verified, third_ended, events)
}

#[test]
fn with_two_slots_the_next_session_is_respawned_while_the_last_waits_for_its_probe() {
    let (second_verified, third_ended, events) = second_verified_third_ended("2");
    assert!(
        third_ended < second_verified,
        "the third harness was ended while the second waited for its probe:\n{events}"
    );
}

/// A slot is held until the session is verified, so that a failure can stop
/// the roll before anything else is ended (issue 11, class 9).
#[test]
fn with_one_slot_each_session_is_verified_before_the_next_harness_is_ended() {
    let (second_verified, third_ended, events) = second_verified_third_ended("1");
    assert!(
        second_verified < third_ended,
        "the second was verified before the third harness was ended:\n{events}"
    );
}

#[test]
fn ctrl_c_stops_new_respawns_and_still_verifies_the_one_in_flight() {
    let (w, sessions) = rotated_world(3, "0.5");
    // The second session ignores SIGTERM, so its respawn sits in the grace
    // period long enough to interrupt the roll there. The stand-in reads
    // that from its transcript when it starts, so it is started again.
    let second = &sessions[1];
    std::fs::write(w.transcript(second), "{\"test\":\"ignore-term\"}\n").unwrap();
    let pane = w.pane(&second.name).unwrap();
    w.tmux_ok(&[
        "respawn-pane",
        "-k",
        "-t",
        &pane.id,
        "-c",
        second.cwd.to_str().unwrap(),
        "--",
        "claude",
        "--session-id",
        &second.session_id,
    ]);
    wait_for(
        || w.transcript_text(second).contains("\"type\":\"start\""),
        "the second session restarted ignoring SIGTERM",
    );
    let untouched = w.pane(&sessions[2].name).unwrap().pid;
    let child = w
        .the_loop_command(&[
            "sessions",
            "restart",
            "--all",
            "--json",
            "--parallelism",
            "1",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    wait_for(
        || w.transcript_text(&sessions[1]).contains("TERM-ignored"),
        "the second session's respawn is in flight",
    );
    let sent = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let out = child.wait_with_output().unwrap();
    let report = json(&out);
    assert_eq!(report["interrupted"], true, "{report}");
    assert_eq!(
        session_in(&report, &sessions[0].reference)["outcome"],
        "restarted"
    );
    let in_flight = session_in(&report, &sessions[1].reference);
    assert_eq!(in_flight["outcome"], "restarted", "{in_flight}");
    let pid = w.pane(&sessions[1].name).unwrap().pid;
    assert_eq!(in_flight["new_pid"], pid, "verified on the new process");
    assert!(!environ(pid).contains_key("SLACK_BOT_TOKEN"));
    let stopped = session_in(&report, &sessions[2].reference);
    assert_eq!(stopped["outcome"], "not_attempted");
    assert_eq!(stopped["detail"], "interrupted");
    assert_eq!(
        w.pane(&sessions[2].name).unwrap().pid,
        untouched,
        "never touched"
    );
    assert_no_canary(&out.stdout, &[RETIRED, ROTATED], "stdout");
    assert_no_canary(&out.stderr, &[RETIRED, ROTATED], "stderr");
}

/// Issue 11, class 9: after the canary, a session whose verification fails
/// stops the roll, as `kubectl rollout` does. Nothing after it is touched.
#[test]
fn a_failed_verification_after_the_canary_stops_the_roll() {
    let (w, sessions) = rotated_world(4, "0.3");
    // The second session's next start re-execs itself holding the withheld
    // name: its roll ends in a mismatch.
    std::fs::write(
        w.transcript(&sessions[1]),
        "{\"tamper\":\"SLACK_BOT_TOKEN\"}\n",
    )
    .unwrap();
    let untouched: Vec<i32> = sessions[2..]
        .iter()
        .map(|s| w.pane(&s.name).unwrap().pid)
        .collect();
    let out = w.the_loop(&["apply", "--auto-approve", "--json", "--parallelism", "1"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let report = json(&out);
    assert_eq!(
        session_in(&report, &sessions[0].reference)["outcome"],
        "restarted"
    );
    assert_eq!(
        session_in(&report, &sessions[1].reference)["outcome"],
        "mismatch"
    );
    for (s, pid) in sessions[2..].iter().zip(&untouched) {
        let stopped = session_in(&report, &s.reference);
        assert_eq!(stopped["outcome"], "not_attempted", "{stopped}");
        assert_eq!(
            stopped["detail"],
            format!("stopped after {} failed", sessions[1].reference),
            "{stopped}"
        );
        assert_eq!(w.pane(&s.name).unwrap().pid, *pid, "never touched");
        assert!(
            !w.transcript_text(s).contains("\"signal\""),
            "never signalled"
        );
    }
    assert_no_canary(&out.stdout, &[RETIRED, ROTATED], "stdout");
}
