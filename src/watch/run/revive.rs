//! `watch --start-down`: after a tmux server restart (or a session killed
//! by hand), the active sessions the plan counts as down are brought back
//! as `sessions start --all` brings them, each verified. Tried once per
//! distinct set of down sessions, so one that is left alone (its
//! conversation cannot be resumed) is said once, not every cycle.

use super::*;
use crate::ops::sessions::start_all::{start_all, Outcome as StartOutcome, StartAllOptions};

impl Watch {
    pub(super) fn start_down(&mut self, snapshot: &Snapshot) {
        let down: BTreeSet<String> = snapshot.plan.down.iter().cloned().collect();
        if !self.options.start_down || down.is_empty() || down == self.tried_down {
            if down.is_empty() {
                self.tried_down.clear();
            }
            return;
        }
        self.tried_down = down;
        tracing::info!(
            "{} registered session(s) down: starting them (--start-down)",
            self.tried_down.len()
        );
        let options = StartAllOptions {
            dry_run: false,
            parallelism: self.options.parallelism,
        };
        let progress = |revival: &crate::ops::sessions::start_all::Revival| {
            let line = crate::views::sessions::revival_line(revival);
            match revival.outcome {
                StartOutcome::Started => tracing::info!("{line}"),
                _ => tracing::warn!("{line}"),
            }
        };
        match start_all(&self.ctx, &options, &progress) {
            Ok(report) => {
                let s = &report.summary;
                tracing::info!(
                    "start-down finished: {} started, {} left alone, {} failed",
                    s.started,
                    s.left_alone,
                    s.failed
                );
                // Plan again at once: say whether the fleet is whole.
                self.recheck = true;
            }
            Err(e) => tracing::warn!("start-down could not run: {e}"),
        }
    }
}
