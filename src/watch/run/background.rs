//! `watch --apply` over Claude Code's background host (`docs/hosts.md`):
//! when a managed background session drifted, the same roll as `apply`'s
//! (`apply::background`), under the apply lock, never waiting for a safe
//! point: a busy or waiting session is deferred, and the loop looks again
//! every `HELD_RELOOK` until it is idle, as it does for a held pane.

use super::*;
use crate::apply::background::{BackgroundOutcome, DaemonOutcome};
use crate::apply::lock::ApplyLock;
use crate::events::Event;
use crate::ops::apply::RollCommand;
use crate::plan::background::{BackgroundAction, BackgroundWill};

impl Watch {
    pub(super) fn roll_background(&mut self, snapshot: &Snapshot) {
        let Some(host) = &snapshot.plan.background_host else {
            return;
        };
        if !self.auto_apply() || !host.has_drift() || interrupt::requested() {
            return;
        }
        // Every drifted session mid-turn or asking, under a daemon that
        // holds the policy: nothing to do yet, and no roll to log; looked
        // at again within seconds, as a held pane is.
        let ready = host.sessions.iter().any(|s| {
            s.action == BackgroundAction::Respawn && s.apply_will == Some(BackgroundWill::RollNow)
        });
        if !ready && !host.daemon_drifts() {
            self.holding = true;
            return;
        }
        let Ok(_lock) =
            ApplyLock::acquire(&self.ctx.config.state_root, RollCommand::Watch.as_str())
        else {
            // Another roll runs: its end brings a re-check.
            self.retry_at = Some(Instant::now() + LOCK_RETRY);
            return;
        };
        let took = crate::clock::Stopwatch::start_on(self.ctx.events.clock());
        self.ctx.events.emit(crate::ops::apply::started(
            RollCommand::Watch,
            &snapshot.plan,
            0,
            Some(host.to_respawn()),
        ));
        let report = crate::apply::background::roll_host(
            &self.ctx.config,
            &snapshot.policy,
            host,
            crate::apply::background::HostRoll {
                drain: Duration::ZERO,
                parallelism: self.options.parallelism,
            },
        );
        // `history` reads the host's roll back as one of watch's.
        self.ctx.events.emit(Event::ApplyFinished {
            command: RollCommand::Watch,
            failed: report.went_wrong(),
            interrupted: false,
            duration_ms: Some(crate::clock::millis(
                took.elapsed_on(self.ctx.events.clock()),
            )),
            sessions: Vec::new(),
            background_host: Some(report.clone()),
        });
        if let Some(daemon) = &report.daemon {
            match daemon.outcome {
                DaemonOutcome::Kept => {}
                DaemonOutcome::Replaced => tracing::info!(
                    "background daemon replaced (workers kept): pid {} → {}",
                    daemon.old_pid.map_or("none".into(), |p| p.to_string()),
                    daemon.new_pid.map_or("none".into(), |p| p.to_string())
                ),
                DaemonOutcome::Refused => tracing::warn!(
                    "background daemon not replaced: {}",
                    daemon.detail.as_deref().unwrap_or("")
                ),
            }
        }
        let mut deferred = false;
        for s in &report.sessions {
            let label = s.reference.as_deref().unwrap_or(&s.id);
            let detail = s
                .detail
                .as_deref()
                .map(|d| format!(" ({d})"))
                .unwrap_or_default();
            match s.outcome {
                BackgroundOutcome::Restarted => {
                    tracing::info!("{label} (background {}): restarted", s.id)
                }
                BackgroundOutcome::Deferred => {
                    deferred = true;
                    tracing::info!("{label} (background {}): deferred{detail}", s.id)
                }
                BackgroundOutcome::NotAttempted | BackgroundOutcome::Failed => {
                    tracing::warn!("{label} (background {}): not restarted{detail}", s.id)
                }
            }
        }
        // A held background session is looked at again within seconds.
        self.holding |= deferred;
    }
}
