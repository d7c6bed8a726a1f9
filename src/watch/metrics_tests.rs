//! The unit tests of [`super`], kept apart for size.

use super::*;

/// The exposition's sample lines, `name{labels} value`, as a parser sees them.
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

#[test]
fn every_state_and_outcome_series_exists_before_anything_happens() {
    let text = Metrics::new().encode().unwrap();
    for state in STATES {
        let series = format!("the_loop_sessions{{state=\"{}\"}}", state.as_str());
        assert_eq!(sample(&text, &series), Some(0.0), "{series} in\n{text}");
    }
    for outcome in OUTCOMES {
        let series = format!(
            "the_loop_rolls_total{{outcome=\"{}\"}}",
            outcome_word(outcome)
        );
        assert_eq!(sample(&text, &series), Some(0.0), "{series} in\n{text}");
    }
    assert!(
        text.contains("# TYPE the_loop_sessions_drifted gauge"),
        "{text}"
    );
    assert!(
        text.contains("# TYPE the_loop_rolls_total counter"),
        "{text}"
    );
    let build = format!(
        "the_loop_build_info{{version=\"{}\",commit=\"{}\"}}",
        crate::build_info::VERSION,
        crate::build_info::COMMIT
    );
    assert_eq!(sample(&text, &build), Some(1.0), "{build} in\n{text}");
}

#[test]
fn outcome_words_are_the_words_of_apply_json() {
    for outcome in OUTCOMES {
        assert_eq!(
            serde_json::to_value(outcome).unwrap(),
            serde_json::json!(outcome_word(outcome))
        );
    }
}

#[test]
fn rolls_count_each_session_once_by_outcome() {
    let m = Metrics::new();
    m.rolls
        .get_or_create(&OutcomeLabels {
            outcome: OutcomeValue(Outcome::Restarted),
        })
        .inc_by(2);
    m.plan_failed();
    let text = m.encode().unwrap();
    assert_eq!(
        sample(&text, "the_loop_rolls_total{outcome=\"restarted\"}"),
        Some(2.0)
    );
    assert_eq!(sample(&text, "the_loop_plan_ok"), Some(0.0));
}

/// A plan as `plan --json` prints it, with `n` live sessions, `drifted`
/// of them to respawn.
fn plan(n: usize, drifted: usize, tmux_unanswered: bool) -> Plan {
    let sessions: Vec<_> = (0..n)
        .map(|i| {
            serde_json::json!({
                "ref": format!("github:octo/repo#{i}"), "standing": null,
                "kind": "work_item", "tmux_target": format!("loop-{i}"),
                "pane_id": null, "pane_pid": null,
                "probe": if tmux_unanswered { "unknown" } else { "live" },
                "action": if i < drifted { "respawn" } else { "none" },
                "reason": null, "observation": "read", "changes": [],
                "record_fingerprint": null,
            })
        })
        .collect();
    serde_json::from_value(serde_json::json!({
        "format_version": "1", "env_file": null, "env_fingerprints": {},
        "sessions": sessions,
        "tmux_unanswered": tmux_unanswered.then_some("timed out"),
        "corrupt_records": [],
        "summary": {"respawn": 0, "up_to_date": 0, "skipped": 0, "unverified": 0, "unmanaged": 0},
    }))
    .unwrap()
}

#[test]
fn tmux_not_answering_keeps_the_last_drift_count() {
    let m = Metrics::new();
    m.observe_plan(&plan(3, 2, false), 100);
    m.observe_plan(&plan(3, 0, true), 200);
    let text = m.encode().unwrap();
    assert_eq!(
        sample(&text, "the_loop_sessions_drifted"),
        Some(2.0),
        "{text}"
    );
    assert_eq!(
        sample(&text, "the_loop_sessions{state=\"unknown\"}"),
        Some(3.0)
    );
    assert_eq!(
        sample(&text, "the_loop_sessions{state=\"live\"}"),
        Some(0.0)
    );
    assert_eq!(sample(&text, "the_loop_plan_ok"), Some(0.0));
    assert_eq!(
        sample(&text, "the_loop_last_plan_timestamp_seconds"),
        Some(100.0)
    );
    m.observe_plan(&plan(3, 0, false), 300);
    let text = m.encode().unwrap();
    assert_eq!(sample(&text, "the_loop_sessions_drifted"), Some(0.0));
    assert_eq!(sample(&text, "the_loop_plan_ok"), Some(1.0));
}

#[test]
fn plans_and_rolls_are_timed_in_their_buckets() {
    let m = Metrics::new();
    let text = m.encode().unwrap();
    assert!(
        text.contains("# TYPE the_loop_plan_duration_seconds histogram"),
        "{text}"
    );
    assert_eq!(
        sample(&text, "the_loop_roll_duration_seconds_count"),
        Some(0.0)
    );
    m.plan_took(Duration::from_millis(70));
    m.plan_took(Duration::from_secs(40));
    m.roll_took(Duration::from_secs(7));
    let text = m.encode().unwrap();
    let bucket = |name: &str, le: &str| {
        sample(
            &text,
            &format!("the_loop_{name}_duration_seconds_bucket{{le=\"{le}\"}}"),
        )
    };
    assert_eq!(bucket("plan", "0.05"), Some(0.0), "{text}");
    assert_eq!(bucket("plan", "0.1"), Some(1.0), "{text}");
    assert_eq!(bucket("plan", "30"), Some(1.0), "{text}");
    assert_eq!(bucket("plan", "+Inf"), Some(2.0), "{text}");
    assert_eq!(
        sample(&text, "the_loop_plan_duration_seconds_count"),
        Some(2.0)
    );
    assert_eq!(bucket("roll", "5"), Some(0.0), "{text}");
    assert_eq!(bucket("roll", "10"), Some(1.0), "{text}");
    assert_eq!(
        sample(&text, "the_loop_roll_duration_seconds_sum"),
        Some(7.0)
    );
}

#[test]
fn no_outcome_series_is_one_a_watch_roll_never_says() {
    let text = Metrics::new().encode().unwrap();
    for never in ["up_to_date", "would_restart"] {
        assert!(!text.contains(never), "{never} in\n{text}");
    }
}

#[test]
fn drifted_background_sessions_count_as_drifted() {
    let mut with_host = plan(3, 1, false);
    let session = |id: &str, action: &str| {
        serde_json::json!({
            "id": id, "ref": null, "conversation": null, "cwd": null, "pid": 7,
            "activity": "idle", "action": action, "apply_will": null,
            "changes": [], "reason": null, "open_with": format!("claude attach {id}"),
        })
    };
    with_host.hosts = vec![serde_json::from_value(serde_json::json!({
        "host": "claude-background", "location": "/c", "layer": null,
        "observation_failed": null,
        "sessions": [session("0000000a", "respawn"), session("0000000b", "respawn"),
                     session("0000000c", "unmanaged"), session("0000000d", "none")],
    }))
    .unwrap()];
    let m = Metrics::new();
    m.observe_plan(&with_host, 100);
    let text = m.encode().unwrap();
    assert_eq!(
        sample(&text, "the_loop_sessions_drifted"),
        Some(3.0),
        "{text}"
    );
}

#[test]
fn a_session_a_newer_env_value_kept_the_roll_from_is_counted_superseded() {
    use crate::apply::report::{not_attempted, Stop};
    use crate::plan::{SessionKind, SessionPlan};
    let plan = SessionPlan::new(
        SessionKind::WorkItem,
        "loop-x".into(),
        crate::observed::Probe::Live,
    );
    let m = Metrics::new();
    m.count_rolls(&[
        not_attempted(&plan, Stop::EnvFileChanged),
        not_attempted(&plan, Stop::EnvFileChanged),
        not_attempted(&plan, Stop::Interrupted),
    ]);
    let text = m.encode().unwrap();
    let rolls = |word: &str| {
        sample(
            &text,
            &format!("the_loop_rolls_total{{outcome=\"{word}\"}}"),
        )
    };
    assert_eq!(rolls("superseded"), Some(2.0), "{text}");
    assert_eq!(rolls("not_attempted"), Some(1.0), "{text}");
}
