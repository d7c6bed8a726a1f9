//! The one resumability decision for a planned session, shared by `plan`
//! (which predicts it) and the roll (which acts on it): a session whose
//! conversation cannot be resumed is left alone entirely, and a fresh
//! conversation never replaces one.

use super::{Action, SessionPlan};
use crate::harness::resumable::{check_interrupted, check_or_never_begun, Resumable};
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
            let journal = Journal::under(registry.root());
            let entry = journal
                .load(&plan.tmux_target)
                .ok_or("the interrupted respawn was completed meanwhile")?;
            let file = journal.path(&plan.tmux_target).unwrap_or_default();
            let harness = crate::harness::by_name(&facts.harness);
            if let Some(why) =
                super::interrupted::forged(&file, &entry, plan.pane_pid, &running, harness)
            {
                return Err(why);
            }
            check_interrupted(facts, &entry)
        });
        return Some((identity, verdict));
    }
    let session_env = plan.pane_pid.and_then(|pid| match observed.env(pid) {
        Some(EnvRead::Read(env)) => Some(env),
        _ => None,
    });
    // The live harness's own word that nothing was ever typed into the
    // conversation it started (what makes one with no transcript safe to
    // relaunch on its id).
    let never_prompted = |facts: &RecordFacts| {
        let id = facts.session_id.as_deref()?;
        let activity = observed.activities.get(&plan.pane_pid?)?;
        Some(activity.never_prompted(id))
    };
    let verdict = facts_of(plan).and_then(|facts| {
        check_or_never_begun(facts, session_env, never_prompted(facts).unwrap_or(false))
    });
    Some((identity, verdict))
}

/// Whether a process holds `pid` now (one that is not ours to signal
/// counts): what [`super::interrupted::forged`] asks of a journaled pid
/// that is not the dead pane's.
pub fn running(pid: i32) -> bool {
    matches!(
        nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None),
        Ok(()) | Err(nix::errno::Errno::EPERM)
    )
}
