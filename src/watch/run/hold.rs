//! Safe points in `watch --apply`: a drifted session inside a turn, or with
//! a client attached, is left out of a cycle's roll, and a held turn's end
//! wakes the loop (see `wait`). Kept apart from the cycle in [`super`].

use super::*;
use crate::plan::SafePoint;

impl Watch {
    /// Takes the sessions that are not at a safe point out of this cycle's
    /// roll: a running turn is rolled when it ends (a hook's write wakes the
    /// loop, see `wait`), an attached session when it is detached (the next
    /// cycle that finds it so). Says so once per change.
    /// Returns how many it held.
    pub(super) fn hold_for_safe_points(
        &mut self,
        drifted: &[&SessionPlan],
        to_roll: &mut BTreeSet<String>,
    ) -> usize {
        // The person ended it: not held, and never rolled (`apply` would
        // skip it too); nothing to wait for.
        to_roll.retain(|label| {
            !drifted
                .iter()
                .any(|s| s.label() == label && s.apply_will == Some(SafePoint::LeaveEnded))
        });
        let held: Vec<&SessionPlan> = drifted
            .iter()
            .copied()
            .filter(|s| to_roll.contains(s.label()))
            .filter(|s| !matches!(s.apply_will, None | Some(SafePoint::RollNow)))
            .collect();
        let in_turn: BTreeSet<i32> = held
            .iter()
            .filter(|s| s.activity.in_turn())
            .filter_map(|s| s.pane_pid)
            .collect();
        let said: BTreeSet<String> = held.iter().map(|s| s.label().to_owned()).collect();
        if said != self.said.held && !held.is_empty() {
            for s in &held {
                tracing::info!(
                    "{}: {}; rolled {}",
                    s.label(),
                    if s.activity.in_turn() {
                        match &s.busy_since {
                            Some(since) => {
                                format!("{} since {since} (its turn is running)", s.activity)
                            }
                            None => format!("{} (its turn is running)", s.activity),
                        }
                    } else {
                        format!("{} tmux client(s) attached", s.attached)
                    },
                    if s.activity.in_turn() {
                        "the moment its turn ends"
                    } else {
                        "once no client is attached"
                    }
                );
            }
        }
        self.said.held = said;
        for s in &held {
            to_roll.remove(s.label());
        }
        self.in_turn = in_turn;
        held.len()
    }
}
