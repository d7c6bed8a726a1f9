//! The pure core of planning: given a policy, the registry's sessions and
//! what tmux and /proc reported, the plan and its rendering. No tmux here;
//! the integration tests cover the shell around it.

mod saved_plans;

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
