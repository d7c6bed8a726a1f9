//! What a finished roll leaves behind: its outcomes counted, the memory
//! of what was rolled on which desired state, the sessions to wait for, and
//! one summary line. Kept apart from the cycle in [`super`] for size.

use super::*;

impl Watch {
    pub(super) fn rolled(&mut self, rolled: &Report, assessments: &[Assessment]) {
        self.metrics.count_rolls(&rolled.sessions);
        self.said.lock_busy = false;
        let now = epoch_now();
        // A session that went busy between the plan and the roll was
        // deferred by the roll itself: wait for its turn too.
        self.in_turn.extend(
            rolled
                .sessions
                .iter()
                .filter(|s| s.outcome == Outcome::Deferred)
                .filter_map(|s| s.old_pid),
        );
        for s in &rolled.sessions {
            // Not reached because of our own stop, held for its safe
            // point, or rolled (or not) on a value the env file has
            // since replaced: the next cycle decides afresh, on the
            // next desired state.
            if matches!(s.stop, Some(Stop::Interrupted | Stop::EnvFileChanged))
                || matches!(s.outcome, Outcome::Deferred | Outcome::Superseded)
            {
                continue;
            }
            let Some(a) = assessments.iter().find(|a| a.label == s.label()) else {
                continue;
            };
            decide::record(
                &mut self.memory,
                &a.label,
                a.desired,
                a.signature,
                s.outcome,
                s.detail.clone(),
                now,
                self.options.interval.as_secs(),
            );
        }
        let count =
            |f: fn(Outcome) -> bool| rolled.sessions.iter().filter(|s| f(s.outcome)).count();
        let summary = format!(
            "watch roll finished: {} respawned, {} failed{}{}",
            count(Outcome::respawned),
            count(Outcome::is_failure),
            if rolled.interrupted {
                "; stopped early by a signal, the respawns in flight finished"
            } else {
                ""
            },
            if rolled.env_file_changed.is_some() {
                "; the env file changed during the roll, so watch plans again once it settles"
            } else {
                ""
            }
        );
        // A superseded value is not a failure, nor a session left
        // for it: the next cycle rolls onto the file's new value.
        let stale = rolled.sessions.iter().any(|s| {
            s.outcome.is_failure()
                || s.outcome == Outcome::Deferred
                || (s.outcome == Outcome::NotAttempted && s.stop != Some(Stop::EnvFileChanged))
        });
        if stale {
            tracing::warn!("{summary}");
        } else {
            tracing::info!("{summary}");
        }
        self.status.last_roll = Some((count(Outcome::respawned), count(Outcome::is_failure)));
        self.notify.status(&self.status.to_string());
        // Re-plan at once to say whether the roll cleaned the fleet;
        // a roll that only deferred changed nothing to look at.
        self.recheck = rolled
            .sessions
            .iter()
            .any(|s| s.outcome != Outcome::Deferred);
    }
}
