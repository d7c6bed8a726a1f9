//! The delivery and occupancy rules as pure functions of what tmux said.
//!
//! A live occupant is never killed or spawned over; unknown (tmux did not
//! answer) is read as live, never as absent; a dead occupant is cleared and
//! the clear verified; a `duplicate session` answer is re-decided once.

use crate::observed::Probe;
use serde::Serialize;

/// What a delivery does first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Entry {
    /// Paste into the recorded session.
    Paste,
    /// The record names no session yet, but its name is held by a live
    /// session: that is the respawn path meeting a live occupant.
    PasteIntoOccupant,
    /// The session is gone (absent, or retained with every pane dead).
    Respawn,
}

pub fn on_delivery(target_recorded: bool, probe: Probe) -> Entry {
    match (target_recorded, probe) {
        (_, Probe::Unknown) | (true, Probe::Live) => Entry::Paste,
        (false, Probe::Live) => Entry::PasteIntoOccupant,
        (_, Probe::Dead | Probe::Absent) => Entry::Respawn,
    }
}

/// What the respawn path does about whatever holds the name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Occupancy {
    /// Nothing holds it: spawn.
    Spawn,
    /// A dead occupant: clear it, verify, then spawn.
    Clear,
    /// A live (or possibly live) occupant: deliver into it instead.
    DeliverInto,
}

pub fn on_respawn_path(probe: Probe) -> Occupancy {
    match probe {
        Probe::Absent => Occupancy::Spawn,
        Probe::Dead => Occupancy::Clear,
        Probe::Live | Probe::Unknown => Occupancy::DeliverInto,
    }
}

/// What the probe after clearing a dead occupant means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum AfterClear {
    /// Verified gone.
    Spawn,
    /// Something live holds the name now: deliver into it.
    DeliverInto,
    /// Still there and dead: the occupant cannot be cleared. The event is
    /// dropped and its delivery id kept, so the next cycle does not repeat
    /// the same collision.
    DropOccupied,
    /// tmux did not answer: nothing is known, so the dispatch fails and is
    /// retried later.
    Fail,
}

pub fn after_clear(probe: Probe) -> AfterClear {
    match probe {
        Probe::Absent => AfterClear::Spawn,
        Probe::Live => AfterClear::DeliverInto,
        Probe::Dead => AfterClear::DropOccupied,
        Probe::Unknown => AfterClear::Fail,
    }
}

/// How many times `new-session` may run for one delivery: once, and once
/// more after tmux answered `duplicate session` and a fresh probe re-decided.
pub const SPAWN_ROUNDS: usize = 2;

/// After `duplicate session` in round `round` (0-based): re-decide, or give up.
pub fn redecide_after_duplicate(round: usize) -> bool {
    round + 1 < SPAWN_ROUNDS
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fmt::Write;

    const PROBES: [Probe; 4] = [Probe::Live, Probe::Dead, Probe::Absent, Probe::Unknown];

    #[test]
    fn decision_table() {
        let mut table = String::new();
        for recorded in [true, false] {
            for probe in PROBES {
                writeln!(
                    table,
                    "delivery  target_recorded={recorded:<5}  probe={:<7} -> {:?}",
                    probe.as_str(),
                    on_delivery(recorded, probe)
                )
                .unwrap();
            }
        }
        for probe in PROBES {
            writeln!(
                table,
                "respawn   probe={:<7} -> {:?}",
                probe.as_str(),
                on_respawn_path(probe)
            )
            .unwrap();
        }
        for probe in PROBES {
            writeln!(
                table,
                "cleared   probe={:<7} -> {:?}",
                probe.as_str(),
                after_clear(probe)
            )
            .unwrap();
        }
        for round in 0..3 {
            writeln!(
                table,
                "duplicate round={round} -> redecide={}",
                redecide_after_duplicate(round)
            )
            .unwrap();
        }
        insta::assert_snapshot!(table);
    }

    #[test]
    fn unknown_is_never_read_as_absent() {
        assert_ne!(on_delivery(true, Probe::Unknown), Entry::Respawn);
        assert_ne!(on_delivery(false, Probe::Unknown), Entry::Respawn);
        assert_ne!(on_respawn_path(Probe::Unknown), Occupancy::Spawn);
        assert_ne!(after_clear(Probe::Unknown), AfterClear::Spawn);
    }

    #[test]
    fn a_live_occupant_is_never_spawned_over() {
        assert_eq!(on_respawn_path(Probe::Live), Occupancy::DeliverInto);
        assert_eq!(after_clear(Probe::Live), AfterClear::DeliverInto);
    }
}
