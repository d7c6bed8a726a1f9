//! The unit tests of [`super`], kept apart for size.

use super::*;
use crate::observed::Probe;
use crate::plan::change::{Change, ChangeCase};
use crate::plan::{Action, EnvReading, SessionKind};

fn fp(text: &str) -> Fingerprint {
    Fingerprint::of(text.as_bytes())
}

fn shown(text: &str) -> crate::secret::Shown {
    crate::secret::Shown::Fingerprint(fp(text))
}

fn session(reference: &str, pid: i32) -> SessionPlan {
    SessionPlan {
        reference: Some(reference.into()),
        pane_id: Some("%1".into()),
        pane_pid: Some(pid),
        activity: crate::activity::Activity::Idle,
        action: Action::Respawn,
        observation: EnvReading::Read,
        changes: vec![Change {
            name: "SLACK_BOT_TOKEN".into(),
            have: Some(shown("retired")),
            want: None,
            case: ChangeCase::Stale,
        }],
        record_fingerprint: Some(fp(reference)),
        ..SessionPlan::new(
            SessionKind::WorkItem,
            format!("loop-{}", reference.replace([':', '/', '#'], "-")),
            Probe::Live,
        )
    }
}

#[derive(Serialize)]
struct Step<'a> {
    step: &'a str,
    assessments: Vec<Assessment>,
}

/// One session through a life: rolled, drifted again, env rotated again.
#[test]
fn a_session_is_rolled_once_per_desired_state() {
    let mut memory = Memory::default();
    let d1 = fp("desired-1");
    let mut steps = Vec::new();
    let s = session("github:octo/repo#1", 100);
    let seen = [Drifted {
        session: &s,
        verdict: Ok(()),
    }];
    let first = assess(&memory, d1, &seen, 1000);
    record(
        &mut memory,
        "github:octo/repo#1",
        d1,
        first[0].signature,
        Outcome::Mismatch,
        None,
        1000,
        60,
    );
    steps.push(Step {
        step: "first sight: roll",
        assessments: first,
    });
    // After the roll the new process still drifts (a new pid).
    let again = session("github:octo/repo#1", 200);
    let seen = [Drifted {
        session: &again,
        verdict: Ok(()),
    }];
    let held = assess(&memory, d1, &seen, 1060);
    mark_reported(&mut memory, "github:octo/repo#1", held[0].signature);
    steps.push(Step {
        step: "still drifted after its roll: held, reported",
        assessments: held,
    });
    steps.push(Step {
        step: "next interval: held, silent",
        assessments: assess(&memory, d1, &seen, 1120),
    });
    steps.push(Step {
        step: "a new desired state: roll",
        assessments: assess(&memory, fp("desired-2"), &seen, 1180),
    });
    insta::assert_yaml_snapshot!(steps);
}

/// An unresumable session: left alone, reported once, retried only after
/// it changes, and then only after the backoff.
#[test]
fn a_failed_session_waits_for_a_change_and_the_backoff() {
    let mut memory = Memory::default();
    let d = fp("desired-1");
    let s = session("github:octo/repo#2", 300);
    let unresumable = [Drifted {
        session: &s,
        verdict: Err("unresumable: no transcript".into()),
    }];
    let mut steps = Vec::new();
    let first = assess(&memory, d, &unresumable, 1000);
    record(
        &mut memory,
        "github:octo/repo#2",
        d,
        first[0].signature,
        Outcome::LeftAlone,
        Some("unresumable: no transcript".into()),
        1000,
        60,
    );
    steps.push(Step {
        step: "first sight: roll (left alone by the precheck)",
        assessments: first,
    });
    steps.push(Step {
        step: "every later interval: unchanged, silent",
        assessments: assess(&memory, d, &unresumable, 1059),
    });
    let fixed = [Drifted {
        session: &s,
        verdict: Ok(()),
    }];
    let waiting = assess(&memory, d, &fixed, 1030);
    mark_reported(&mut memory, "github:octo/repo#2", waiting[0].signature);
    steps.push(Step {
        step: "its transcript is back, within the backoff: wait, reported",
        assessments: waiting,
    });
    steps.push(Step {
        step: "backoff over: retry",
        assessments: assess(&memory, d, &fixed, 1060),
    });
    insta::assert_yaml_snapshot!(steps);
}

#[test]
fn launch_argument_drift_is_its_own_desired_state() {
    let d = fp("desired-1");
    let mut s = session("github:octo/repo#3", 400);
    assert_eq!(session_desired(d, &s), d, "env drift alone: the fleet's");
    s.args_changes = vec![crate::plan::model::ArgsChange {
        name: crate::plan::model::ArgsField::Model,
        have: vec!["--model".into(), "sonnet".into()],
        want: vec!["--model".into(), "opus".into()],
        dropped: None,
    }];
    let with_args = session_desired(d, &s);
    assert_ne!(with_args, d);
    // Rolled for env drift, then the config asks for another model: rolled again.
    let mut memory = Memory::default();
    record(
        &mut memory,
        "github:octo/repo#3",
        d,
        fp("sig"),
        Outcome::Restarted,
        None,
        1,
        60,
    );
    let seen = [Drifted {
        session: &s,
        verdict: Ok(()),
    }];
    let now = assess(&memory, d, &seen, 2);
    assert_eq!(now[0].decision, Decision::Roll { retry: false });
    assert_eq!(now[0].desired, with_args);
}

#[test]
fn backoff_doubles_from_the_interval_and_is_capped() {
    let waits: Vec<u64> = (0..10).map(|n| backoff(60, n)).collect();
    assert_eq!(waits, [0, 60, 120, 240, 480, 960, 1920, 3600, 3600, 3600]);
    assert_eq!(backoff(7200, 3), 7200, "never shorter than the interval");
    assert_eq!(backoff(1, 40), 3600, "no overflow");
}

#[test]
fn the_desired_fingerprint_follows_the_env_set_and_the_policy() {
    let mut config = test_config();
    let mut env = BTreeMap::new();
    env.insert("A".to_owned(), fp("one").to_string());
    let base = desired_fingerprint(&config, &env);
    assert_eq!(base, desired_fingerprint(&config, &env), "stable");
    env.insert("A".to_owned(), fp("two").to_string());
    let rotated = desired_fingerprint(&config, &env);
    assert_ne!(base, rotated, "a rotation is a new desired state");
    config.env.deliver = vec!["A".into()];
    assert_ne!(
        rotated,
        desired_fingerprint(&config, &env),
        "delivering a name is a new desired state"
    );
}

fn test_config() -> Config {
    Config {
        path: "/etc/the-loop/cli-config.yaml".into(),
        state_root: "/var/lib/the-loop".into(),
        instance: None,
        env: Default::default(),
        routing: Default::default(),
    }
}

#[test]
fn a_wall_clock_set_back_a_day_does_not_hold_a_retry_for_a_day() {
    let s = session("github:octo/repo#9", 400);
    let d = fp("desired");
    let seen = [Drifted {
        session: &s,
        verdict: Ok(()),
    }];
    let mut memory = Memory::default();
    let at = 1_796_000_000;
    let first = assess(&memory, d, &seen, at);
    // It failed; what was observed has changed since, so it is retried
    // once its backoff (60 s) is over.
    record(
        &mut memory,
        "github:octo/repo#9",
        first[0].desired,
        fp("observed before"),
        Outcome::LeftAlone,
        Some("its pane changed since it was planned; not touched".into()),
        at,
        60,
    );
    // Within the backoff: it waits.
    assert_eq!(
        assess(&memory, d, &seen, at + 30)[0].decision,
        Decision::Backoff {
            until: at + 60,
            outcome: Outcome::LeftAlone
        }
    );
    // The wall clock is set back a day: a clock before the attempt cannot
    // measure the wait, so the retry is not held for a day and a minute.
    assert_eq!(
        assess(&memory, d, &seen, at - 86_400)[0].decision,
        Decision::Roll { retry: true }
    );
}
