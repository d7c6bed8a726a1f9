//! What an interrupted roll left behind, as the plan sees it: the intent
//! journal's entries ([`crate::registry::journal`]) are read on the
//! observation side and handed in as data; this decides, purely, which
//! sessions a roll must complete.

use super::{Action, Plan, Reason, SessionKind};
use crate::observed::Probe;
use crate::registry::journal::{Entry, InterruptedRespawn};

/// What an interrupted roll left behind, as observed now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Left {
    /// The journaled pane is there and dead: respawn it in place.
    DeadPane,
    /// The tmux session is gone: nothing to respawn in place.
    Gone,
}

/// `None` when the entry no longer describes the session: its pane is
/// live (a stale entry, or a roll in flight) or tmux did not answer.
pub fn left_behind(entry: &Entry, probe: Probe, pane_id: Option<&str>) -> Option<Left> {
    match probe {
        Probe::Dead if pane_id == Some(entry.pane_id.as_str()) => Some(Left::DeadPane),
        Probe::Absent => Some(Left::Gone),
        _ => None,
    }
}

/// Marks the sessions an interrupted roll left behind. A pure function of
/// the plan and the journal, applied after [`crate::plan::compute`].
///
/// Only a dead harness pane with the journaled pane id becomes `resume`:
/// a live pane is planned as usual (the journal is stale, or a roll is in
/// flight), and a missing pane cannot be respawned in place, so it stays a
/// skip whose reason says what was interrupted.
pub fn annotate(plan: &mut Plan, entries: &[Entry]) {
    for session in &mut plan.sessions {
        if session.kind == SessionKind::Unmanaged {
            continue;
        }
        let Some(entry) = entries.iter().find(|e| {
            e.tmux_target == session.tmux_target
                && e.reference == session.reference
                && e.standing == session.standing
        }) else {
            continue;
        };
        if session.reason == Some(Reason::RecordClosed) {
            continue;
        }
        let Some(left) = left_behind(entry, session.probe, session.pane_id.as_deref()) else {
            continue;
        };
        let dead_pane = left == Left::DeadPane;
        session.interrupted_respawn = Some(InterruptedRespawn {
            pane_id: entry.pane_id.clone(),
            harness_session_id: entry.harness_session_id.clone(),
            since: entry.since.clone(),
        });
        if dead_pane {
            session.action = Action::Resume;
            session.reason = Some(Reason::InterruptedDeadPane {
                since: entry.since.clone(),
            });
        } else {
            session.reason = Some(Reason::InterruptedGone {
                since: entry.since.clone(),
                conversation: entry.harness_session_id.clone(),
            });
        }
    }
    plan.summary = super::compute::summarise(&plan.sessions);
}
