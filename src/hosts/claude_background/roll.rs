//! The order of a roll of the background host, as of panes
//! (`apply/fleet.rs`): the daemon first, then one session alone (the
//! canary: its new worker verified before anything else is touched), then
//! the rest, at most `parallelism` at once; each only at its safe point
//! (idle), looked at again every `LOOK_EVERY` until the drain ends; a
//! Ctrl-C starts nothing more. Each step is journalled before it is taken
//! (`registry::host_roll`), so a roll cut short is said by the next
//! plan.

use super::client::{ensure_daemon, HostClient};
use super::observe as host;
use super::respawn::{report_of, respawn};
use crate::events::host::{
    HostOutcome, HostRollReport, HostSessionReport, LayerOutcome, LayerReport,
};
use crate::harness::claude_background::BackgroundStatus;
use crate::host_kind::Host;
use crate::hosts::interface::HostRoll;
use crate::plan::host::{HostAction, HostPlan, HostSessionPlan};
use crate::registry::host_roll::{self as journal, HostRollJournal};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How often the host is looked at while a held session is awaited.
const LOOK_EVERY: Duration = Duration::from_millis(500);

/// Why a session was not respawned after a Ctrl-C.
const INTERRUPTED: &str = "interrupted: the roll started no further respawn";

/// The journal of this roll, written before each step it names.
struct Journal<'a> {
    state_root: &'a Path,
    entry: Mutex<HostRollJournal>,
}

impl Journal<'_> {
    /// Applies `change` and writes it; an error means the step must not be
    /// taken.
    fn note(&self, change: impl FnOnce(&mut HostRollJournal)) -> Result<(), String> {
        let mut entry = self.entry.lock().unwrap_or_else(|e| e.into_inner());
        change(&mut entry);
        journal::save(self.state_root, Host::ClaudeBackground, &entry).map_err(|e| {
            format!(
                "the roll's journal ({}) could not be written: {}; nothing was respawned",
                journal::path(self.state_root, Host::ClaudeBackground).display(),
                crate::fsutil::IoKind(e.kind())
            )
        })
    }
}

/// Rolls the host's managed drifted sessions, waiting for each one's safe
/// point until the drain has passed. Nothing to respawn: nothing is done.
pub fn roll(client: &HostClient, host_plan: &HostPlan, how: HostRoll) -> HostRollReport {
    let mut pending: Vec<HostSessionPlan> = host_plan
        .sessions
        .iter()
        .filter(|s| s.action == HostAction::Respawn)
        .cloned()
        .collect();
    if pending.is_empty() {
        // Nothing drifted is left: what an earlier roll left unsettled
        // is settled.
        let _ = journal::save(
            client.state_root,
            Host::ClaudeBackground,
            &HostRollJournal::default(),
        );
        return HostRollReport::nothing(Host::ClaudeBackground);
    }
    let config_dir = &host_plan.location;
    // Each roll journals its own steps: what an earlier one left is what
    // this one's plan read, and this one rolls it again.
    let journal = Journal {
        state_root: client.state_root,
        entry: Mutex::new(HostRollJournal {
            since: crate::clock::now_utc(),
            ..HostRollJournal::default()
        }),
    };
    let begun = journal.note(|j| {
        j.layer_stopped = host_plan
            .layer
            .as_ref()
            .map(|d| d.pid)
            .filter(|_| host_plan.layer_drifts());
    });
    let daemon = match begun {
        Ok(()) => ensure_daemon(client, config_dir, host_plan),
        Err(why) => LayerReport {
            outcome: LayerOutcome::Refused,
            old_pid: host_plan.layer.as_ref().map(|d| d.pid),
            new_pid: None,
            detail: Some(why),
        },
    };
    if daemon.outcome == LayerOutcome::Refused {
        let why = daemon.detail.clone();
        return HostRollReport {
            host: Host::ClaudeBackground,
            layer: Some(daemon),
            sessions: pending
                .into_iter()
                .map(|s| not_attempted(&s, why.clone()))
                .collect(),
        };
    }
    let _ = journal.note(|j| j.layer_stopped = None);
    let deadline = Instant::now().checked_add(how.drain);
    let mut reports = Vec::new();
    // What the host last said of each session still held.
    let mut last: BTreeMap<String, BackgroundStatus> = BTreeMap::new();
    let mut canary_passed = false;
    loop {
        let seen = host::observe(client.claude, config_dir);
        let mut ready = Vec::new();
        let mut still = Vec::new();
        for session in pending {
            let now = seen.sessions.iter().find(|s| s.listed.id == session.id);
            match now.map(|s| s.listed.status) {
                Some(BackgroundStatus::Idle) => ready.push(session),
                status @ (Some(BackgroundStatus::Busy | BackgroundStatus::Waiting) | None)
                    if seen.failed.is_some() || now.is_some() =>
                {
                    match status {
                        Some(status) => last.insert(session.id.clone(), status),
                        None => last.remove(&session.id),
                    };
                    still.push(session)
                }
                _ => reports.push(report_of(
                    &session,
                    HostOutcome::Deferred,
                    Some("stopped meanwhile: it holds nothing now, and resumes on the daemon that runs then".into()),
                )),
            }
        }
        if crate::apply::interrupt::requested() {
            let why = Some(INTERRUPTED.to_owned());
            reports.extend(
                ready
                    .into_iter()
                    .chain(still)
                    .map(|s| not_attempted(&s, why.clone())),
            );
            pending = Vec::new();
            break;
        }
        let mut ready = ready.into_iter();
        if !canary_passed {
            if let Some(canary) = ready.next() {
                let label = canary
                    .reference
                    .clone()
                    .unwrap_or_else(|| canary.id.clone());
                let report = respawn_journalled(client, config_dir, &journal, &canary);
                let failed = report.outcome != HostOutcome::Restarted;
                reports.push(report);
                if failed {
                    let why = Some(format!(
                        "the canary {label} failed: nothing else was respawned"
                    ));
                    reports.extend(ready.chain(still).map(|s| not_attempted(&s, why.clone())));
                    pending = Vec::new();
                    break;
                }
                canary_passed = true;
            }
        }
        let rest: Vec<HostSessionPlan> = ready.collect();
        reports.extend(respawn_each(
            client,
            config_dir,
            &journal,
            &rest,
            how.parallelism,
        ));
        pending = still;
        let over = deadline.is_none_or(|d| Instant::now() >= d);
        if pending.is_empty() || over {
            break;
        }
        std::thread::sleep(LOOK_EVERY);
    }
    for session in pending {
        let why = match last.get(&session.id) {
            Some(BackgroundStatus::Waiting) => "held: it asks a person",
            Some(_) => "held: a turn runs (the host's respawn would cut it)",
            None => "held: the host could not be read, so its safe point is unknown",
        };
        reports.push(report_of(&session, HostOutcome::Deferred, Some(why.into())));
    }
    reports.sort_by(|a, b| a.id.cmp(&b.id));
    HostRollReport {
        host: Host::ClaudeBackground,
        layer: Some(daemon),
        sessions: reports,
    }
}

/// Respawns `sessions`, at most `parallelism` at once, in their order.
fn respawn_each(
    client: &HostClient,
    config_dir: &Path,
    journal: &Journal,
    sessions: &[HostSessionPlan],
    parallelism: usize,
) -> Vec<HostSessionReport> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let done = Mutex::new(Vec::with_capacity(sessions.len()));
    let workers = parallelism.clamp(1, sessions.len().max(1));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some(session) = sessions.get(i) else {
                    return;
                };
                let report = if crate::apply::interrupt::requested() {
                    not_attempted(session, Some(INTERRUPTED.into()))
                } else {
                    respawn_journalled(client, config_dir, journal, session)
                };
                done.lock().unwrap_or_else(|e| e.into_inner()).push(report);
            });
        }
    });
    done.into_inner().unwrap_or_else(|e| e.into_inner())
}

/// One respawn, journalled before it is asked for and cleared once it is
/// decided.
fn respawn_journalled(
    client: &HostClient,
    config_dir: &Path,
    journal: &Journal,
    session: &HostSessionPlan,
) -> HostSessionReport {
    if let Err(why) = journal.note(|j| j.respawning.push(session.id.clone())) {
        return not_attempted(session, Some(why));
    }
    let report = respawn(client, config_dir, session);
    if report.outcome == HostOutcome::Restarted {
        let _ = journal.note(|j| j.respawning.retain(|id| *id != session.id));
    }
    report
}

fn not_attempted(session: &HostSessionPlan, why: Option<String>) -> HostSessionReport {
    report_of(session, HostOutcome::NotAttempted, why)
}
