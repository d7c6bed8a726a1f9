//! The one resumability decision for a planned session, shared by `plan`
//! (which predicts it) and the roll (which acts on it): a session whose
//! conversation cannot be resumed is left alone entirely, and a fresh
//! conversation never replaces one.

use super::{Action, SessionPlan};
use crate::harness::resumable::{check, check_interrupted, Resumable};
use crate::observed::{EnvRead, Observation};
use crate::registry::journal::Journal;
use crate::registry::{RecordFacts, Registry, SessionKey};

/// Which record a planned session belongs to; `None` for unmanaged ones.
pub fn identity_of(plan: &SessionPlan) -> Option<SessionKey> {
    plan.key.clone()
}

/// The record as the plan read it.
fn facts_of(plan: &SessionPlan) -> Result<&RecordFacts, String> {
    plan.record
        .as_ref()
        .ok_or_else(|| "the registry record is gone".to_owned())
}

/// The one resumability decision for a planned session, shared by `plan`
/// (which predicts it) and the roll (which acts on it), so the two cannot
/// disagree about which sessions a roll leaves alone. `None` for an
/// unmanaged session; the error is the reason, for the plan and the report.
pub fn decide(
    registry: &Registry,
    plan: &SessionPlan,
    observed: &Observation,
) -> Option<(SessionKey, Result<Resumable, String>)> {
    let identity = identity_of(plan)?;
    if plan.action == Action::Resume {
        // The pane is dead, so there is no environment to read: the
        // journal entry says where the conversation was before the signal.
        let verdict = facts_of(plan).and_then(|facts| {
            let entry = Journal::under(registry.root())
                .load(&plan.tmux_target)
                .ok_or("the interrupted respawn was completed meanwhile")?;
            check_interrupted(facts, &entry)
        });
        return Some((identity, verdict));
    }
    let session_env = plan.pane_pid.and_then(|pid| match observed.env(pid) {
        Some(EnvRead::Read(env)) => Some(env),
        _ => None,
    });
    let verdict = facts_of(plan).and_then(|facts| check(facts, session_env));
    Some((identity, verdict))
}
