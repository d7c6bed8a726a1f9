//! The fleet after the canary, as a two-stage pipeline.
//!
//! `--parallelism` bounds the disruptive stage: provenance check, SIGTERM
//! and grace period, `respawn-pane`. A respawned session then waits out
//! `resumeProbeSeconds` in a [`DeadlineQueue`] and is probed and verified
//! when it falls due, by a second set of threads that only read (one tmux
//! query and `/proc`). So the probe waits of all sessions overlap: rolling
//! N sessions costs about one probe wait plus N / parallelism respawns,
//! not N / parallelism probe waits.
//!
//! Ctrl-C stops respawns that have not started; every session already
//! respawned is still probed and verified before the report.

use super::deadline::{CloseOnDrop, DeadlineQueue};
use super::interrupt;
use super::precheck::Resumable;
use super::report::{Outcome, SessionReport};
use super::roll::{Respawn, Respawned, Roller};
use crate::desired::policy::Identity;
use crate::plan::SessionPlan;
use std::sync::Mutex;

/// One session to roll, with its place in the plan.
pub struct Job<'a> {
    pub index: usize,
    pub plan: &'a SessionPlan,
    pub identity: Identity,
    pub resumable: Resumable,
}

/// Rolls `jobs` and returns each report with its plan index, in the order
/// they finished. `progress` is called as each session finishes.
pub fn roll_all(
    roller: &Roller,
    jobs: Vec<Job>,
    parallelism: usize,
    progress: &(dyn Fn(&SessionReport) + Sync),
) -> Vec<(usize, SessionReport)> {
    if jobs.is_empty() {
        return Vec::new();
    }
    let workers = parallelism.max(1).min(jobs.len());
    let jobs = Mutex::new(jobs.into_iter());
    let probes: DeadlineQueue<(usize, Respawned)> = DeadlineQueue::new();
    let done = Mutex::new(Vec::new());
    let finish = |index: usize, report: SessionReport| {
        progress(&report);
        done.lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((index, report));
    };
    let next_job = || jobs.lock().unwrap_or_else(|e| e.into_inner()).next();

    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                while let Some((index, respawned)) = probes.pop_due() {
                    finish(index, roller.probe_and_verify(respawned));
                }
            });
        }
        // Closed once every respawner has returned (or panicked), so the
        // probers drain the queue and end.
        let _close = CloseOnDrop(&probes);
        std::thread::scope(|respawners| {
            for _ in 0..workers {
                respawners.spawn(|| {
                    while let Some(job) = next_job() {
                        if interrupt::requested() {
                            finish(job.index, not_attempted(job.plan, "interrupted"));
                            continue;
                        }
                        match roller.respawn(job.plan, &job.identity, job.resumable) {
                            Respawn::Waiting(respawned) => {
                                probes.push(respawned.probe_at, (job.index, respawned))
                            }
                            Respawn::Done(report) => finish(job.index, report),
                        }
                    }
                });
            }
        });
    });
    done.into_inner().unwrap_or_else(|e| e.into_inner())
}

pub fn not_attempted(plan: &SessionPlan, why: &str) -> SessionReport {
    SessionReport::from_plan(plan, Outcome::NotAttempted, Some(why.into()))
}
