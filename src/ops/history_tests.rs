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
