//! Safe points: a roll ends a harness only between turns.
//!
//! An idle (or unknown) session is rolled at once. A busy or waiting one is
//! held and rolled the moment its own hooks say its turn ended, within
//! `--drain-timeout`; what is still in a turn at the deadline is reported
//! `deferred` and left as it was. A session a tmux client is attached to
//! is someone's live work: it is deferred at once unless
//! `--include-attached`. `--now` rolls busy sessions anyway, and says so.
//!
//! The wait is one watch on the activity directory for the whole fleet
//! ([`Waker`]), not a loop per session: each wake-up re-reads the
//! directory once and rolls every held session whose turn has ended.

use super::fleet::{execute, RollOptions};
use super::interrupt;
use super::report::{not_attempted, Outcome, Report, SessionReport, Stop};
use super::roll::Roller;
use super::screen::{self, HookVerdict};
use crate::activity::waker::Waker;
use crate::activity::{store, Activity, HarnessActivity};
use crate::events::{Event, Subject};
use crate::harness::turn_screen::TurnScreen;
use crate::plan::gather::Observed;
use crate::plan::safe_point::Drain;
use crate::plan::{Plan, SafePoint, SessionPlan};
use crate::registry::Registry;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

/// What the operator is told while sessions are held.
pub trait Waiting: Sync {
    /// `held` are still in a turn; the drain gives up in `left`.
    fn draining(&self, _held: &[&SessionPlan], _left: Duration) {}
    /// `--now` is about to end this session's running turn.
    fn interrupting(&self, _session: &SessionPlan) {}
}

/// The roll with safe points: everything at one now (through the one roll
/// engine, canary first), then each held session as its turn ends. The
/// report is in plan order.
#[allow(
    clippy::too_many_arguments,
    reason = "the roll engine's own inputs plus the drain's: grouping them would only rename them"
)]
pub fn run(
    roller: &Roller,
    registry: &Registry,
    plan: &Plan,
    observed: &Observed,
    options: RollOptions,
    drain: &Drain,
    waiting: &dyn Waiting,
    progress: &(dyn Fn(&SessionReport) + Sync),
) -> Report {
    let state_root = roller.config.state_root.clone();
    let mut reports: Vec<SessionReport> = Vec::new();
    let mut now: Vec<usize> = Vec::new();
    let mut held: Vec<usize> = Vec::new();
    for (index, session) in plan.sessions.iter().enumerate() {
        match session.apply_will {
            Some(SafePoint::LeaveAttached) if !options.dry_run => {
                let report = deferred(
                    roller,
                    session,
                    format!(
                        "attached: {} tmux client(s); --include-attached rolls it",
                        session.attached
                    ),
                );
                progress(&report);
                reports.push(report);
            }
            Some(SafePoint::LeaveEnded) if !options.dry_run => {
                let report = ended(session);
                progress(&report);
                reports.push(report);
            }
            Some(
                SafePoint::WaitBusy
                | SafePoint::WaitWaiting
                | SafePoint::WaitScreen
                | SafePoint::WaitUnknown,
            ) if !options.dry_run => held.push(index),
            Some(SafePoint::RollNow) if drain.now && session.activity.in_turn() => {
                waiting.interrupting(session);
                now.push(index);
            }
            _ => now.push(index),
        }
    }
    let order: BTreeMap<&str, usize> = plan
        .sessions
        .iter()
        .enumerate()
        .map(|(i, s)| (s.label(), i))
        .collect();
    // Rolls these sessions; one whose turn began since it was chosen comes
    // back from the roll's last look (`Roller::safe_point`) to be held.
    let roll = |indices: &[usize], held: &mut Vec<usize>| {
        let mut report = execute(
            roller,
            registry,
            &subset(plan, indices),
            observed,
            options,
            progress,
        );
        if !options.dry_run {
            let window = roller.config.routing.tmux.resume_probe;
            super::ready::confirm(roller, &mut report.sessions, window);
        }
        report.sessions.retain(|r| match order.get(r.label()) {
            Some(index) if r.outcome == Outcome::Deferred => {
                held.push(*index);
                false
            }
            _ => true,
        });
        report
    };
    let mut first = roll(&now, &mut held);
    if options.dry_run {
        for report in &mut first.sessions {
            if let Some(hold) = plan
                .sessions
                .iter()
                .find(|s| s.label() == report.label())
                .and_then(|s| hold_words(s.apply_will?))
            {
                let why = report.detail.take().unwrap_or_default();
                report.detail = Some(format!("{why}; {hold}"));
            }
        }
    }
    let mut interrupted = first.interrupted;
    let mut stop = stop_after(&first.sessions);
    reports.extend(std::mem::take(&mut first.sessions));

    let deadline = crate::clock::deadline(drain.timeout);
    let mut said: Option<(Vec<usize>, u128)> = None;
    let waker = (!held.is_empty()).then(|| Waker::new(&store::dir(&state_root)));
    let mut quiet_since: BTreeMap<usize, Option<Instant>> = BTreeMap::new();
    let mut last_screen: BTreeMap<usize, (screen::Hooks, TurnScreen)> = BTreeMap::new();
    while !held.is_empty() {
        if interrupt::requested() {
            stop = Some(Stop::Interrupted);
        }
        if let Some(why) = &stop {
            for index in held.drain(..) {
                let report = not_attempted(&plan.sessions[index], why.clone());
                progress(&report);
                reports.push(report);
            }
            break;
        }
        let pids = held.iter().filter_map(|i| plan.sessions[*i].pane_pid);
        let activities = store::live_activities(&state_root, pids);
        // One the person ended while it was held is theirs: dropped, never rolled.
        held.retain(|i| {
            let session = &plan.sessions[*i];
            let over = activity_of(session, &activities).activity == Activity::Ended;
            if over {
                let report = ended(session);
                progress(&report);
                reports.push(report);
            }
            !over
        });
        // The hooks miss an interrupt and a `!` command; the screen shows
        // both (`apply/screen.rs`).
        let sessions: Vec<&SessionPlan> = held.iter().map(|i| &plan.sessions[*i]).collect();
        let screens = screen::look(roller.tmux, &sessions);
        let looked = Instant::now();
        let mut ready = Vec::new();
        let mut still = Vec::new();
        for (index, seen) in held.iter().zip(screens) {
            let hooks =
                screen::Hooks::of(activity_of(&plan.sessions[*index], &activities).activity);
            let quiet = quiet_since.entry(*index).or_default();
            match screen::held(hooks, seen, quiet, looked) {
                screen::Held::Hold => {
                    last_screen.insert(*index, (hooks, seen));
                    still.push(*index);
                }
                screen::Held::Ready | screen::Held::Interrupted => ready.push(*index),
            }
        }
        held = still;
        if !ready.is_empty() {
            let mut rolled = roll(&ready, &mut held);
            interrupted |= rolled.interrupted;
            stop = stop.or_else(|| stop_after(&rolled.sessions));
            reports.append(&mut rolled.sessions);
            continue;
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            for index in held.drain(..) {
                let session = &plan.sessions[index];
                // The hooks' "busy since …" says more when they say a turn
                // runs; otherwise what the screen shows says why.
                let why = match last_screen.get(&index) {
                    Some((screen::Hooks::InTurn, _)) | None => {
                        busy_words(&activity_of(session, &activities))
                    }
                    Some((hooks, seen)) => match (screen::held_words(*seen), hooks) {
                        (Some(words), _) => words.to_owned(),
                        (None, screen::Hooks::Silent) => screen::UNKNOWN_WORDS.to_owned(),
                        (None, _) => busy_words(&activity_of(session, &activities)),
                    },
                };
                let report = deferred(roller, session, why);
                progress(&report);
                reports.push(report);
            }
            break;
        }
        // Told when what it would say changes: a hook's write wakes the
        // loop far more often than once a second.
        let now_said = (held.clone(), left.as_millis().div_ceil(1000));
        if said.as_ref() != Some(&now_said) {
            let sessions: Vec<&SessionPlan> = held.iter().map(|i| &plan.sessions[*i]).collect();
            waiting.draining(&sessions, left);
            said = Some(now_said);
        }
        if let Some(waker) = &waker {
            // A second at most, so the progress line counts down and a
            // signal is noticed.
            waker.wait(left.min(Duration::from_secs(1)));
        }
    }
    // Plan order, as every report is.
    reports.sort_by_key(|r| order.get(r.label()).copied().unwrap_or(usize::MAX));
    Report {
        interrupted: interrupted || interrupt::requested(),
        sessions: reports,
        ..first
    }
}

/// The plan with only the sessions at `indices`.
fn subset(plan: &Plan, indices: &[usize]) -> Plan {
    Plan {
        sessions: indices.iter().map(|i| plan.sessions[*i].clone()).collect(),
        ..plan.clone()
    }
}

/// The stop the roll engine's own rule calls for: after a session that
/// was respawned and failed, nothing more is ended, nor after the env file
/// changed under the roll ([`SessionReport::stop_after`]).
fn stop_after(reports: &[SessionReport]) -> Option<Stop> {
    reports
        .iter()
        .find_map(SessionReport::stop_after)
        .or_else(|| {
            // A stop the first batch met before any roll: the held sessions
            // meet it too.
            reports.iter().find_map(|r| match &r.stop {
                Some(stop @ (Stop::Interrupted | Stop::ResumesFailed(_))) => Some(stop.clone()),
                _ => None,
            })
        })
}

fn activity_of(session: &SessionPlan, all: &BTreeMap<i32, HarnessActivity>) -> HarnessActivity {
    session
        .pane_pid
        .and_then(|pid| all.get(&pid).cloned())
        .unwrap_or_else(|| HarnessActivity::unknown(session.pane_pid.unwrap_or(0)))
}

/// What the session's hooks say now, read from its activity file: the
/// first half of the roll's last look before the signal
/// (`Roller::safe_point`); [`super::screen::last_look`] is the second.
pub fn hooks_now(state_root: &Path, session: &SessionPlan) -> HookVerdict {
    let Some(pid) = session.pane_pid else {
        return HookVerdict::Silent;
    };
    let now = store::read_one(state_root, pid);
    if store::process_start(pid) != Some(now.start) {
        // The records are an earlier process's, or there are none.
        return HookVerdict::Silent;
    }
    match now.activity {
        Activity::Ended => HookVerdict::Ended(ENDED_BY_THE_USER.to_owned()),
        Activity::Unknown => HookVerdict::Silent,
        a if a.in_turn() => HookVerdict::InTurn(busy_words(&now)),
        _ => HookVerdict::Between,
    }
}

/// Why a session the person ended is not rolled.
const ENDED_BY_THE_USER: &str = "ended by the user; not respawned";

/// The report of a session the person ended: skipped, and left as it is.
fn ended(session: &SessionPlan) -> SessionReport {
    SessionReport::from_plan(
        session,
        Outcome::Skipped,
        Some(ENDED_BY_THE_USER.to_owned()),
    )
}

/// `busy since 2026-12-01T03:12:09Z`, for a turn still running at the deadline.
pub fn busy_words(activity: &HarnessActivity) -> String {
    let what = match activity.activity {
        Activity::Waiting => "waiting for a person",
        _ => "busy",
    };
    match activity.busy_since_ms() {
        Some(ms) => format!("{what} since {}", crate::clock::format_utc(ms / 1000)),
        None => what.to_owned(),
    }
}

/// What a dry run adds to a held session's line.
fn hold_words(point: SafePoint) -> Option<&'static str> {
    match point {
        SafePoint::RollNow => None,
        SafePoint::WaitBusy => Some("waits for its running turn to end"),
        SafePoint::WaitWaiting => Some("waits for the person it is asking"),
        SafePoint::WaitScreen => Some("waits for what its screen shows to clear"),
        SafePoint::WaitUnknown => {
            Some("waits: neither its hooks nor its screen say it is between turns")
        }
        SafePoint::LeaveAttached => Some("deferred: a client is attached"),
        SafePoint::LeaveEnded => Some(ENDED_BY_THE_USER),
    }
}

fn deferred(roller: &Roller, session: &SessionPlan, reason: String) -> SessionReport {
    roller.events.emit(Event::SessionDeferred {
        subject: Subject::planned(session.reference.clone(), session.standing.clone())
            .target(&session.tmux_target),
        reason: reason.clone(),
    });
    SessionReport::from_plan(session, Outcome::Deferred, Some(reason))
}
