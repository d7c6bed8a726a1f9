//! Probing one session through the one-call fleet listing.

use crate::observed::fleet::{FleetView, NoHarnessPane};
use crate::observed::{fleet, Pane, Probe};
use crate::tmux::Tmux;

/// What tmux says about `name`, and the pane its harness runs in.
pub fn probe(tmux: &Tmux, name: &str) -> (Probe, Option<Pane>) {
    let view = fleet::observe(tmux);
    (view.probe(name), view.harness_pane(name).cloned())
}

/// [`probe`], saying why no pane was taken for the harness; the second
/// half is `None` when tmux did not answer.
pub fn probe_harness(tmux: &Tmux, name: &str) -> (Probe, Option<Result<Pane, NoHarnessPane>>) {
    match fleet::observe(tmux) {
        FleetView::Answered(fleet) => (
            fleet.probe(name),
            Some(fleet.find_harness_pane(name).cloned()),
        ),
        FleetView::Unknown(_) => (Probe::Unknown, None),
    }
}
