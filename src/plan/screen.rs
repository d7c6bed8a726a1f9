//! What a session's screen says about its turn, beside what its hooks say.
//!
//! The hooks miss three things a roll must not miss (`docs/safe-points.md`):
//! an interrupt (Escape, Ctrl-C, No or Esc on a dialog) fires no hook, so
//! the hooks keep a session `busy` or `waiting` for good; a `!` command
//! fires no `UserPromptSubmit`, so the hooks call it `idle` while it runs.
//! The harness reads its own screen ([`crate::harness::Harness::turn_screen`]);
//! [`look`] asks tmux for the panes, and [`held`] is the rule, pure.

use super::SessionPlan;
use crate::harness::turn_screen::TurnScreen;
use crate::tmux::Answer;
use std::ffi::OsString;
use std::time::{Duration, Instant};

/// How far apart the two looks are that call a turn over when the hooks
/// still say it runs: a screen redrawn between two frames of a turn (the
/// prompt just submitted, a dialog just answered) is not taken for its end.
pub const LOOKS_APART: Duration = Duration::from_millis(900);

/// Each session's screen, in one batch (`run` sends the commands: the
/// roll's control client, or one tmux client for a plan); a
/// pane tmux did not show, or a harness the-loop does not know, is
/// [`TurnScreen::Unknown`].
pub fn look(
    run: &dyn Fn(Vec<Vec<OsString>>) -> Vec<Answer>,
    sessions: &[&SessionPlan],
) -> Vec<TurnScreen> {
    let panes: Vec<(Option<&str>, Option<&str>)> = sessions
        .iter()
        .map(|s| {
            let harness = s.record.as_ref().map(|r| r.harness.as_str());
            (s.pane_id.as_deref(), harness)
        })
        .collect();
    look_at(run, &panes)
}

/// [`look`] for panes given as (pane id, the harness's name).
pub fn look_at(
    run: &dyn Fn(Vec<Vec<OsString>>) -> Vec<Answer>,
    panes: &[(Option<&str>, Option<&str>)],
) -> Vec<TurnScreen> {
    let commands: Vec<Vec<OsString>> = panes
        .iter()
        .filter_map(|(pane, _)| *pane)
        .map(|pane| {
            ["capture-pane", "-p", "-t", pane]
                .map(OsString::from)
                .to_vec()
        })
        .collect();
    let mut answers = run(commands).into_iter();
    panes
        .iter()
        .map(|(pane, harness)| {
            let screen = pane
                .and_then(|_| answers.next())
                .and_then(|answer| answer.ok())
                .filter(|out| out.success)?;
            Some(crate::harness::by_name(harness.as_ref()?)?.turn_screen(&screen.stdout))
        })
        .map(|screen| screen.unwrap_or(TurnScreen::Unknown))
        .collect()
}

/// Whether hooks quiet since `last_ms` have been quiet long enough
/// ([`LOOKS_APART`]) for one look at the screen to stand for two: a turn
/// that had just begun has had that long to show.
pub fn hooks_quiet(last_ms: Option<u64>, now_ms: u64) -> bool {
    let apart = u64::try_from(LOOKS_APART.as_millis()).unwrap_or(u64::MAX);
    last_ms.is_some_and(|last| now_ms.saturating_sub(last) >= apart)
}

/// Which of these harnesses, each in a turn by its hooks (its pane id, its
/// harness's name, its hooks' last event), shows no turn on screen: it was
/// interrupted. Only those whose hooks have been quiet for [`LOOKS_APART`]
/// are looked at, all in one tmux client; the others read `false`. What
/// `plan` and `sessions list` call `interrupted`.
pub fn interrupted(
    tmux: &crate::tmux::Tmux,
    in_turn: &[(&str, Option<&str>, Option<u64>)],
) -> Vec<bool> {
    let now_ms = crate::clock::now_ms();
    let quiet: Vec<usize> = (0..in_turn.len())
        .filter(|i| hooks_quiet(in_turn[*i].2, now_ms))
        .collect();
    let mut found = vec![false; in_turn.len()];
    if quiet.is_empty() {
        return found;
    }
    let panes: Vec<(Option<&str>, Option<&str>)> = quiet
        .iter()
        .map(|i| (Some(in_turn[*i].0), in_turn[*i].1))
        .collect();
    let screens = look_at(
        &|commands| crate::runner::batch::run_each(tmux, &commands),
        &panes,
    );
    for (i, screen) in quiet.into_iter().zip(screens) {
        found[i] = screen == TurnScreen::Between;
    }
    found
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
