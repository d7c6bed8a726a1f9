//! Completing a roll an earlier run began and could not finish: its
//! harness was ended, and the intent journal names the dead pane.

use super::{Respawn, Roller};
use crate::apply::report::{Outcome, SessionReport};
use crate::desired::policy::Identity;
use crate::events::{Event, Subject};
use crate::harness::resumable::Resumable;
use crate::plan::interrupted::forged;
use crate::plan::resumable::running;
use crate::plan::SessionPlan;
use crate::registry::journal::Journal;
use crate::runner::spawn::session_panes;

impl Roller<'_> {
    /// Completes a roll an earlier run began: the journaled dead pane resumes its conversation.
    pub(super) fn complete(
        &self,
        plan: &SessionPlan,
        identity: &Identity,
        resumable: Resumable,
    ) -> Respawn {
        let mut report = SessionReport::from_plan(plan, Outcome::LeftAlone, None);
        report.harness_session_id = Some(resumable.session_id.clone());
        let target = plan.tmux_target.as_str();
        let journal = Journal::under(&self.config.state_root);
        let Some(entry) = journal.load(target) else {
            report.detail =
                Some("the interrupted respawn was completed meanwhile; not touched".into());
            return Respawn::Done(report);
        };
        let pane_id = entry.pane_id.clone();
        let subject = Subject::planned(plan.reference.clone(), plan.standing.clone())
            .target(target)
            .pane(&pane_id);
        // Only the dead pane the journal names: a live one is someone else's
        // since. The entry is read again here, so it is checked again; the
        // old pid reported is tmux's for the dead pane, never the entry's.
        let dead = session_panes(self.tmux, target).map(|panes| {
            panes
                .into_iter()
                .find(|p| p.pane_id == pane_id && p.dead)
                .map(|p| p.pid)
        });
        match dead {
            Ok(Some(pid)) => {
                let file = journal.path(target).unwrap_or_default();
                let harness = Some(resumable.harness);
                if let Some(why) = forged(&file, &entry, Some(pid), &running, harness) {
                    report.detail = Some(why);
                    return Respawn::Done(report);
                }
                report.old_pid = Some(pid);
            }
            Ok(None) => {
                report.detail = Some(
                    "the pane is no longer the dead one the intent journal names; not touched"
                        .into(),
                );
                return Respawn::Done(report);
            }
            Err(err) => {
                report.detail = Some(format!(
                    "tmux did not confirm the pane ({err}); not touched"
                ));
                return Respawn::Done(report);
            }
        }
        // The old harness is gone: the new process starts from our own environment.
        let ready = match self.prepared(identity, &resumable, &subject, None) {
            Ok(ready) => ready,
            Err(reason) => {
                report.detail = Some(reason);
                return Respawn::Done(report);
            }
        };
        self.events
            .emit(Event::SessionInterruptedRespawnCompleting {
                subject: subject.clone(),
                since: entry.since,
                old_pid: entry.old_pid,
                harness_session_id: resumable.session_id.clone(),
            });
        self.relaunch(report, subject, identity, target, pane_id, ready)
    }
}
