//! What a cycle settles after its plan and before it decides: whether the
//! files it read are still being written, and what an earlier roll left in
//! the intent journal. Kept apart from the cycle in [`super`] for size.

use super::*;
use crate::registry::journal::Journal;

impl Watch {
    /// Whether this cycle must stop after its plan because the files are
    /// still being written (an unsettled look, see [`Debouncer`]): it does,
    /// unless the desired state read the same at the previous unsettled
    /// look (a file rewritten again and again with the same content is
    /// settled enough). Said once per burst; a settled look forgets it.
    pub(super) fn still_being_written(&mut self, snapshot: &Snapshot) -> bool {
        if !std::mem::take(&mut self.settling) {
            self.unsettled = None;
            return false;
        }
        let desired = desired_fingerprint(&self.ctx.config, &snapshot.policy.file_state());
        if self.unsettled.is_none() {
            tracing::info!(
                "the env file or the config is still being written; watch acts on it once it has been quiet for {} ms",
                self.options.debounce.as_millis()
            );
        }
        let steady = self.unsettled == Some(desired);
        self.unsettled = Some(desired);
        !steady
    }

    /// With auto-apply, clears the intent journal's entries that rolls
    /// which ended before their verification (a `watch` or `apply` killed
    /// in the probe wait) left for sessions now up to date, as `apply`
    /// does in its roll: this cycle may roll nothing there.
    pub(super) fn clear_finished_rolls(&mut self, snapshot: &Snapshot) {
        if !self.auto_apply() || Journal::under(&self.state_root).entries().is_empty() {
            return;
        }
        match crate::ops::apply::clear_finished_rolls(&self.ctx, &snapshot.plan) {
            Ok(0) => {}
            Ok(n) => tracing::info!(
                "cleared {n} intent journal {} left by a roll that ended before its verification; {} its new harness",
                if n == 1 { "entry" } else { "entries" },
                if n == 1 { "the session runs" } else { "each session runs" }
            ),
            // A roll in flight owns its entries; the next cycle looks again.
            Err(LockError::Held { .. }) => {}
            Err(err) => tracing::warn!("cannot clear the intent journal: {err}"),
        }
    }
}
