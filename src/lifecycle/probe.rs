//! Probing one session through the one-call fleet listing.

use crate::observed::{fleet, Pane, Probe};
use crate::tmux::Tmux;

/// What tmux says about `name`, and the pane its harness runs in.
pub fn probe(tmux: &Tmux, name: &str) -> (Probe, Option<Pane>) {
    let view = fleet::observe(tmux);
    (view.probe(name), view.harness_pane(name).cloned())
}
