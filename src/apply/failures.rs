//! What a roll does with the sessions whose harness exited at once when an
//! earlier roll resumed them ([`crate::registry::resume_failures`]): leaves
//! them alone, in words that say what happened, so that they are never the
//! canary again while they stay failed; and, once the roll is over,
//! remembers the ones that failed now and forgets the ones that rolled well.

use super::report::{Outcome, SessionReport};
use crate::harness::resumable::Resumable;
use crate::plan::{Action, SessionPlan};
use crate::registry::resume_failures::{Failure, ResumeFailures};
use std::path::Path;

/// How many sessions left alone for a failed resume make a roll end no
/// other harness. One may be that conversation's own trouble; two look like
/// the fleet's (a broken harness, a full disk), and each further canary
/// would only leave one more pane dead.
pub const STOP_AFTER: usize = 2;

/// The failure that still holds for `session`, which the roll would resume
/// on `resumable`: its pane is the dead one the failed roll left (the plan
/// completes it), on the same conversation, for the same record. A failure
/// that no longer holds (the pane is live again, the record moved to
/// another conversation) is forgotten here, unless this is a dry run.
pub fn holding(
    root: &Path,
    session: &SessionPlan,
    resumable: &Resumable,
    dry_run: bool,
) -> Option<Failure> {
    let store = ResumeFailures::under(root);
    let failure = store.load(&session.tmux_target)?;
    let holds = session.action == Action::Resume
        && failure.holds_for(
            session.reference.as_deref(),
            session.standing.as_deref(),
            &resumable.session_id,
        );
    if holds {
        return Some(failure);
    }
    if !dry_run {
        store.clear(&session.tmux_target);
    }
    None
}

/// Why the roll leaves `session` alone, in words: what happened, and how
/// to try it again once its cause is mended.
pub fn left_alone(session: &SessionPlan, failure: &Failure) -> String {
    let retry = match (&session.reference, &session.standing) {
        (Some(r), _) => format!("the-loop sessions restart {r}"),
        (None, Some(name)) => format!("the-loop standing restart {name}"),
        (None, None) => format!("the-loop sessions restart {}", session.tmux_target),
    };
    format!(
        "its harness exited at once when resumed at {} (conversation {}); not taken as a canary again: `{retry}` retries it",
        failure.at, failure.harness_session_id
    )
}

/// After a roll: remembers each session whose harness exited at once when
/// resumed, and forgets each that rolled well or was up to date.
pub fn settle(root: &Path, sessions: &[SessionReport]) {
    let store = ResumeFailures::under(root);
    for report in sessions {
        let rolled_well = report.respawned() && !report.outcome.is_failure();
        if rolled_well || report.outcome == Outcome::UpToDate {
            store.clear(&report.tmux_target);
            continue;
        }
        let (true, Some(conversation)) = (report.harness_exited, &report.harness_session_id) else {
            continue;
        };
        let failure = Failure {
            reference: report.reference.clone(),
            standing: report.standing.clone(),
            tmux_target: report.tmux_target.clone(),
            harness_session_id: conversation.clone(),
            at: crate::clock::now_utc(),
        };
        if let Err(e) = store.record(&failure) {
            // Not remembered: the next roll takes it as its canary again,
            // as before; said, so the cause can be found.
            let file = store.path(&report.tmux_target).unwrap_or_default();
            tracing::warn!(
                path = %file.display(),
                "cannot remember the failed resume: {}",
                crate::fsutil::describe(&e)
            );
        }
    }
}
