//! Registered sessions that should be running and are not: active records
//! whose tmux session is gone (a reboot, a `tmux kill-server`, a session
//! killed by hand). A plan never starts them (`apply` and the restarts
//! refresh what runs); it counts them and names the verb that brings them
//! back, `sessions start --all`.

use crate::observed::residue::ResidueView;
use crate::observed::{FleetView, Observation, Probe};

/// The labels of the active sessions `targets` selects whose tmux session
/// is absent (not dead: a dead pane is kept for a person to read, and
/// not moved: a renamed session still runs). Empty when tmux did not answer.
pub fn down(
    observation: &Observation,
    selected: &dyn Fn(&crate::observed::ManagedSession) -> bool,
) -> Vec<String> {
    let FleetView::Answered(fleet) = &observation.fleet else {
        return Vec::new();
    };
    observation
        .sessions
        .iter()
        .filter(|s| s.active && selected(s))
        .filter(|s| fleet.probe(&s.tmux_target) == Probe::Absent)
        .filter(|s| !fleet.runs_elsewhere(&s.tmux_target))
        .map(|s| s.label().to_owned())
        .collect()
}

/// Whether tmux said no server runs on the socket the plan asked: its
/// sessions cannot be seen there, which is never "not running".
pub fn server_down(observation: &Observation) -> bool {
    matches!(observation.residue, Some(ResidueView::NoServer))
}
