//! Safe points in `watch --apply`: a drifted session that is not at one (a
//! turn by its hooks, a running `!` command, a menu, a background shell or
//! a draft on its screen, nothing that says it is between turns, or a
//! client attached) is left out of a cycle's roll. A held turn's end by its
//! hooks wakes the loop at once (see `wait`); everything else that releases
//! a session fires no hook, so the loop looks again every [`HELD_RELOOK`]
//! while anything is held. Kept apart from the cycle in [`super`].

use super::*;
use crate::plan::screen::{held_words, UNKNOWN_WORDS};
use crate::plan::SafePoint;

impl Watch {
    /// Takes the sessions that are not at a safe point out of this cycle's
    /// roll, and says why each is held and when it is rolled, once per
    /// change of either. Returns how many it held.
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
        let lines: BTreeSet<String> = held.iter().map(|s| held_line(s)).collect();
        // Only what is new is said: the loop looks every `HELD_RELOOK`
        // while it holds, and a session still held for the same reason was
        // said already. A new reason (the `!` command ended, a menu opened)
        // is a new line.
        for line in lines.difference(&self.said.held) {
            tracing::info!("{line}");
        }
        self.said.held = lines;
        for s in &held {
            to_roll.remove(s.label());
        }
        self.in_turn = in_turn;
        self.holding = !held.is_empty();
        held.len()
    }
}

/// `LABEL: WHY; rolled WHEN` for a held session.
fn held_line(s: &SessionPlan) -> String {
    let (why, when) = why_held(s);
    format!("{}: {why}; rolled {when}", s.label())
}

/// Why `s` is held and when watch rolls it, in the words `plan` and `apply`
/// use: its hooks' turn first (they say since when), then what its screen
/// shows ([`held_words`]), then that nothing says ([`UNKNOWN_WORDS`]). An
/// attached client holds it whatever else does (the plan's rule).
fn why_held(s: &SessionPlan) -> (String, &'static str) {
    let turn = s.activity.in_turn().then(|| {
        let running = match s.activity {
            crate::activity::Activity::Waiting => "its turn asks a person",
            _ => "its turn is running",
        };
        match &s.busy_since {
            Some(since) => format!("{} since {since} ({running})", s.activity),
            None => format!("{} ({running})", s.activity),
        }
    });
    if s.apply_will == Some(SafePoint::LeaveAttached) {
        let attached = format!("{} tmux client(s) attached", s.attached);
        return match turn {
            Some(turn) => (
                format!("{attached}; {turn}"),
                "once no client is attached and its turn has ended",
            ),
            None => (attached, "once no client is attached"),
        };
    }
    if let Some(turn) = turn {
        return (turn, "the moment its turn ends");
    }
    match s.screen.and_then(held_words) {
        Some(words) => (words.to_owned(), "once its screen clears"),
        None => (
            UNKNOWN_WORDS.to_owned(),
            "once its screen shows it between turns",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::activity::Activity;
    use crate::harness::turn_screen::TurnScreen;
    use crate::observed::Probe;
    use crate::plan::{Action, SessionKind};

    fn held(will: SafePoint, activity: Activity, screen: Option<TurnScreen>) -> SessionPlan {
        SessionPlan {
            reference: Some("github:octo/repo#1".into()),
            action: Action::Respawn,
            apply_will: Some(will),
            activity,
            screen,
            ..SessionPlan::new(SessionKind::WorkItem, "loop-x".into(), Probe::Live)
        }
    }

    #[test]
    fn each_held_session_says_its_own_reason_and_when_it_is_rolled() {
        let busy = SessionPlan {
            busy_since: Some("2026-12-03T09:00:00Z".into()),
            ..held(SafePoint::WaitBusy, Activity::Busy, None)
        };
        assert_eq!(
            held_line(&busy),
            "github:octo/repo#1: busy since 2026-12-03T09:00:00Z (its turn is running); \
             rolled the moment its turn ends"
        );
        let asking = held(SafePoint::WaitWaiting, Activity::Waiting, None);
        assert_eq!(
            why_held(&asking),
            (
                "waiting (its turn asks a person)".into(),
                "the moment its turn ends"
            )
        );
        // A `!` command: the hooks say idle, the screen holds it.
        let bang = held(
            SafePoint::WaitBusy,
            Activity::Idle,
            Some(TurnScreen::Running),
        );
        assert_eq!(
            why_held(&bang),
            (
                held_words(TurnScreen::Running).unwrap().into(),
                "once its screen clears"
            )
        );
        for screen in [
            TurnScreen::Asking,
            TurnScreen::Background,
            TurnScreen::Draft,
        ] {
            let s = held(SafePoint::WaitScreen, Activity::Idle, Some(screen));
            assert_eq!(why_held(&s).0, held_words(screen).unwrap(), "{screen:?}");
        }
        let unknown = held(SafePoint::WaitUnknown, Activity::Unknown, None);
        assert_eq!(why_held(&unknown).0, UNKNOWN_WORDS);
        let attached = SessionPlan {
            attached: 2,
            ..held(SafePoint::LeaveAttached, Activity::Idle, None)
        };
        assert_eq!(
            why_held(&attached),
            (
                "2 tmux client(s) attached".into(),
                "once no client is attached"
            )
        );
        // Never the old catch-all: what is not a turn is not "attached".
        assert!(!held_line(&bang).contains("attached"));
        assert!(!held_line(&unknown).contains("attached"));
    }
}
