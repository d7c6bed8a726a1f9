use super::*;

fn fp(text: &str) -> Shown {
    Shown::Fingerprint(crate::secret::Fingerprint::of(text.as_bytes()))
}

fn started(ts: &str, command: &str, env: &[(&str, &str)]) -> String {
    let fingerprints: BTreeMap<&str, String> =
        env.iter().map(|(n, v)| (*n, fp(v).to_string())).collect();
    serde_json::json!({
        "ts": ts, "event": "apply.started", "command": command, "sessions": 2,
        "env_file": "/srv/.env", "env_fingerprints": fingerprints,
    })
    .to_string()
}

fn finished(ts: &str, command: &str, failed: bool, outcome: &str) -> String {
    serde_json::json!({
        "ts": ts, "event": "apply.finished", "command": command, "failed": failed,
        "interrupted": false,
        "sessions": [{"ref": "github:octo/repo#1", "standing": null,
            "tmux_target": "loop-github-octo-repo-1", "outcome": outcome, "detail": null}],
    })
    .to_string()
}

fn log(lines: &[String]) -> Vec<u8> {
    (lines.join("\n") + "\n").into_bytes()
}

#[test]
fn a_roll_is_a_start_and_the_finish_after_it_and_a_killed_one_stays_unfinished() {
    let text = log(&[
        r#"{"ts":"2026-12-01T00:00:00Z","event":"watch.started","pid":1}"#.into(),
        started("2026-12-01T10:00:00Z", "apply", &[("A", "1")]),
        finished("2026-12-01T10:00:04Z", "apply", false, "restarted"),
        // Killed: no finish before the next start.
        started("2026-12-01T11:00:00Z", "sessions restart", &[("A", "1")]),
        started("2026-12-01T12:00:00Z", "watch", &[("A", "2"), ("B", "3")]),
        finished("2026-12-01T12:00:09Z", "watch", true, "mismatch"),
    ]);
    let (rolls, unreadable) = rolls_in(&text);
    assert_eq!(unreadable, 0);
    let shape: Vec<_> = rolls
        .iter()
        .map(|r| (r.command, r.result, r.finished.as_deref()))
        .collect();
    assert_eq!(
        shape,
        [
            (
                RollCommand::Apply,
                RollResult::Succeeded,
                Some("2026-12-01T10:00:04Z")
            ),
            (RollCommand::SessionsRestart, RollResult::Unfinished, None),
            (
                RollCommand::Watch,
                RollResult::Failed,
                Some("2026-12-01T12:00:09Z")
            ),
        ]
    );
    assert!(rolls[1].sessions.is_empty());
    assert_eq!(
        serde_json::to_value(rolls[2].sessions[0].outcome).unwrap(),
        "mismatch"
    );
}

#[test]
fn the_env_file_is_compared_with_the_roll_before_by_name_and_fingerprint() {
    let text = log(&[
        started(
            "2026-12-01T10:00:00Z",
            "apply",
            &[("A", "1"), ("GONE", "x")],
        ),
        finished("2026-12-01T10:00:04Z", "apply", false, "restarted"),
        started(
            "2026-12-01T11:00:00Z",
            "apply",
            &[("A", "1"), ("GONE", "x")],
        ),
        finished("2026-12-01T11:00:04Z", "apply", false, "restarted"),
        started("2026-12-01T12:00:00Z", "watch", &[("A", "2"), ("NEW", "y")]),
        finished("2026-12-01T12:00:04Z", "watch", false, "restarted"),
    ]);
    let (rolls, _) = rolls_in(&text);
    let env = |i: usize| rolls[i].env.clone().unwrap();
    assert_eq!(env(0).changes, None, "nothing earlier to compare with");
    assert_eq!(env(1).changes, Some(vec![]), "unchanged");
    assert_eq!(
        env(2).changes.unwrap(),
        [
            EnvChange {
                name: "A".into(),
                before: Some(fp("1")),
                after: Some(fp("2"))
            },
            EnvChange {
                name: "GONE".into(),
                before: Some(fp("x")),
                after: None
            },
            EnvChange {
                name: "NEW".into(),
                before: None,
                after: Some(fp("y"))
            },
        ]
    );
    assert_eq!(env(2).names, 2);
}

#[test]
fn torn_lines_are_counted_and_a_finish_without_its_start_is_kept() {
    let mut text = log(&[
        finished("2026-12-01T10:00:04Z", "apply", false, "restarted"),
        // A line cut by a crash mid-write, and one edited by hand.
        r#"{"ts":"2026-12-01T11:00:00Z","event":"apply.started","comm"#.into(),
        r#"{"ts":"2026-12-01T11:00:00Z","event":"apply.started","command":"rm -rf","sessions":1}"#
            .into(),
    ]);
    text.extend_from_slice(b"\xff\xfe not even text \"event\":\"apply.\n");
    let (rolls, unreadable) = rolls_in(&text);
    assert_eq!(unreadable, 3);
    assert_eq!(rolls.len(), 1);
    assert_eq!(rolls[0].started, None);
    assert_eq!(rolls[0].selected, None);
    assert_eq!(rolls[0].result, RollResult::Succeeded);
    assert!(rolls[0].env.is_none());
}

/// A clock whose wall and monotonic readings a test moves apart, as an NTP
/// step or a resumed VM does.
struct JumpingClock {
    wall: std::sync::Mutex<u64>,
    mono: std::sync::Mutex<std::time::Instant>,
}

impl crate::clock::Clock for JumpingClock {
    fn wall_secs(&self) -> u64 {
        *self.wall.lock().unwrap()
    }
    fn monotonic(&self) -> std::time::Instant {
        *self.mono.lock().unwrap()
    }
}

#[test]
fn a_wall_clock_set_a_day_forward_during_a_roll_does_not_lengthen_it() {
    use crate::clock::{millis, Stopwatch};
    use crate::events::{Event, EventLog};
    let dir = tempfile::tempdir().unwrap();
    let clock = std::sync::Arc::new(JumpingClock {
        wall: std::sync::Mutex::new(crate::clock::parse_utc("2026-12-01T10:00:00Z").unwrap()),
        mono: std::sync::Mutex::new(std::time::Instant::now()),
    });
    let events = EventLog::with_clock(dir.path(), clock.clone());
    // What `ops::apply` does around a roll.
    let took = Stopwatch::start_on(events.clock());
    events.emit(Event::ApplyStarted {
        command: RollCommand::Apply,
        sessions: 1,
        host_sessions: None,
        env_file: None,
        env_fingerprints: None,
    });
    // 64 s of roll, during which the wall clock is set a day forward.
    *clock.wall.lock().unwrap() += 86_400 + 64;
    let later = *clock.mono.lock().unwrap() + std::time::Duration::from_secs(64);
    *clock.mono.lock().unwrap() = later;
    events.emit(Event::ApplyFinished {
        command: RollCommand::Apply,
        failed: false,
        interrupted: false,
        duration_ms: Some(millis(took.elapsed_on(events.clock()))),
        sessions: Vec::new(),
        hosts: Vec::new(),
    });
    let (rolls, unreadable) = rolls_in(&std::fs::read(events.path()).unwrap());
    assert_eq!(unreadable, 0);
    assert_eq!(rolls[0].started.as_deref(), Some("2026-12-01T10:00:00Z"));
    // Timestamps stay wall-clock; the duration does not follow them.
    assert_eq!(rolls[0].finished.as_deref(), Some("2026-12-02T10:01:04Z"));
    assert_eq!(rolls[0].duration_ms, Some(64_000));
}

#[test]
fn a_roll_logged_before_durations_were_carried_has_none() {
    let text = log(&[
        started("2026-12-01T10:00:00Z", "apply", &[]),
        finished("2026-12-01T10:00:04Z", "apply", false, "restarted"),
    ]);
    let (rolls, _) = rolls_in(&text);
    assert_eq!(rolls[0].duration_ms, None);
}

#[test]
fn a_roll_of_the_background_host_logged_before_hosts_shared_one_list_reads() {
    let text = [
        r#"{"ts":"2026-12-05T10:00:00Z","event":"apply.started","command":"apply","sessions":0,"background_sessions":2}"#,
        r#"{"ts":"2026-12-05T10:00:09Z","event":"apply.finished","command":"apply","failed":false,"interrupted":false,"sessions":[],"background_host":{"daemon":{"outcome":"replaced","old_pid":1,"new_pid":2,"detail":null},"sessions":[{"id":"a1b2c3d4","ref":"r","outcome":"restarted","old_pid":3,"new_pid":4,"conversation":null,"detail":null}]}}"#,
    ]
    .join("\n");
    let (rolls, unreadable) = rolls_in(text.as_bytes());
    assert_eq!(unreadable, 0);
    assert_eq!(rolls[0].selected, Some(2));
    let host = &rolls[0].hosts[0];
    assert_eq!(host.host, crate::host_kind::Host::ClaudeBackground);
    assert_eq!(
        host.layer.as_ref().map(|l| l.outcome.clone()),
        Some(crate::events::host::LayerOutcome::Replaced)
    );
    assert_eq!(
        host.sessions[0].outcome,
        crate::events::host::HostOutcome::Restarted
    );
}
