//! `watch --apply` over the hosts beside tmux (`docs/hosts.md`): when a
//! managed session of one drifted, the same roll as `apply`'s
//! (`hosts::roll_all`), under the apply lock, never waiting for a safe
//! point: a busy or waiting session is deferred, and the loop looks again
//! every `HELD_RELOOK` until it is idle, as it does for a held pane.

use super::*;
use crate::apply::lock::ApplyLock;
use crate::events::Event;
use crate::hosts::{HostOutcome, LayerOutcome};
use crate::ops::apply::RollCommand;
use crate::plan::host::{HostAction, HostPlan, HostWill};

impl Watch {
    pub(super) fn roll_hosts(&mut self, snapshot: &Snapshot) {
        if !self.auto_apply() || interrupt::requested() {
            return;
        }
        let drifted: Vec<&HostPlan> = snapshot
            .plan
            .hosts
            .iter()
            .filter(|h| h.has_drift())
            .collect();
        if drifted.is_empty() {
            return;
        }
        // Every drifted session mid-turn or asking, under a layer that
        // holds the policy: nothing to do yet, and no roll to log; looked
        // at again within seconds, as a held pane is.
        let ready: Vec<HostPlan> = drifted
            .into_iter()
            .filter(|host| {
                host.layer_drifts()
                    || host.sessions.iter().any(|s| {
                        s.action == HostAction::Respawn && s.apply_will == Some(HostWill::RollNow)
                    })
            })
            .cloned()
            .collect();
        if ready.is_empty() {
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
            Some(ready.iter().map(HostPlan::to_respawn).sum()),
        ));
        let reports = crate::hosts::roll_all(
            &self.ctx.config,
            &snapshot.policy,
            &ready,
            crate::hosts::HostRoll {
                drain: Duration::ZERO,
                parallelism: self.options.parallelism,
            },
        );
        // `history` reads the hosts' roll back as one of watch's.
        self.ctx.events.emit(Event::ApplyFinished {
            command: RollCommand::Watch,
            failed: reports.iter().any(|r| r.went_wrong()),
            interrupted: false,
            duration_ms: Some(crate::clock::millis(
                took.elapsed_on(self.ctx.events.clock()),
            )),
            sessions: Vec::new(),
            hosts: reports.clone(),
        });
        for report in &reports {
            // A held session is looked at again within seconds.
            self.holding |= log_host_roll(report);
        }
    }
}

/// Logs what a roll of one host did; whether a session was held.
fn log_host_roll(report: &crate::hosts::HostRollReport) -> bool {
    let words = crate::hosts::words(report.host);
    if let Some(layer) = &report.layer {
        let pid = |p: Option<i32>| p.map_or("none".into(), |p| p.to_string());
        match layer.outcome {
            LayerOutcome::Kept => {}
            LayerOutcome::Replaced => tracing::info!(
                "{} {} replaced (sessions kept): pid {} → {}",
                words.session,
                words.layer,
                pid(layer.old_pid),
                pid(layer.new_pid)
            ),
            LayerOutcome::Refused => tracing::warn!(
                "{} {} not replaced: {}",
                words.session,
                words.layer,
                layer.detail.as_deref().unwrap_or("")
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
        let session = words.session;
        match s.outcome {
            HostOutcome::Restarted => tracing::info!("{label} ({session} {}): restarted", s.id),
            HostOutcome::Deferred => {
                deferred = true;
                tracing::info!("{label} ({session} {}): deferred{detail}", s.id)
            }
            HostOutcome::NotAttempted | HostOutcome::Failed => {
                tracing::warn!("{label} ({session} {}): not restarted{detail}", s.id)
            }
        }
    }
    deferred
}
