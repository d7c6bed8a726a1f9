//! `apply --json-stream`: the roll as JSON lines, one event per line as it
//! happens, for a caller that shows progress (as `terraform apply -json`
//! does). The one-object `--json` report stays as it is; this is a second
//! view of the same roll. Schema: `schemas/apply-stream.schema.json`.

use crate::apply::{Outcome, Report, SessionReport};
use crate::plan::{Action, Plan, SessionPlan};
use schemars::JsonSchema;
use serde::Serialize;
use std::io::Write;

/// What a line reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EventType {
    /// One per session of the plan, before anything is touched.
    Planned,
    /// Its harness is being ended (SIGTERM) so the pane can be respawned.
    Respawning,
    /// Respawned, and the new process verified (or unverifiable: see outcome).
    Verified,
    /// Respawned, but it failed: mismatch or resume failed.
    Failed,
    /// Not touched by choice: not running, up to date, not attempted, or
    /// not reached because a newer env value superseded the roll.
    Skipped,
    /// Not touched because touching it could lose its conversation.
    LeftAlone,
    /// `--dry-run`: it would be respawned.
    WouldRestart,
    /// The last line: the whole report, as `--json` prints it.
    Finished,
}

/// One line of the stream.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct StreamEvent {
    /// "1"
    pub format_version: &'static str,
    #[serde(rename = "type")]
    pub event: EventType,
    /// `YYYY-MM-DDTHH:MM:SSZ`.
    pub ts: String,
    /// The work-item ref; null for standing sessions and on `finished`.
    #[serde(rename = "ref")]
    pub reference: Option<String>,
    pub standing: Option<String>,
    pub tmux_target: Option<String>,
    /// On `planned`: the plan's action for the session.
    pub action: Option<Action>,
    /// On `planned`: why a roll will leave it alone although it drifted.
    pub left_alone: Option<String>,
    /// On a session's last line: its outcome, as in the report.
    pub outcome: Option<Outcome>,
    /// Why, in words (never a value).
    pub detail: Option<String>,
    /// On `finished`: the report `--json` would print.
    pub report: Option<Report>,
}

impl StreamEvent {
    fn new(event: EventType) -> Self {
        StreamEvent {
            format_version: "1",
            event,
            ts: crate::clock::now_utc(),
            reference: None,
            standing: None,
            tmux_target: None,
            action: None,
            left_alone: None,
            outcome: None,
            detail: None,
            report: None,
        }
    }

    fn about(event: EventType, plan: &SessionPlan) -> Self {
        StreamEvent {
            reference: plan.reference.clone(),
            standing: plan.standing.clone(),
            tmux_target: Some(plan.tmux_target.clone()),
            ..StreamEvent::new(event)
        }
    }
}

/// One line, written whole: rolls run in parallel, and stdout's lock keeps
/// their lines from interleaving.
fn emit(event: &StreamEvent) {
    let mut line = serde_json::to_string(event).expect("a stream event serialises");
    line.push('\n');
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(line.as_bytes());
    let _ = out.flush();
}

pub fn planned(plan: &Plan) {
    for session in &plan.sessions {
        emit(&StreamEvent {
            action: Some(session.action),
            left_alone: session.left_alone.clone(),
            detail: session.reason.as_ref().map(ToString::to_string),
            ..StreamEvent::about(EventType::Planned, session)
        });
    }
}

pub fn respawning(plan: &SessionPlan) {
    emit(&StreamEvent::about(EventType::Respawning, plan));
}

pub fn session(report: &SessionReport) {
    let event = match report.outcome {
        // Not reached: the roll stopped for a newer env value first.
        Outcome::Superseded if !report.respawned() => EventType::Skipped,
        // `superseded`: respawned while the env file was rewritten; its
        // outcome and detail say what it holds.
        Outcome::Restarted | Outcome::RestartedUnverified | Outcome::Superseded => {
            EventType::Verified
        }
        Outcome::Mismatch | Outcome::ResumeFailed | Outcome::Blocked => EventType::Failed,
        Outcome::LeftAlone => EventType::LeftAlone,
        // Its `outcome` says `deferred`: held for its safe point, untouched.
        Outcome::Skipped | Outcome::UpToDate | Outcome::NotAttempted | Outcome::Deferred => {
            EventType::Skipped
        }
        Outcome::WouldRestart => EventType::WouldRestart,
    };
    emit(&StreamEvent {
        reference: report.reference.clone(),
        standing: report.standing.clone(),
        tmux_target: Some(report.tmux_target.clone()),
        outcome: Some(report.outcome),
        detail: report.detail.clone(),
        ..StreamEvent::new(event)
    });
}

pub fn finished(report: &Report) {
    emit(&StreamEvent {
        report: Some(report.clone()),
        ..StreamEvent::new(EventType::Finished)
    });
}
