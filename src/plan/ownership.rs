//! The roll's decision whether to touch a planned session: it must be
//! resumable ([`super::resumable::decide`]) and its pane must be the
//! record's own ([`crate::observed::ownership`], the check every verb
//! makes), and no other record may name its conversation
//! ([`super::shared_conversation`]). Shared by `plan` (which predicts "left alone") and the roll
//! (which acts), so the two never disagree. A drift in a pane that is not
//! the record's is still shown as drift, left alone, so a plan never calls
//! such a session clean.

use super::unmanaged::conversation_said;
use super::SessionPlan;
use crate::harness::resumable::Resumable;
use crate::observed::ownership::{judge, launched_conversation, Claimant, Claims};
use crate::observed::Observation;
use crate::registry::{Registry, SessionKey};

/// [`super::resumable::decide`], then whether the pane is the record's.
pub fn decide(
    registry: &Registry,
    plan: &SessionPlan,
    observed: &Observation,
) -> Option<(SessionKey, Result<Resumable, String>)> {
    let (key, verdict) = super::resumable::decide(registry, plan, observed)?;
    let verdict = verdict.and_then(|resumable| {
        its_own(plan, &key, observed)?;
        let others = super::shared_conversation::others(plan, observed);
        if !others.is_empty() {
            return Err(super::shared_conversation::refusal(plan, &others));
        }
        Ok(resumable)
    });
    Some((key, verdict))
}

/// `Err` with the reason when the live harness in the plan's pane says it
/// is not `key`'s, or the name rule refuses the pane.
fn its_own(plan: &SessionPlan, key: &SessionKey, observed: &Observation) -> Result<(), String> {
    let Some(facts) = plan.record.as_ref() else {
        return Ok(());
    };
    let process = plan
        .pane_pid
        .and_then(|pid| Some((pid, observed.processes.get(&pid)?)));
    let launched = process.and_then(|(_, p)| launched_conversation(&facts.harness, p));
    // What it says itself, when that cannot be trusted, leaves it alone:
    // the argv alone may name a conversation it has left.
    let reported = match process.map(|(pid, _)| conversation_said(observed, pid)) {
        Some(Err(why)) => {
            return Err(format!(
                "which conversation its harness is in cannot be told: {why}"
            ))
        }
        Some(Ok(reported)) => reported,
        None => None,
    };
    let claims = process.map(|(_, p)| Claims::of(p, launched.as_deref(), reported));
    let conversations = facts.conversations();
    let claimant = Claimant {
        key,
        conversations: &conversations,
        target: &plan.tmux_target,
    };
    let anothers = (plan.tmux_target != key.tmux_name())
        .then(|| {
            observed
                .sessions
                .iter()
                .find(|other| other.key != *key && other.key.tmux_name() == plan.tmux_target)
                .map(|other| other.label().to_owned())
        })
        .flatten();
    judge(&claimant, anothers.as_deref(), claims.as_ref())
        .map(|_| ())
        .map_err(|found| format!("not this record's session: {found}"))
}
