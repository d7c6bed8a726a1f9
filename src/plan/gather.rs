//! The imperative half of planning: read the registry, ask tmux once, and
//! read `/proc` for the panes of managed sessions only.

use super::compute::{compute, ManagedSession, Targets};
use super::model::{Action, CorruptRecordNote, Plan};
use crate::desired::policy::{Identity, Policy};
use crate::harness::models::{resolve, Resolved};
use crate::observed::{fleet, proc_env, EnvRead, FleetView, Probe};
use crate::registry::{normalise_tmux_target, standing_tmux_name, tmux_session_name, Registry};
use crate::secret::Fingerprint;
use crate::tmux::Tmux;
use std::collections::BTreeMap;

/// Every registered session, with its tmux name resolved, plus the record
/// files that could not be parsed.
pub fn managed_sessions(registry: &Registry) -> (Vec<ManagedSession>, Vec<CorruptRecordNote>) {
    let items = registry.work_items();
    let standing = registry.standing();
    let mut sessions = Vec::new();
    for (_, record) in &items.records {
        let target = record
            .tmux_target
            .as_deref()
            .filter(|t| !t.is_empty())
            .map(normalise_tmux_target);
        let reference = record.work_item.reference.clone();
        let target =
            target.unwrap_or_else(|| match reference.parse::<crate::registry::WorkItemRef>() {
                Ok(r) => r.tmux_name(),
                Err(_) => tmux_session_name(&reference),
            });
        sessions.push(ManagedSession {
            identity: Identity::WorkItem(reference),
            tmux_target: target,
            record_live: record.status.is_live(),
            record_fingerprint: Fingerprint::of(&serde_json::to_vec(record).unwrap_or_default()),
        });
    }
    for (_, record) in &standing.records {
        let target = record
            .tmux_target
            .as_deref()
            .filter(|t| !t.is_empty())
            .map(normalise_tmux_target);
        sessions.push(ManagedSession {
            identity: Identity::Standing(record.name.clone()),
            tmux_target: target.unwrap_or_else(|| standing_tmux_name(&record.name)),
            record_live: record.status.is_live(),
            record_fingerprint: Fingerprint::of(&serde_json::to_vec(record).unwrap_or_default()),
        });
    }
    let corrupt = items
        .corrupt
        .into_iter()
        .chain(standing.corrupt)
        .map(|c| CorruptRecordNote {
            path: c.path,
            reason: c.reason,
        })
        .collect();
    (sessions, corrupt)
}

/// Reads the environment of each managed session's live harness pane.
/// Unmanaged `loop-*` sessions are never read.
pub fn read_environments(fleet: &FleetView, sessions: &[ManagedSession]) -> BTreeMap<i32, EnvRead> {
    let launcher = std::env::current_exe().ok();
    sessions
        .iter()
        .filter(|s| fleet.probe(&s.tmux_target) == Probe::Live)
        .filter_map(|s| fleet.harness_pane(&s.tmux_target))
        .filter(|p| !p.dead)
        .map(|pane| {
            (
                pane.pid,
                read_harness_environment(pane.pid, launcher.as_deref()),
            )
        })
        .collect()
}

/// The harness's environment, refusing to read the launcher's: until the
/// launcher has exec'd, the pid still holds the tmux server's environment.
pub fn read_harness_environment(pid: i32, launcher: Option<&std::path::Path>) -> EnvRead {
    if let (Some(launcher), Ok(exe)) = (launcher, proc_env::executable(pid)) {
        if exe == launcher {
            return EnvRead::Unverified("the launcher has not started the harness yet".into());
        }
    }
    proc_env::read_environ(pid)
}

/// Everything a plan needs, observed now.
pub struct Observed {
    pub sessions: Vec<ManagedSession>,
    pub corrupt: Vec<CorruptRecordNote>,
    pub fleet: FleetView,
    pub envs: BTreeMap<i32, EnvRead>,
}

pub fn observe(registry: &Registry, tmux: &Tmux) -> Observed {
    let (sessions, corrupt) = managed_sessions(registry);
    let fleet = fleet::observe(tmux);
    let envs = read_environments(&fleet, &sessions);
    Observed {
        sessions,
        corrupt,
        fleet,
        envs,
    }
}

pub fn plan_now(
    policy: &Policy,
    registry: &Registry,
    tmux: &Tmux,
    targets: &Targets,
) -> (Plan, Observed) {
    let observed = observe(registry, tmux);
    let mut plan = compute(
        policy,
        &observed.sessions,
        &observed.fleet,
        &observed.envs,
        targets,
        observed.corrupt.clone(),
    );
    let (wants, cmdlines) = launch_inputs(registry, &plan, policy.models());
    super::args::annotate(&mut plan, &wants, &cmdlines);
    (plan, observed)
}

/// For launch-argument drift: what each session's record resolves to now
/// (only records that stored launch arguments), and the argv of each
/// harness pane. Only sessions whose environment was read are looked at, so
/// only pids of the-loop's own panes are read.
fn launch_inputs(
    registry: &Registry,
    plan: &Plan,
    models: &BTreeMap<String, Vec<String>>,
) -> (BTreeMap<String, Resolved>, BTreeMap<i32, Vec<String>>) {
    let mut wants = BTreeMap::new();
    let mut cmdlines = BTreeMap::new();
    for session in plan.sessions.iter().filter(|s| s.action != Action::Skip) {
        let identity = match (&session.reference, &session.standing) {
            (Some(r), _) => Identity::WorkItem(r.clone()),
            (None, Some(n)) => Identity::Standing(n.clone()),
            (None, None) => continue,
        };
        let Some(pid) = session.pane_pid else {
            continue;
        };
        let Ok(facts) = crate::apply::precheck::load_facts(registry, &identity) else {
            continue;
        };
        if !facts.args_recorded {
            continue;
        }
        if let Ok(cmdline) = proc_env::cmdline(pid) {
            wants.insert(session.label().to_owned(), resolve(&facts.args, models));
            cmdlines.insert(pid, cmdline);
        }
    }
    (wants, cmdlines)
}
