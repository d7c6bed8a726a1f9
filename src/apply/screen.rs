//! What a held session's screen says, beside what its hooks say.
//!
//! The hooks miss three things a roll must not miss (`docs/safe-points.md`):
//! an interrupt (Escape, Ctrl-C, No or Esc on a dialog) fires no hook, so
//! the hooks keep a session `busy` or `waiting` for good; a `!` command
//! fires no `UserPromptSubmit`, so the hooks call it `idle` while it runs.
//! The harness reads its own screen ([`crate::harness::Harness::turn_screen`]);
//! this module asks tmux for the panes of the sessions a roll is holding or
//! about to end, and decides with [`held`], a pure rule.

use super::report::Outcome;
use crate::harness::turn_screen::TurnScreen;
use crate::plan::SessionPlan;
use crate::runner::batch::Batcher;
use std::ffi::OsString;
use std::time::{Duration, Instant};

/// How far apart the two looks are that call a turn over when the hooks
/// still say it runs: a screen redrawn between two frames of a turn (the
/// prompt just submitted, a dialog just answered) is not taken for its end.
pub const LOOKS_APART: Duration = Duration::from_millis(900);

/// Each session's screen, in one batch through the roll's tmux client; a
/// pane tmux did not show, or a harness the-loop does not know, is
/// [`TurnScreen::Unknown`].
pub fn look(tmux: &Batcher, sessions: &[&SessionPlan]) -> Vec<TurnScreen> {
    let panes: Vec<Option<&str>> = sessions.iter().map(|s| s.pane_id.as_deref()).collect();
    let commands: Vec<Vec<OsString>> = panes
        .iter()
        .flatten()
        .map(|pane| {
            ["capture-pane", "-p", "-t", pane]
                .map(OsString::from)
                .to_vec()
        })
        .collect();
    let mut answers = tmux.run_all(commands).into_iter();
    sessions
        .iter()
        .zip(&panes)
        .map(|(session, pane)| {
            let screen = pane
                .and_then(|_| answers.next())
                .and_then(|answer| answer.ok())
                .filter(|out| out.success)?;
            let harness = crate::harness::by_name(&session.record.as_ref()?.harness)?;
            Some(harness.turn_screen(&screen.stdout))
        })
        .map(|screen| screen.unwrap_or(TurnScreen::Unknown))
        .collect()
}

/// What a roll does with a held session now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Held {
    /// Still in a turn (by its hooks or its screen): keep holding it.
    Hold,
    /// Between turns by both: roll it.
    Ready,
    /// The hooks say a turn runs, the screen has shown none twice, `since`
    /// the first look: the turn was interrupted. Roll it.
    Interrupted,
}

/// The rule: the screen's `esc to interrupt` or dialog holds a session
/// whatever its hooks say (a `!` command); a screen between turns releases
/// one the hooks still call busy only on a second look [`LOOKS_APART`]
/// after the first (`quiet_since`, kept by the caller); a screen that says
/// nothing known leaves the hooks' word.
pub fn held(
    hooks_in_turn: bool,
    screen: TurnScreen,
    quiet_since: &mut Option<Instant>,
    now: Instant,
) -> Held {
    match screen {
        TurnScreen::Running | TurnScreen::Asking => {
            *quiet_since = None;
            Held::Hold
        }
        TurnScreen::Between if hooks_in_turn => match *quiet_since {
            Some(first) if now.saturating_duration_since(first) >= LOOKS_APART => Held::Interrupted,
            Some(_) => Held::Hold,
            None => {
                *quiet_since = Some(now);
                Held::Hold
            }
        },
        _ if hooks_in_turn => {
            *quiet_since = None;
            Held::Hold
        }
        _ => Held::Ready,
    }
}

/// Why a session the screen holds is held, for its `deferred` detail.
pub fn held_words(screen: TurnScreen) -> Option<&'static str> {
    match screen {
        TurnScreen::Running => Some("busy: its screen shows a running turn or `!` command"),
        TurnScreen::Asking => Some("waiting: its screen shows a dialog for a person"),
        TurnScreen::Between | TurnScreen::Unknown => None,
    }
}

/// The last look before the signal (the roll's `safe_point` check), after
/// the hooks' verdict: the screen, twice when the hooks say a turn runs and
/// the screen shows none. `Err` is the outcome the session gets instead.
pub fn last_look(
    tmux: &Batcher,
    session: &SessionPlan,
    hooks: HookVerdict,
) -> Result<(), (Outcome, String)> {
    let (in_turn, hooks_words) = match hooks {
        HookVerdict::Ended(why) => return Err((Outcome::Skipped, why)),
        HookVerdict::InTurn(why) => (true, Some(why)),
        HookVerdict::Between => (false, None),
    };
    let mut quiet_since = None;
    loop {
        let screen = look(tmux, &[session])[0];
        match held(in_turn, screen, &mut quiet_since, Instant::now()) {
            Held::Ready | Held::Interrupted => return Ok(()),
            Held::Hold if quiet_since.is_some() => std::thread::sleep(LOOKS_APART),
            Held::Hold => {
                let why = hooks_words
                    .or_else(|| held_words(screen).map(str::to_owned))
                    .unwrap_or_else(|| "busy".to_owned());
                return Err((Outcome::Deferred, why));
            }
        }
    }
}

/// What a session's hooks say right now, for the last look.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookVerdict {
    /// The person ended it: never rolled (`skipped`, with why).
    Ended(String),
    /// A turn runs, by the hooks (with "busy since …").
    InTurn(String),
    /// Between turns, or nothing known.
    Between,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_screen_holds_a_bang_command_and_releases_an_interrupt_on_a_second_look() {
        let t0 = Instant::now();
        let later = t0 + LOOKS_APART;
        let mut quiet = None;
        // A `!` command: hooks idle, screen running.
        assert_eq!(held(false, TurnScreen::Running, &mut quiet, t0), Held::Hold);
        assert_eq!(held(false, TurnScreen::Asking, &mut quiet, t0), Held::Hold);
        // Between turns by both.
        assert_eq!(
            held(false, TurnScreen::Between, &mut quiet, t0),
            Held::Ready
        );
        assert_eq!(
            held(false, TurnScreen::Unknown, &mut quiet, t0),
            Held::Ready
        );
        // Interrupted: hooks busy, screen quiet twice, far enough apart.
        assert_eq!(held(true, TurnScreen::Between, &mut quiet, t0), Held::Hold);
        assert_eq!(quiet, Some(t0));
        let soon = t0 + LOOKS_APART / 2;
        assert_eq!(
            held(true, TurnScreen::Between, &mut quiet, soon),
            Held::Hold
        );
        assert_eq!(
            held(true, TurnScreen::Between, &mut quiet, later),
            Held::Interrupted
        );
        // A turn seen again in between starts the count over.
        let mut quiet = None;
        assert_eq!(held(true, TurnScreen::Between, &mut quiet, t0), Held::Hold);
        assert_eq!(
            held(true, TurnScreen::Running, &mut quiet, soon),
            Held::Hold
        );
        assert_eq!(quiet, None);
        assert_eq!(
            held(true, TurnScreen::Between, &mut quiet, later),
            Held::Hold
        );
        // A screen that says nothing known leaves the hooks' word.
        let mut quiet = None;
        assert_eq!(
            held(true, TurnScreen::Unknown, &mut quiet, later),
            Held::Hold
        );
    }
}
