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
        // Whatever deferred it (a turn, a `!` command, a menu, a client),
        // the loop looks at it again soon, as at a session it held itself.
        self.holding |= rolled
            .sessions
            .iter()
            .any(|s| s.outcome == Outcome::Deferred);
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
        // A rewrite cut this roll short: the next waits for a longer quiet.
        self.cut_short = match rolled.env_file_changed {
            Some(_) => self.cut_short.saturating_add(1),
            None => 0,
        };
        let count = |f: fn(&SessionReport) -> bool| rolled.sessions.iter().filter(|s| f(s)).count();
        let summary = format!(
            "watch roll finished: {} respawned, {} failed{}{}{}",
            count(SessionReport::respawned),
            count(|s| s.outcome.is_failure()),
            not_respawned(rolled),
            if rolled.interrupted {
                "; stopped early by a signal, the respawns in flight finished"
            } else {
                ""
            },
            if rolled.env_file_changed.is_some() {
                format!(
                    "; the env file changed during the roll, so watch plans again once it has been quiet for {} ms{}",
                    super::super::debounce::storm_quiet(self.options.debounce, self.cut_short)
                        .as_millis(),
                    if self.cut_short > 1 {
                        format!(" ({} rolls in a row cut short by a rewrite)", self.cut_short)
                    } else {
                        String::new()
                    }
                )
            } else {
                String::new()
            }
        );
        // A superseded value (respawned onto it, or not reached for the
        // newer one) is not a failure, nor a session left for it: the
        // next cycle rolls onto the file's new value.
        let stale = rolled.sessions.iter().any(|s| {
            s.outcome.is_failure() || matches!(s.outcome, Outcome::Deferred | Outcome::NotAttempted)
        });
        if stale {
            tracing::warn!("{summary}");
        } else {
            tracing::info!("{summary}");
        }
        self.status.last_roll = Some((
            count(SessionReport::respawned),
            count(|s| s.outcome.is_failure()),
        ));
        self.notify.status(&self.status.to_string());
        // Re-plan at once to say whether the roll cleaned the fleet;
        // a roll that only deferred changed nothing to look at.
        self.recheck = rolled
            .sessions
            .iter()
            .any(|s| s.outcome != Outcome::Deferred);
        // Cut short by a rewrite: not at once, but once the stretched quiet
        // period has passed (the debounce holds it longer while the file
        // is still being written).
        if rolled.env_file_changed.is_some() {
            self.recheck = false;
            self.retry_at = Some(crate::clock::deadline(super::super::debounce::storm_quiet(
                self.options.debounce,
                self.cut_short,
            )));
        }
    }
}

/// How many sessions' reasons the summary names; the rest are counted (each
/// outcome has its own event, and a fleet's worth would make one line long).
const NAMED: usize = 5;

/// `; not respawned: LABEL deferred (WHY), …`: why the sessions the roll
/// neither respawned nor failed were left (a failure has its own line).
/// Empty when every session was respawned or failed; a roll that touched
/// nothing says so rather than a bare "0 respawned".
fn not_respawned(rolled: &Report) -> String {
    let left: Vec<String> = rolled
        .sessions
        .iter()
        .filter(|s| !s.respawned() && !s.outcome.is_failure())
        .map(|s| format!("{} {}", s.label(), s.verdict()))
        .collect();
    let mut words = match left.len() {
        0 => String::new(),
        n if n <= NAMED => format!("; not respawned: {}", left.join(", ")),
        n => format!(
            "; not respawned: {}, and {} more",
            left[..NAMED].join(", "),
            n - NAMED
        ),
    };
    if let Some(blind) = &rolled.observation_failed {
        words.push_str(&format!("; {blind}"));
    }
    if rolled.sessions.is_empty() && words.is_empty() {
        words.push_str("; the roll reported no session");
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observed::Probe;
    use crate::plan::SessionKind;

    fn report(reference: &str, outcome: Outcome, detail: &str) -> SessionReport {
        let plan = SessionPlan {
            reference: Some(reference.into()),
            ..SessionPlan::new(SessionKind::WorkItem, "loop-x".into(), Probe::Live)
        };
        SessionReport::from_plan(&plan, outcome, Some(detail.into()))
    }

    fn roll_of(sessions: Vec<SessionReport>) -> Report {
        Report {
            format_version: String::new(),
            dry_run: false,
            interrupted: false,
            sessions,
            tmux_env_scrub: None,
            detached_residue: Vec::new(),
            env_file_changed: None,
            observation_failed: None,
            hosts: Vec::new(),
        }
    }

    #[test]
    fn a_roll_that_respawned_nothing_says_why() {
        let rolled = roll_of(vec![
            report("a#1", Outcome::Deferred, crate::plan::screen::UNKNOWN_WORDS),
            report("a#2", Outcome::Restarted, ""),
            report("a#3", Outcome::Skipped, "ended by the user; not respawned"),
            report("a#4", Outcome::Mismatch, ""),
        ]);
        assert_eq!(
            not_respawned(&rolled),
            format!(
                "; not respawned: a#1 deferred ({}), a#3 skipped (ended by the user; not respawned)",
                crate::plan::screen::UNKNOWN_WORDS
            )
        );
        let many = roll_of(
            (0..7)
                .map(|i| report(&format!("b#{i}"), Outcome::Deferred, "busy"))
                .collect(),
        );
        let words = not_respawned(&many);
        assert!(
            words.ends_with("b#4 deferred (busy), and 2 more"),
            "{words}"
        );
        assert_eq!(
            not_respawned(&roll_of(vec![report("c#1", Outcome::Restarted, "")])),
            ""
        );
        assert!(not_respawned(&roll_of(Vec::new())).contains("no session"));
    }

    #[test]
    fn a_session_a_newer_value_kept_the_roll_from_is_superseded_and_not_respawned() {
        let plan = SessionPlan {
            reference: Some("d#1".into()),
            ..SessionPlan::new(SessionKind::WorkItem, "loop-x".into(), Probe::Live)
        };
        let reached = crate::apply::report::not_attempted(&plan, Stop::EnvFileChanged);
        assert_eq!(reached.outcome, Outcome::Superseded);
        assert!(!reached.respawned());
        // One respawned onto a value the file has since replaced is both.
        let mut onto = report(
            "d#2",
            Outcome::Superseded,
            "it holds the file's current value",
        );
        onto.new_pid = Some(7);
        assert!(onto.respawned());
        assert_eq!(
            not_respawned(&roll_of(vec![reached, onto])),
            "; not respawned: d#1 superseded (the env file changed during the roll)"
        );
    }
}
