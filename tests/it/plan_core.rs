//! The pure core of planning: given a policy, the registry's sessions and
//! what tmux and /proc reported, the plan and its rendering. No tmux here;
//! the integration tests cover the shell around it.

use std::collections::BTreeMap;
use std::path::PathBuf;
use the_loop::desired::config::{Config, EnvSettings, Routing};
use the_loop::desired::envfile::{parse, EnvFile};
use the_loop::desired::policy::Policy;
use the_loop::observed::fleet::PaneCommand;
use the_loop::observed::harness::HarnessProcess;
use the_loop::observed::{EnvRead, Fleet, FleetView, Observation, Pane, ProcessEnv};
use the_loop::plan::{compute, ManagedSession, Targets};
use the_loop::registry::SessionKey;
use the_loop::secret::Fingerprint;
use the_loop::views::plan::render_plan;
use the_loop::views::Style;

const CONFIG: &str = "/srv/loop/cli-config.yaml";

fn config(deliver: &[&str], credentials: &[&str]) -> Config {
    Config {
        path: CONFIG.into(),
        state_root: "/srv/loop".into(),
        instance: Some("prod".into()),
        env: EnvSettings {
            file: Some("/srv/loop/.env".into()),
            credentials: credentials.iter().map(|s| s.to_string()).collect(),
            deliver: deliver.iter().map(|s| s.to_string()).collect(),
            ..EnvSettings::default()
        },
        routing: Routing::default(),
    }
}

fn policy(deliver: &[&str]) -> Policy {
    let entries = parse(b"SLACK_BOT_TOKEN=new-token\nGH_TOKEN=gh-current\n").unwrap();
    let file = EnvFile {
        path: PathBuf::from("/srv/loop/.env"),
        entries,
    };
    Policy::new(&config(deliver, &["AWS_SECRET"]), Some(file)).unwrap()
}

fn work_item(n: u32) -> ManagedSession {
    ManagedSession::new(
        SessionKey::work_item(&format!("github:octo/repo#{n}")).unwrap(),
        format!("loop-github-octo-repo-{n}"),
        true,
        Fingerprint::of(format!("record-{n}").as_bytes()),
        Default::default(),
        None,
    )
}

fn pane(session: &str, pid: i32, dead: bool) -> Pane {
    Pane {
        session: session.into(),
        pane_id: format!("%{pid}"),
        pid,
        dead,
        attached: 0,
        command: PaneCommand::Launcher,
        launched_for: None,
    }
}

/// An environment that satisfies the identifiers for work item `n`.
fn identified(n: u32, extra: &[(&str, &str)]) -> ProcessEnv {
    let reference = format!("github:octo/repo#{n}");
    let mut pairs: Vec<(String, Vec<u8>)> = vec![
        ("THE_LOOP_WORK_ITEM".into(), reference.into_bytes()),
        ("THE_LOOP_CLI_CONFIG".into(), CONFIG.as_bytes().to_vec()),
        ("THE_LOOP_INSTANCE".into(), b"prod".to_vec()),
        ("PATH".into(), b"/usr/bin".to_vec()),
    ];
    pairs.extend(
        extra
            .iter()
            .map(|(k, v)| (k.to_string(), v.as_bytes().to_vec())),
    );
    ProcessEnv::from_pairs(pairs)
}

/// The pure computation over an observation of just these parts.
fn plan_of(
    policy: &Policy,
    sessions: &[ManagedSession],
    fleet: &FleetView,
    envs: &BTreeMap<i32, EnvRead>,
    targets: &Targets,
) -> the_loop::plan::Plan {
    let processes = envs
        .iter()
        .map(|(pid, env)| (*pid, HarnessProcess::of_env(env.clone())))
        .collect();
    let observation = Observation::of(sessions.to_vec(), fleet.clone(), processes);
    compute(policy, &observation, targets)
}

fn fleet_of(panes: Vec<Pane>) -> FleetView {
    FleetView::Answered(Fleet::from_panes(panes))
}

/// A pane's environment as a harness the-loop started holds it, carrying
/// `work_item`'s ref.
fn with_ref(work_item: &str) -> EnvRead {
    EnvRead::Read(ProcessEnv::from_pairs(vec![
        ("THE_LOOP_CLI_CONFIG", CONFIG.as_bytes().to_vec()),
        ("THE_LOOP_INSTANCE", b"prod".to_vec()),
        ("THE_LOOP_WORK_ITEM", work_item.as_bytes().to_vec()),
    ]))
}

/// One session of every kind: the records, their panes and what each
/// harness holds.
fn every_kind_world() -> (Vec<ManagedSession>, Vec<Pane>, BTreeMap<i32, EnvRead>) {
    let mut closed = work_item(4);
    closed.record_live = false;
    let standing = ManagedSession::new(
        SessionKey::standing("triage").unwrap(),
        "loop-standing-triage".into(),
        true,
        Fingerprint::of(b"standing"),
        Default::default(),
        None,
    );
    let sessions = vec![
        work_item(1),
        work_item(2),
        work_item(3),
        closed,
        work_item(5),
        work_item(6),
        standing,
    ];
    let panes = vec![
        pane("loop-github-octo-repo-1", 101, false),
        pane("loop-github-octo-repo-2", 102, false),
        pane("loop-github-octo-repo-3", 103, true),
        pane("loop-github-octo-repo-4", 104, false),
        pane("loop-github-octo-repo-5", 105, false),
        pane("loop-github-octo-repo-6", 106, false),
        pane("loop-standing-triage", 107, false),
        pane("loop-stranger", 108, false),
        pane("work", 109, false),
    ];
    let mut envs = BTreeMap::new();
    // 1: the reporter's case, a retired token.
    envs.insert(
        101,
        EnvRead::Read(identified(1, &[("SLACK_BOT_TOKEN", "old-token")])),
    );
    // 2: exposed: holds exactly the file's current value, and a credential not in the file.
    envs.insert(
        102,
        EnvRead::Read(identified(
            2,
            &[("GH_TOKEN", "gh-current"), ("AWS_SECRET", "aws")],
        )),
    );
    // 5: clean.
    envs.insert(105, EnvRead::Read(identified(5, &[])));
    // 6: unreadable.
    envs.insert(
        106,
        EnvRead::Unverified("permission denied reading the process environment".into()),
    );
    // standing: a pane that carries a work item's ref may be running that
    // work item's conversation (two identities, one tmux name), so it is
    // left alone and named, never respawned as the standing session.
    envs.insert(107, with_ref("github:octo/repo#9"));
    (sessions, panes, envs)
}

#[test]
fn every_kind_of_session_in_one_plan() {
    let policy = policy(&[]);
    let (sessions, panes, envs) = every_kind_world();
    let fleet = fleet_of(panes);
    let plan = plan_of(&policy, &sessions, &fleet, &envs, &Targets::all());
    assert!(plan.has_drift());
    insta::assert_json_snapshot!("every_kind_json", plan);
    insta::assert_snapshot!("every_kind_text", render_plan(&plan, Style::PLAIN));
}

#[test]
fn delivered_names_must_hold_the_files_value() {
    let policy = policy(&["SLACK_BOT_TOKEN"]);
    let fleet = fleet_of(vec![
        pane("loop-github-octo-repo-1", 101, false),
        pane("loop-github-octo-repo-2", 102, false),
    ]);
    let mut envs = BTreeMap::new();
    envs.insert(
        101,
        EnvRead::Read(identified(1, &[("SLACK_BOT_TOKEN", "old-token")])),
    );
    envs.insert(102, EnvRead::Read(identified(2, &[])));
    let plan = plan_of(
        &policy,
        &[work_item(1), work_item(2)],
        &fleet,
        &envs,
        &Targets::all(),
    );
    insta::assert_snapshot!(render_plan(&plan, Style::PLAIN));
    let changes: Vec<_> = plan
        .sessions
        .iter()
        .map(|s| (s.label().to_owned(), s.changes.clone()))
        .collect();
    insta::assert_debug_snapshot!(changes);
}

#[test]
fn unknown_tmux_is_never_absence_and_never_drift() {
    let plan = plan_of(
        &policy(&[]),
        &[work_item(1)],
        &FleetView::Unknown("tmux did not answer within 5s".into()),
        &BTreeMap::new(),
        &Targets::all(),
    );
    assert!(!plan.has_drift());
    assert_eq!(plan.sessions[0].probe, the_loop::observed::Probe::Unknown);
    assert!(plan.sessions[0].is_unverified());
    // Issue 35: blind is an error, with its cause, never a clean plan.
    let failed = plan.observation_failed.as_ref().expect("blind");
    assert_eq!(failed.cause, "tmux did not answer within 5s");
    assert_eq!(failed.sessions, ["github:octo/repo#1"]);
    insta::assert_snapshot!(render_plan(&plan, Style::PLAIN));
}

#[test]
fn targets_select_sessions_and_hide_unmanaged_ones() {
    let fleet = fleet_of(vec![
        pane("loop-github-octo-repo-1", 101, false),
        pane("loop-github-octo-repo-2", 102, false),
        pane("loop-x", 103, false),
    ]);
    let mut envs = BTreeMap::new();
    envs.insert(101, EnvRead::Read(identified(1, &[])));
    envs.insert(102, EnvRead::Read(identified(2, &[])));
    let plan = plan_of(
        &policy(&[]),
        &[work_item(1), work_item(2)],
        &fleet,
        &envs,
        &Targets(vec!["github:octo/repo#2".into()]),
    );
    let labels: Vec<&str> = plan.sessions.iter().map(|s| s.label()).collect();
    assert_eq!(labels, ["github:octo/repo#2"]);
}

#[test]
fn two_records_aliasing_one_tmux_name_act_once() {
    let aliasing = |reference: &str| {
        let n = work_item(1);
        ManagedSession::new(
            SessionKey::work_item(reference).unwrap(),
            "loop-github-octo-foo_js-1".into(),
            n.record_live,
            n.record_fingerprint,
            n.facts,
            n.recorded_args,
        )
    };
    let dotted = aliasing("github:octo/foo.js#1");
    let underscored = aliasing("github:octo/foo_js#1");
    let fleet = fleet_of(vec![pane("loop-github-octo-foo_js-1", 101, false)]);
    let mut envs = BTreeMap::new();
    envs.insert(
        101,
        EnvRead::Read(ProcessEnv::from_pairs(vec![(
            "SLACK_BOT_TOKEN",
            b"old".to_vec(),
        )])),
    );
    let plan = plan_of(
        &policy(&[]),
        &[dotted, underscored],
        &fleet,
        &envs,
        &Targets::all(),
    );
    let actions: Vec<_> = plan
        .sessions
        .iter()
        .map(|s| {
            (
                s.label(),
                s.action,
                s.reason.as_ref().map(ToString::to_string),
            )
        })
        .collect();
    insta::assert_debug_snapshot!(actions);
}

#[test]
fn colour_only_when_asked() {
    let fleet = fleet_of(vec![pane("loop-github-octo-repo-1", 101, false)]);
    let mut envs = BTreeMap::new();
    envs.insert(
        101,
        EnvRead::Read(identified(1, &[("SLACK_BOT_TOKEN", "old-token")])),
    );
    let plan = plan_of(
        &policy(&[]),
        &[work_item(1)],
        &fleet,
        &envs,
        &Targets::all(),
    );
    assert!(render_plan(&plan, Style { color: true }).contains("\x1b["));
    assert!(!render_plan(&plan, Style::PLAIN).contains('\x1b'));
}

#[test]
fn no_value_reaches_plan_output() {
    let fleet = fleet_of(vec![pane("loop-github-octo-repo-1", 101, false)]);
    let mut envs = BTreeMap::new();
    envs.insert(
        101,
        EnvRead::Read(identified(
            1,
            &[("SLACK_BOT_TOKEN", "old-token"), ("GH_TOKEN", "gh-current")],
        )),
    );
    let plan = plan_of(
        &policy(&["GH_TOKEN"]),
        &[work_item(1)],
        &fleet,
        &envs,
        &Targets::all(),
    );
    let text = render_plan(&plan, Style::PLAIN)
        + &serde_json::to_string(&plan).unwrap()
        + &format!("{plan:?}");
    for value in ["old-token", "gh-current", "new-token"] {
        assert!(!text.contains(value), "{value} leaked");
    }
}

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
