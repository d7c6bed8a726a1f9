//! The plan's words for a session whose harness exited at once when an
//! earlier roll resumed it ([`crate::registry::resume_failures`], read
//! only): its pane was respawned, so it is no interrupted respawn that a
//! roll completes. `apply` leaves it alone while the failure holds (the
//! same test as the roll's, `apply/failures.rs`), and naming it
//! (`sessions restart REF`, `apply --target REF`) retries it, so a plan of
//! named sessions predicts the retry.

use super::compute::Targets;
use super::{Action, Plan, Reason, SessionPlan};
use crate::registry::resume_failures::{Failure, ResumeFailures};
use std::path::Path;

/// Rewords each interrupted respawn whose harness exited at once when
/// resumed, and marks it left alone unless the plan names its sessions.
/// After [`super::interrupted::annotate`] and the resumability check (a
/// reason that check gives wins, as it does in the roll).
pub fn annotate(plan: &mut Plan, state_root: &Path, targets: &Targets) {
    let store = ResumeFailures::under(state_root);
    for session in &mut plan.sessions {
        let Some(failure) = holding(&store, session) else {
            continue;
        };
        session.reason = Some(Reason::ResumeExited {
            at: failure.at.clone(),
            conversation: failure.harness_session_id.clone(),
        });
        if targets.is_all() && session.left_alone.is_none() {
            session.left_alone = Some(left_alone(session, &failure));
        }
    }
    plan.summary = super::compute::summarise(&plan.sessions);
}

/// The failure kept for `session` that still holds: the pane is the dead
/// one the failed roll left (the plan completes it), for the same record,
/// on the same conversation.
fn holding(store: &ResumeFailures, session: &SessionPlan) -> Option<Failure> {
    let interrupted = session.interrupted_respawn.as_ref()?;
    if session.action != Action::Resume {
        return None;
    }
    let failure = store.load(&session.tmux_target)?;
    failure
        .holds_for(
            session.reference.as_deref(),
            session.standing.as_deref(),
            &interrupted.harness_session_id,
        )
        .then_some(failure)
}

/// Why `apply` leaves it alone, and how to retry it once its cause is
/// mended.
pub fn left_alone(session: &SessionPlan, failure: &Failure) -> String {
    let name = session.label();
    let restart = match (&session.reference, &session.standing) {
        (None, Some(standing)) => format!("the-loop standing restart {standing}"),
        _ => format!("the-loop sessions restart {name}"),
    };
    format!(
        "the pane was respawned and its harness exited at once when resumed at {} (conversation {}); not taken as a canary again: naming it retries it (`{restart}` or `the-loop apply --target {name}`)",
        failure.at, failure.harness_session_id
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observed::Probe;
    use crate::plan::SessionKind;
    use crate::registry::journal::InterruptedRespawn;

    fn plan_of(session: SessionPlan) -> Plan {
        let mut plan: Plan = serde_json::from_value(serde_json::json!({
            "format_version": "1", "env_file": null, "env_fingerprints": {},
            "sessions": [], "tmux_unanswered": null, "corrupt_records": [],
            "summary": {"respawn": 0, "up_to_date": 0, "skipped": 0,
                        "unverified": 0, "unmanaged": 0}
        }))
        .unwrap();
        plan.sessions.push(session);
        plan
    }

    fn interrupted(conversation: &str) -> SessionPlan {
        let mut s = SessionPlan::new(
            SessionKind::WorkItem,
            "loop-github-octo-repo-1".into(),
            Probe::Dead,
        );
        s.reference = Some("github:octo/repo#1".into());
        s.action = Action::Resume;
        s.reason = Some(Reason::InterruptedDeadPane {
            since: "2026-12-06T03:59:00Z".into(),
        });
        s.interrupted_respawn = Some(InterruptedRespawn {
            pane_id: "%3".into(),
            harness_session_id: conversation.into(),
            since: "2026-12-06T03:59:00Z".into(),
        });
        s
    }

    #[test]
    fn a_failure_that_holds_is_reworded_and_left_alone_unless_named() {
        let root = tempfile::tempdir().unwrap();
        ResumeFailures::under(root.path())
            .record(&Failure {
                reference: Some("github:octo/repo#1".into()),
                standing: None,
                tmux_target: "loop-github-octo-repo-1".into(),
                harness_session_id: "c-1".into(),
                at: "2026-12-06T04:00:00Z".into(),
            })
            .unwrap();
        let mut plan = plan_of(interrupted("c-1"));
        annotate(&mut plan, root.path(), &Targets::all());
        let s = &plan.sessions[0];
        assert_eq!(
            s.reason,
            Some(Reason::ResumeExited {
                at: "2026-12-06T04:00:00Z".into(),
                conversation: "c-1".into()
            })
        );
        let words = s.left_alone.as_deref().unwrap();
        assert!(words.contains("`the-loop sessions restart github:octo/repo#1`"));
        assert!(words.contains("`the-loop apply --target github:octo/repo#1`"));
        assert_eq!((plan.summary.left_alone, plan.summary.resume), (1, 0));

        let mut named = plan_of(interrupted("c-1"));
        let targets = Targets(vec!["github:octo/repo#1".into()]);
        annotate(&mut named, root.path(), &targets);
        assert!(named.sessions[0].left_alone.is_none(), "named: retried");
        assert!(matches!(
            named.sessions[0].reason,
            Some(Reason::ResumeExited { .. })
        ));

        let mut other = plan_of(interrupted("c-2"));
        annotate(&mut other, root.path(), &Targets::all());
        assert!(
            matches!(
                other.sessions[0].reason,
                Some(Reason::InterruptedDeadPane { .. })
            ),
            "another conversation is not what failed"
        );
        assert!(other.sessions[0].left_alone.is_none());
    }
}
