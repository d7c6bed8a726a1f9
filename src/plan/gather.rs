//! The imperative half of planning: read the registry, ask tmux once, and
//! read `/proc` for the panes of managed sessions only.

use super::compute::{compute, ManagedSession, Targets};
use super::model::{Action, CorruptRecordNote, Plan, SessionKind};
use super::residue::{self, Residue};
use crate::desired::policy::Policy;
use crate::harness::models::{resolve, Resolved};
use crate::observed::{fleet, proc_env, EnvRead, FleetView, Probe};
use crate::registry::{standing_tmux_name, Registry, SessionKey};
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
        // Listings only hold records whose ref parses.
        let Ok(r) = record.work_item_ref() else {
            continue;
        };
        let target = record.tmux_target().unwrap_or_else(|| r.tmux_name());
        sessions.push(ManagedSession::new(
            SessionKey::WorkItem(r),
            target,
            record.is_live(),
            record_fingerprint(record),
            record.into(),
            record.stored_launch_args(),
        ));
    }
    for (_, record) in &standing.records {
        sessions.push(ManagedSession::new(
            SessionKey::Standing(record.name.clone()),
            record
                .tmux_target()
                .unwrap_or_else(|| standing_tmux_name(&record.name)),
            record.is_live(),
            record_fingerprint(record),
            record.into(),
            record.stored_launch_args(),
        ));
    }
    let corrupt = items
        .corrupt
        .into_iter()
        .chain(standing.corrupt)
        .map(CorruptRecordNote::from)
        .collect();
    (sessions, corrupt)
}

/// Lets a saved plan notice that a record changed since.
fn record_fingerprint<T: serde::Serialize>(record: &T) -> Fingerprint {
    Fingerprint::of(&serde_json::to_vec(record).unwrap_or_default())
}

/// Reads the environment of each managed session's live harness pane.
/// Unmanaged `loop-*` sessions are never read.
pub fn read_environments(fleet: &FleetView, sessions: &[ManagedSession]) -> BTreeMap<i32, EnvRead> {
    let launcher = std::env::current_exe().ok();
    let pids: Vec<i32> = sessions
        .iter()
        .filter(|s| fleet.probe(&s.tmux_target) == Probe::Live)
        .filter_map(|s| fleet.harness_pane(&s.tmux_target))
        .filter(|p| !p.dead)
        .map(|pane| pane.pid)
        .collect();
    read_in_parallel(&pids, |pid| {
        read_harness_environment(pid, launcher.as_deref())
    })
}

/// Fewer reads than this per thread are not worth a thread.
const READS_PER_THREAD: usize = 64;

/// Each `/proc` read costs tens of microseconds of kernel time (the
/// environment is copied out of the other process's memory), so hundreds of
/// sessions are split across the cores.
fn read_in_parallel(pids: &[i32], read: impl Fn(i32) -> EnvRead + Sync) -> BTreeMap<i32, EnvRead> {
    let wanted = pids.len().div_ceil(READS_PER_THREAD);
    // Asking for the core count reads cgroup files, so only when it matters.
    let threads = match wanted {
        0 | 1 => 1,
        _ => std::thread::available_parallelism().map_or(1, |n| n.get().min(wanted)),
    };
    if threads == 1 {
        return pids.iter().map(|&pid| (pid, read(pid))).collect();
    }
    let chunk = pids.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let workers: Vec<_> = pids
            .chunks(chunk)
            .map(|part| {
                let read = &read;
                scope.spawn(move || part.iter().map(|&pid| (pid, read(pid))).collect::<Vec<_>>())
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| {
                w.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    })
}

/// The harness's environment, refusing to read the launcher's: until the
/// launcher has exec'd, the pid still holds the tmux server's environment.
pub fn read_harness_environment(pid: i32, launcher: Option<&std::path::Path>) -> EnvRead {
    read_harness(pid, launcher).unwrap_or_else(|StillLauncher| {
        EnvRead::Unverified("the launcher has not started the harness yet".into())
    })
}

/// The pane's process is still the launcher: it has not exec'd the harness
/// yet, so there is no harness environment to read (a respawn waits it out).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StillLauncher;

/// Like [`read_harness_environment`], but says apart that the launcher has
/// not started the harness yet, for a caller that waits for it.
pub fn read_harness(
    pid: i32,
    launcher: Option<&std::path::Path>,
) -> Result<EnvRead, StillLauncher> {
    if !cfg!(target_os = "linux") {
        return Ok(proc_env::read_environ(pid));
    }
    let process = match proc_env::ProcessDir::open(pid) {
        Ok(process) => process,
        Err(reason) => return Ok(EnvRead::Unverified(reason)),
    };
    if is_launcher(&process, launcher) {
        return Err(StillLauncher);
    }
    Ok(process.environ())
}

/// The launcher is recognised by its image (this binary) or, when another
/// the-loop binary started the pane, by its argv shape (`… exec --config …`).
fn is_launcher(process: &proc_env::ProcessDir, launcher: Option<&std::path::Path>) -> bool {
    let same_image = launcher.is_some_and(|l| process.executable().is_ok_and(|exe| exe == l));
    same_image
        || process.cmdline().is_ok_and(|argv| {
            argv.get(1).map(String::as_str) == Some(crate::runner::launch::LAUNCHER_SUBCOMMAND)
                && argv.get(2).map(String::as_str) == Some("--config")
        })
}

/// Everything a plan needs, observed now.
pub struct Observed {
    pub sessions: Vec<ManagedSession>,
    pub corrupt: Vec<CorruptRecordNote>,
    pub fleet: FleetView,
    pub envs: BTreeMap<i32, EnvRead>,
}

pub fn observe(registry: &Registry, tmux: &Tmux) -> Observed {
    let mut observed = observe_sessions(registry, tmux);
    observed.envs = read_environments(&observed.fleet, &observed.sessions);
    observed
}

/// The registry and tmux's one answer, without reading any environment
/// (`envs` is empty): for callers with no env file to compare against.
pub fn observe_sessions(registry: &Registry, tmux: &Tmux) -> Observed {
    // tmux answers from its own process, so the registry is read meanwhile.
    let (fleet, (sessions, corrupt)) = std::thread::scope(|scope| {
        let fleet = scope.spawn(|| fleet::observe(tmux));
        let registered = managed_sessions(registry);
        let fleet = fleet
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (fleet, registered)
    });
    Observed {
        sessions,
        corrupt,
        fleet,
        envs: BTreeMap::new(),
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
    let (wants, cmdlines) = launch_inputs(&observed.sessions, &plan, policy.models());
    super::args::annotate(&mut plan, &wants, &cmdlines);
    crate::apply::journal::annotate(
        &mut plan,
        &crate::apply::journal::Journal::under(registry.root()).entries(),
    );
    annotate_resumability(&mut plan, registry, &observed.envs);
    plan.residue = Some(residue_now(policy, tmux, &observed.fleet, &plan));
    (plan, observed)
}

/// Marks the sessions a roll would select but leave alone, with the roll's
/// own decision function, so the plan says what `apply` will do.
fn annotate_resumability(plan: &mut Plan, registry: &Registry, envs: &BTreeMap<i32, EnvRead>) {
    for session in plan
        .sessions
        .iter_mut()
        .filter(|s| s.action != Action::Skip)
    {
        session.left_alone = crate::apply::precheck::decide(registry, session, envs)
            .and_then(|(_, verdict)| verdict.err());
    }
    plan.summary = super::compute::summarise(&plan.sessions);
}

/// Residue in tmux's own layers, in one more tmux call whatever the number
/// of sessions. Only the planned managed sessions' environments are read.
pub fn residue_now(policy: &Policy, tmux: &Tmux, fleet: &FleetView, plan: &Plan) -> Residue {
    let pane_pids = match fleet {
        FleetView::Unknown(reason) => {
            return Residue::not_asked(&format!("tmux did not answer the pane listing ({reason})"))
        }
        FleetView::Answered(fleet) => fleet.pane_pids().collect(),
    };
    let mut sessions: Vec<String> = plan
        .sessions
        .iter()
        .filter(|s| s.kind != SessionKind::Unmanaged)
        .filter(|s| matches!(s.probe, Probe::Live | Probe::Dead))
        .map(|s| s.tmux_target.clone())
        .collect();
    sessions.sort();
    sessions.dedup();
    let mut residue = residue::compare(policy, &crate::observed::residue::observe(tmux, &sessions));
    residue.detached = detached_now(policy, &pane_pids);
    residue
}

/// Processes outside the panes (whose pids are `pane_pids`) that a launch
/// under this config started, and what they still hold. One `/proc` pass.
pub fn detached_now(
    policy: &Policy,
    pane_pids: &std::collections::BTreeSet<i32>,
) -> Vec<super::detached::DetachedEntry> {
    if policy.env_file().is_none() {
        // Nothing is withheld or delivered: nothing to look for.
        return Vec::new();
    }
    let found = crate::observed::detached::scan(pane_pids, &|env| policy.launched_here(env));
    super::detached::compare(policy, &found)
}

/// For launch-argument drift: what each session's record resolves to now
/// (only records that stored launch arguments), and the argv of each
/// harness pane. Only sessions whose environment was read are looked at, so
/// only pids of the-loop's own panes are read.
fn launch_inputs(
    sessions: &[ManagedSession],
    plan: &Plan,
    models: &BTreeMap<String, Vec<String>>,
) -> (BTreeMap<String, Resolved>, BTreeMap<i32, Vec<String>>) {
    let recorded: BTreeMap<&str, &crate::harness::LaunchArgs> = sessions
        .iter()
        .filter_map(|s| Some((s.label(), s.recorded_args.as_ref()?)))
        .collect();
    let mut wants = BTreeMap::new();
    let mut cmdlines = BTreeMap::new();
    for session in plan.sessions.iter().filter(|s| s.action != Action::Skip) {
        let (Some(pid), Some(args)) = (session.pane_pid, recorded.get(session.label())) else {
            continue;
        };
        if let Ok(cmdline) = proc_env::cmdline(pid) {
            wants.insert(session.label().to_owned(), resolve(args, models));
            cmdlines.insert(pid, cmdline);
        }
    }
    (wants, cmdlines)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallel_reads_cover_every_pid_once_with_its_own_result() {
        for count in [0, 1, READS_PER_THREAD, READS_PER_THREAD + 1, 1000] {
            let pids: Vec<i32> = (1..=count as i32).collect();
            let reads = read_in_parallel(&pids, |pid| EnvRead::Unverified(format!("pid {pid}")));
            assert_eq!(reads.len(), count);
            for pid in pids {
                assert_eq!(reads[&pid], EnvRead::Unverified(format!("pid {pid}")));
            }
        }
    }
}
