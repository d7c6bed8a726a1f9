//! A plan saved by an older build (before reasons were typed) still loads, and applies.

use super::*;

/// Every session kind plus the ones only the intent journal makes: a dead
/// pane an interrupted roll left (resume), one whose tmux session is gone,
/// one whose environment was never read, and a pane running another work
/// item's harness. Exactly the inputs `fixtures/plans/saved-by-0c47354.json`
/// was saved from, by the build before reasons were typed.
fn plan_with_every_reason() -> the_loop::plan::Plan {
    let policy = policy(&[]);
    let (mut sessions, mut panes, mut envs) = every_kind_world();
    sessions.extend([10, 11, 12, 13].map(work_item));
    panes.push(pane("loop-github-octo-repo-10", 110, true));
    panes.push(pane("loop-github-octo-repo-12", 112, false));
    panes.push(pane("loop-github-octo-repo-13", 113, false));
    envs.insert(113, with_ref("github:octo/repo#99"));
    let mut plan = plan_of(&policy, &sessions, &fleet_of(panes), &envs, &Targets::all());
    let entry = |n: u32| the_loop::registry::journal::Entry {
        reference: Some(format!("github:octo/repo#{n}")),
        standing: None,
        tmux_target: format!("loop-github-octo-repo-{n}"),
        pane_id: format!("%1{n}"),
        old_pid: 4242,
        harness_session_id: format!("0000000{n}-1111-2222-3333-444444444444"),
        cwd: "/srv/work".into(),
        transcript: "/srv/work/t.jsonl".into(),
        since: "2026-11-30T22:14:05Z".into(),
    };
    the_loop::plan::interrupted::annotate(&mut plan, &[entry(10), entry(11)]);
    plan
}

/// A plan saved by the build before skip reasons were typed still loads:
/// every reason reads back as its kind (never as unknown words), the
/// unverified ones are the unobserved ones, writing it again gives the same
/// bytes, and the plan this build computes from the same world is what was
/// saved, so `apply --plan` finds nothing stale and acts on it.
#[test]
fn a_plan_saved_before_reasons_were_typed_loads_and_applies() {
    use the_loop::plan::{saved, Action, Reason};
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/it/fixtures/plans/saved-by-0c47354.json");
    let loaded = saved::read(&path).expect("the old saved plan loads");
    let reason_of = |label: &str| {
        let session = loaded.sessions.iter().find(|s| s.label() == label);
        session.and_then(|s| s.reason.clone())
    };
    assert_eq!(reason_of("github:octo/repo#3"), Some(Reason::NotRunning));
    assert_eq!(reason_of("github:octo/repo#4"), Some(Reason::RecordClosed));
    assert_eq!(
        reason_of("github:octo/repo#6"),
        Some(Reason::Unverified {
            why: "permission denied reading the process environment".into()
        })
    );
    assert_eq!(
        reason_of("triage"),
        Some(Reason::HeldByAnother {
            named: "github:octo/repo#9".into(),
            standing: true
        })
    );
    assert_eq!(
        reason_of("github:octo/repo#10"),
        Some(Reason::InterruptedDeadPane {
            since: "2026-11-30T22:14:05Z".into()
        })
    );
    assert_eq!(
        reason_of("github:octo/repo#11"),
        Some(Reason::InterruptedGone {
            since: "2026-11-30T22:14:05Z".into(),
            conversation: "000000011-1111-2222-3333-444444444444".into()
        })
    );
    assert_eq!(
        reason_of("github:octo/repo#13"),
        Some(Reason::HeldByAnother {
            named: "github:octo/repo#99".into(),
            standing: false
        })
    );
    assert_eq!(reason_of("loop-stranger"), Some(Reason::Unmanaged));
    assert!(!loaded
        .sessions
        .iter()
        .any(|s| matches!(s.reason, Some(Reason::Other(_)))));
    let unverified: Vec<&str> = loaded
        .sessions
        .iter()
        .filter(|s| s.is_unverified())
        .map(|s| s.label())
        .collect();
    assert_eq!(unverified, ["github:octo/repo#6", "github:octo/repo#12"]);
    assert_eq!(loaded.summary.unverified, 2);

    // Written again, every field the old build wrote is there with the
    // same value, reasons word for word (fields added since, such as
    // `activity`, come on top).
    let dir = tempfile::tempdir().unwrap();
    let again = dir.path().join("plan.json");
    saved::write(&loaded, &again).unwrap();
    let json = |p: &std::path::Path| -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
    };
    assert_holds(&json(&path), &json(&again), "$");

    // This build plans the same world identically, but for the
    // fingerprints of its guessable values (`old-token`, `gh-current`,
    // `new-token`: under 16 bytes), which it withholds (issue 28).
    let now = plan_with_every_reason();
    let mut as_saved = now.clone();
    for session in &mut as_saved.sessions {
        // What a saved plan never holds: the record, read again by `apply`.
        (session.key, session.record) = (None, None);
    }
    // Added since (issue 44): the sessions down, which the old plan never listed.
    as_saved.down.clear();
    assert_eq!(as_saved, withheld_like(&loaded, &now));
    // So the old plan cannot be applied: whether those values changed
    // cannot be told, and the refusal says why, name by name.
    let targets = saved::targets_within(&path, &loaded, &Targets::all()).unwrap();
    let stale = saved::staleness(&loaded.restricted_to(&targets), &now);
    assert_eq!(
        stale,
        [
            "the fingerprint of GH_TOKEN is withheld now (a guessable value), so whether it changed since the plan was saved cannot be told",
            "the fingerprint of SLACK_BOT_TOKEN is withheld now (a guessable value), so whether it changed since the plan was saved cannot be told",
            "the drift of github:octo/repo#1 names fingerprints that are withheld now (guessable values), so whether it is what the plan showed cannot be told",
            "the drift of github:octo/repo#2 names fingerprints that are withheld now (guessable values), so whether it is what the plan showed cannot be told",
        ]
    );
    // A world whose plan it still describes (the withheld fingerprints
    // aside) is not stale, and it acts on the drifted and interrupted ones.
    assert!(saved::staleness(&withheld_like(&loaded, &now), &now).is_empty());
    let acting: Vec<(&str, Action)> = loaded
        .sessions
        .iter()
        .filter(|s| s.action.acts())
        .map(|s| (s.label(), s.action))
        .collect();
    assert_eq!(
        acting,
        [
            ("github:octo/repo#1", Action::Respawn),
            ("github:octo/repo#2", Action::Respawn),
            ("github:octo/repo#10", Action::Resume)
        ]
    );
}

/// `saved`, with every fingerprint `now` withholds withheld too.
fn withheld_like(saved: &the_loop::plan::Plan, now: &the_loop::plan::Plan) -> the_loop::plan::Plan {
    use the_loop::secret::Shown;
    let like = |saved: &mut Option<Shown>, now: Option<Shown>| {
        if saved.is_some() && now == Some(Shown::Withheld) {
            *saved = now;
        }
    };
    let mut plan = saved.clone();
    for (name, fp) in &mut plan.env_fingerprints {
        if now.env_fingerprints.get(name) == Some(&Shown::Withheld) {
            *fp = Shown::Withheld;
        }
    }
    for (session, fresh) in plan.sessions.iter_mut().zip(&now.sessions) {
        for (change, fresh) in session.changes.iter_mut().zip(&fresh.changes) {
            like(&mut change.have, fresh.have);
            like(&mut change.want, fresh.want);
        }
    }
    plan
}

/// Every key of `old` is in `new` with the same value, recursively; arrays
/// match element by element.
fn assert_holds(old: &serde_json::Value, new: &serde_json::Value, at: &str) {
    use serde_json::Value;
    match (old, new) {
        (Value::Object(old), Value::Object(new)) => {
            for (key, value) in old {
                let held = new.get(key).unwrap_or_else(|| panic!("{at}.{key} is gone"));
                assert_holds(value, held, &format!("{at}.{key}"));
            }
        }
        (Value::Array(old), Value::Array(new)) => {
            assert_eq!(old.len(), new.len(), "{at}");
            for (i, (o, n)) in old.iter().zip(new).enumerate() {
                assert_holds(o, n, &format!("{at}[{i}]"));
            }
        }
        _ => assert_eq!(old, new, "{at}"),
    }
}
