//! A cycle's plan, and what it tells the outside: Prometheus (the gauges and
//! how long the plan took) and the service manager (`READY=1` after the
//! first plan, then `STATUS=` lines of counts). Kept apart from the cycle
//! in [`super`] for size.

use super::*;
use crate::clock::Stopwatch;
use std::fmt;

/// Time beyond a session's grace, probe and readiness wait for its
/// verification and the tmux calls around it (each up to tmux's timeout).
const ROLL_MARGIN: Duration = Duration::from_secs(30);

/// What `STATUS=` says: counts only. Never a value, an env-file name, a
/// session's ref or an error's text (which may quote a path or a line).
#[derive(Debug, Default, Clone, PartialEq)]
pub(super) struct Status {
    plan: Planned,
    /// Sessions respawned and failed in the last roll.
    pub(super) last_roll: Option<(usize, usize)>,
}

#[derive(Debug, Default, Clone, PartialEq)]
enum Planned {
    #[default]
    NotYet,
    /// The config or the env file could not be read: the log says why.
    Failed,
    /// tmux did not answer for this many managed sessions.
    Blind(usize),
    Counts {
        sessions: usize,
        drifted: usize,
        unverified: usize,
    },
}

impl Planned {
    fn of(plan: &crate::plan::Plan) -> Planned {
        let managed = || {
            plan.sessions
                .iter()
                .filter(|s| s.kind != SessionKind::Unmanaged)
        };
        if plan.tmux_unanswered.is_some() {
            return Planned::Blind(managed().count());
        }
        Planned::Counts {
            sessions: managed().count(),
            // As `the_loop_sessions_drifted` counts them.
            drifted: managed().filter(|s| s.action == Action::Respawn).count(),
            unverified: managed().filter(|s| s.is_unverified()).count(),
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.plan {
            Planned::NotYet => write!(f, "starting")?,
            Planned::Failed => write!(f, "cannot plan; the log says why")?,
            Planned::Blind(n) => write!(f, "tmux did not answer; {n} sessions not observed")?,
            Planned::Counts {
                sessions,
                drifted,
                unverified,
            } => {
                write!(f, "{sessions} sessions, {drifted} drifted")?;
                if unverified > 0 {
                    write!(f, ", {unverified} unverified")?;
                }
            }
        }
        if let Some((respawned, failed)) = self.last_roll {
            write!(f, "; last roll: {respawned} respawned, {failed} failed")?;
        }
        Ok(())
    }
}

impl Status {
    /// The status while `n` sessions are being rolled.
    pub(super) fn rolling(&self, n: usize) -> String {
        let plan = Status {
            last_roll: None,
            ..self.clone()
        };
        format!("{plan}; rolling {n}")
    }
}

impl Watch {
    /// Re-reads the config and plans, timing it; then tells the service
    /// manager, the first time `READY=1`. A cycle that cannot plan makes
    /// watch ready all the same: it is running, its log and
    /// `the_loop_plan_ok` say what is wrong, and it plans again when the
    /// files change, as a manager's restarts could not.
    pub(super) fn plan_timed(&mut self) -> Option<Snapshot> {
        let stopwatch = Stopwatch::start();
        let snapshot = self.plan();
        match &snapshot {
            Some(snapshot) => {
                self.metrics.plan_took(stopwatch.elapsed());
                self.status.plan = Planned::of(&snapshot.plan);
            }
            None => self.status.plan = Planned::Failed,
        }
        self.notify.planned(&self.status.to_string());
        snapshot
    }

    fn plan(&mut self) -> Option<Snapshot> {
        // The config is re-read every cycle, as every command re-reads it.
        match Context::load(Some(&self.config_path)) {
            Ok(ctx) if ctx.config.state_root != self.state_root => {
                self.problem(format!(
                    "state.root changed from {} to {}; restart watch to follow it",
                    self.state_root.display(),
                    ctx.config.state_root.display()
                ));
                return None;
            }
            Ok(ctx) => self.ctx = ctx,
            Err(report) => {
                self.problem(report.to_string());
                return None;
            }
        }
        self.rewatch();
        let snapshot = match reconcile::observe(&self.ctx) {
            Ok(snapshot) => snapshot,
            Err(err) => {
                self.problem(err.to_string());
                return None;
            }
        };
        self.problem_cleared();
        self.metrics.observe_plan(&snapshot.plan, epoch_now());
        Some(snapshot)
    }

    /// How long a roll may go without finishing a session before watch
    /// stops feeding the service manager's watchdog: longer than any one
    /// session takes (its grace and probe, the readiness wait after the
    /// sessions, at least the probe again, and a margin for the
    /// verification and tmux's calls): grace + 2 × probe + 41.5 s, as
    /// docs/watch.md says.
    pub(super) fn roll_patience(&self) -> Duration {
        let tmux = &self.ctx.config.routing.tmux;
        [
            tmux.resume_probe,
            tmux.resume_probe,
            crate::apply::ready::MIN_WINDOW,
            crate::apply::ready::SETTLE,
            ROLL_MARGIN,
        ]
        .into_iter()
        .try_fold(tmux.harness_kill_grace, Duration::checked_add)
        .unwrap_or(Duration::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_status_says_counts_only() {
        let mut status = Status::default();
        assert_eq!(status.to_string(), "starting");
        status.plan = Planned::Counts {
            sessions: 3,
            drifted: 2,
            unverified: 0,
        };
        assert_eq!(status.rolling(2), "3 sessions, 2 drifted; rolling 2");
        status.last_roll = Some((2, 0));
        assert_eq!(
            status.to_string(),
            "3 sessions, 2 drifted; last roll: 2 respawned, 0 failed"
        );
        status.plan = Planned::Counts {
            sessions: 3,
            drifted: 0,
            unverified: 1,
        };
        assert_eq!(
            status.to_string(),
            "3 sessions, 0 drifted, 1 unverified; last roll: 2 respawned, 0 failed"
        );
        status.plan = Planned::Blind(3);
        assert!(status
            .to_string()
            .starts_with("tmux did not answer; 3 sessions"));
        status.plan = Planned::Failed;
        assert!(status.to_string().starts_with("cannot plan;"));
    }
}
