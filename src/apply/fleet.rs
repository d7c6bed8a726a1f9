//! Rolling a fleet: select from the plan, pre-check, a canary alone, then
//! the rest through the [`pipeline`](super::pipeline), where parallelism
//! bounds the respawns and probe waits overlap. Ctrl-C stops new respawns only.

use super::failures;
use super::interrupt;
use super::pipeline::{roll_all, Job};
use super::report::{not_attempted, Outcome, Report, SessionReport, Stop};
use super::roll::Roller;
use crate::desired::policy::Identity;
use crate::events::{Event, Subject};
use crate::harness::resumable::Resumable;
use crate::plan::gather::Observed;
use crate::plan::ownership::decide;
use crate::plan::roll_order;
use crate::plan::safe_point::Mode;
use crate::plan::{Action, Plan, SessionPlan};
use crate::registry::journal::Journal;
use crate::registry::Registry;

#[derive(Debug, Clone, Copy)]
pub struct RollOptions {
    pub mode: Mode,
    pub parallelism: usize,
    pub dry_run: bool,
    /// The sessions were named: one whose harness exited when an earlier
    /// roll resumed it is tried again rather than left alone
    /// ([`super::failures`]).
    pub retry_failed: bool,
}

pub const DEFAULT_PARALLELISM: u16 = 8;

struct Candidate {
    index: usize,
    identity: Identity,
    resumable: Resumable,
}

fn why(plan: &SessionPlan) -> String {
    if plan.changes.is_empty() && plan.args_changes.is_empty() {
        "restart requested".into()
    } else {
        let args = plan.args_changes.iter().map(|c| {
            let field = serde_json::to_value(c.name)
                .ok()
                .and_then(|v| v.as_str().map(String::from))
                .unwrap_or_default();
            format!("{field} args")
        });
        let names: Vec<String> = plan
            .changes
            .iter()
            .map(|c| {
                format!(
                    "{} {}",
                    c.name,
                    serde_json::to_value(c.case)
                        .ok()
                        .and_then(|v| v.as_str().map(String::from))
                        .unwrap_or_default()
                )
            })
            .chain(args)
            .collect();
        names.join(", ")
    }
}

/// Says that `session` is left alone, and why, as an event and as its
/// report. One place, so a session the roll will not touch is said the same
/// way whatever the reason: no conversation to resume safely, a pane not
/// the record's, or a harness that exited when an earlier roll resumed it.
fn leave_alone(roller: &Roller, session: &SessionPlan, reason: String) -> SessionReport {
    roller.events.emit(Event::SessionLeftAlone {
        subject: Subject::planned(session.reference.clone(), session.standing.clone()),
        reason: reason.clone(),
    });
    SessionReport::from_plan(session, Outcome::LeftAlone, Some(reason))
}

/// Runs the roll and returns the report, in plan order. `progress` is
/// called as each session finishes.
pub fn execute(
    roller: &Roller,
    registry: &Registry,
    plan: &Plan,
    observed: &Observed,
    options: RollOptions,
    progress: &(dyn Fn(&SessionReport) + Sync),
) -> Report {
    let mut slots: Vec<Option<SessionReport>> = vec![None; plan.sessions.len()];
    let mut candidates = Vec::new();
    // Left alone because their harness exited when an earlier roll resumed them.
    let mut failed_before: Vec<String> = Vec::new();
    for (index, session) in plan.sessions.iter().enumerate() {
        let selected = match (session.action, options.mode) {
            (Action::Respawn | Action::Resume, _) | (Action::None, Mode::Restart) => true,
            (Action::None, Mode::Apply) => {
                // Up to date and live: whatever an earlier roll meant to do
                // is done, so its journal entry (if any) is stale.
                if !options.dry_run {
                    Journal::under(&roller.config.state_root).clear(&session.tmux_target);
                }
                slots[index] = Some(SessionReport::from_plan(session, Outcome::UpToDate, None));
                false
            }
            (Action::Skip, _) => {
                slots[index] = Some(SessionReport::from_plan(
                    session,
                    Outcome::Skipped,
                    session.reason.as_ref().map(ToString::to_string),
                ));
                false
            }
        };
        if !selected {
            continue;
        }
        let Some((identity, verdict)) = decide(registry, session, observed) else {
            continue;
        };
        let failed = verdict.as_ref().ok().and_then(|resumable| {
            let root = &roller.config.state_root;
            failures::holding(root, session, resumable, options.dry_run)
        });
        match (verdict, failed) {
            (Ok(_), Some(failure)) if !options.retry_failed => {
                let reason = failures::left_alone(session, &failure);
                slots[index] = Some(leave_alone(roller, session, reason));
                failed_before.push(session.label().to_owned());
            }
            (Ok(resumable), _) if options.dry_run => {
                let mut report =
                    SessionReport::from_plan(session, Outcome::WouldRestart, Some(why(session)));
                report.harness_session_id = Some(resumable.session_id);
                slots[index] = Some(report);
            }
            (Ok(resumable), _) => candidates.push(Candidate {
                index,
                identity,
                resumable,
            }),
            (Err(reason), _) => slots[index] = Some(leave_alone(roller, session, reason)),
        }
    }
    for report in slots.iter().flatten() {
        progress(report);
    }

    // Interrupted respawns first: their panes are already dead, and
    // bringing them back comes before disrupting anything else. Then the
    // harnesses that started earliest, holding the oldest values: a roll a
    // newer value cut short goes on where it stopped, not from the head of
    // the plan again (`plan::roll_order`).
    let started = |session: &SessionPlan| {
        let pid = session.pane_pid?;
        observed.processes.get(&pid)?.start
    };
    roll_order::sort(&mut candidates, |c| {
        let session = &plan.sessions[c.index];
        (session, started(session))
    });
    let mut queue = candidates.into_iter();
    // Canary: roll one at a time until one is really respawned. If it fails,
    // the rest are not attempted; and none is taken at all once enough
    // earlier canaries could not resume (`failures::STOP_AFTER`).
    let mut canary_stop: Option<Stop> = (failed_before.len() >= failures::STOP_AFTER)
        .then(|| Stop::ResumesFailed(failed_before.clone()));
    let canaries = if canary_stop.is_some() {
        None
    } else {
        Some(queue.by_ref())
    };
    for candidate in canaries.into_iter().flatten() {
        if interrupt::requested() {
            slots[candidate.index] = Some(not_attempted(
                &plan.sessions[candidate.index],
                Stop::Interrupted,
            ));
            continue;
        }
        let report = roller.roll(
            &plan.sessions[candidate.index],
            &candidate.identity,
            candidate.resumable,
        );
        progress(&report);
        let respawned = report.respawned();
        let stop = report.stop_after().map(|stop| match stop {
            Stop::AfterFailure(label) => Stop::CanaryFailed(label),
            other => other,
        });
        slots[candidate.index] = Some(report);
        if stop.is_some() {
            canary_stop = stop;
            break;
        }
        if respawned {
            break;
        }
    }
    let rest: Vec<Candidate> = queue.collect();
    if let Some(stop) = canary_stop {
        for c in rest {
            slots[c.index] = Some(not_attempted(&plan.sessions[c.index], stop.clone()));
        }
    } else {
        let jobs = rest
            .into_iter()
            .map(|c| Job {
                index: c.index,
                plan: &plan.sessions[c.index],
                identity: c.identity,
                resumable: c.resumable,
            })
            .collect();
        for (index, report) in roll_all(roller, jobs, options.parallelism, progress) {
            slots[index] = Some(report);
        }
    }
    Report {
        format_version: "1".into(),
        dry_run: options.dry_run,
        interrupted: interrupt::requested(),
        sessions: slots.into_iter().flatten().collect(),
        tmux_env_scrub: None,
        detached_residue: Vec::new(),
        env_file_changed: None,
        observation_failed: plan.observation_failed.clone(),
        hosts: Vec::new(),
    }
}
