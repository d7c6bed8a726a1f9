//! The fleet after the canary, as a two-stage pipeline.
//!
//! `--parallelism` bounds how many sessions are in flight at once: a
//! session takes a slot when its harness is about to be ended and gives it
//! back only once its new process is verified. So at most `parallelism`
//! sessions are ever disrupted and unverified together (kubectl's
//! `maxUnavailable`). A respawned session waits out `resumeProbeSeconds` in
//! a [`DeadlineQueue`] and is probed when it falls due, by a second set of
//! threads that only read (one tmux query and `/proc`), so the probe waits
//! of the sessions in flight overlap.
//!
//! The roll stops at the first failure, as `kubectl rollout` does: once a
//! respawned session fails (mismatch, resume failed), no new respawn
//! starts; the sessions already in flight are still probed and verified;
//! the rest are reported "not attempted". With `--parallelism 1` that means
//! nothing after the failed session is touched. It stops the same way once
//! the env file is seen changed since the plan read it (a session
//! `superseded`, or one not started for it: see [`super::roll`]), and
//! Ctrl-C (or SIGHUP) stops new respawns the same way.

use super::deadline::{CloseOnDrop, DeadlineQueue};
use super::interrupt;
use super::report::{not_attempted, SessionReport, Stop};
use super::roll::{Respawn, Respawned, Roller};
use crate::desired::policy::Identity;
use crate::harness::resumable::Resumable;
use crate::plan::SessionPlan;
use std::sync::{Condvar, Mutex};

/// One session to roll, with its place in the plan.
pub struct Job<'a> {
    pub index: usize,
    pub plan: &'a SessionPlan,
    pub identity: Identity,
    pub resumable: Resumable,
}

/// Counts the sessions in flight: taken before the harness is ended,
/// given back after verification.
struct Slots {
    free: Mutex<usize>,
    changed: Condvar,
}

impl Slots {
    fn new(count: usize) -> Self {
        Slots {
            free: Mutex::new(count),
            changed: Condvar::new(),
        }
    }

    fn take(&self) {
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        while *free == 0 {
            free = self.changed.wait(free).unwrap_or_else(|e| e.into_inner());
        }
        *free -= 1;
    }

    fn give(&self) {
        *self.free.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        self.changed.notify_one();
    }
}

/// Why no new respawn may start, once one is known.
fn stop_reason(stopped: &Mutex<Option<Stop>>) -> Option<Stop> {
    if let Some(reason) = stopped.lock().unwrap_or_else(|e| e.into_inner()).clone() {
        return Some(reason);
    }
    interrupt::requested().then_some(Stop::Interrupted)
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
    let slots = Slots::new(workers);
    let stopped: Mutex<Option<Stop>> = Mutex::new(None);
    let done = Mutex::new(Vec::new());
    // Records a finished session; a failed respawn stops the roll before its
    // slot is given back, so no waiting respawner can slip past it.
    let finish = |index: usize, report: SessionReport| {
        if let Some(stop) = report.stop_after() {
            stopped
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get_or_insert(stop);
        }
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
                    slots.give();
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
                        slots.take();
                        if let Some(reason) = stop_reason(&stopped) {
                            finish(job.index, not_attempted(job.plan, reason));
                            slots.give();
                            continue;
                        }
                        match roller.respawn(job.plan, &job.identity, job.resumable) {
                            Respawn::Waiting(respawned) => {
                                probes.push(respawned.probe_at, (job.index, respawned))
                            }
                            Respawn::Done(report) => {
                                finish(job.index, report);
                                slots.give();
                            }
                        }
                    }
                });
            }
        });
    });
    done.into_inner().unwrap_or_else(|e| e.into_inner())
}
