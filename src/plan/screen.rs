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

/// What a session's hooks say, for [`held`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hooks {
    /// A turn runs, or asks a person.
    InTurn,
    /// Between turns: its last turn ended, or it has just started.
    Between,
    /// They never spoke for this process (no hooks, a harness launched
    /// before them, one started by hand): the screen alone decides.
    Silent,
}

impl Hooks {
    /// What the hooks' activity says.
    pub fn of(activity: crate::activity::Activity) -> Hooks {
        use crate::activity::Activity;
        match activity {
            Activity::Busy | Activity::Waiting => Hooks::InTurn,
            Activity::Unknown => Hooks::Silent,
            Activity::Idle | Activity::Interrupted | Activity::Ended => Hooks::Between,
        }
    }
}

/// What a roll does with a held session now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Held {
    /// Something a person could lose is in it (by its hooks or its
    /// screen), or nothing says that nothing is: keep holding it.
    Hold,
    /// Between turns by both, nothing on screen to lose: roll it.
    Ready,
    /// The hooks say a turn runs, the screen has shown none twice, `since`
    /// the first look: the turn was interrupted. Roll it.
    Interrupted,
}

/// The rule. Whatever the hooks say, the screen holds a session while it
/// shows a running turn or `!` command, a dialog or menu, a background
/// shell, or a draft in the prompt box. A screen between turns releases one
/// the hooks still call busy only on a second look [`LOOKS_APART`] after
/// the first (`quiet_since`, kept by the caller). A screen that says
/// nothing known leaves the hooks' word, and where the hooks never spoke
/// either, nothing says the session can be ended: it is held ("unknown" is
/// never "rolls now").
pub fn held(
    hooks: Hooks,
    screen: TurnScreen,
    quiet_since: &mut Option<Instant>,
    now: Instant,
) -> Held {
    match screen {
        TurnScreen::Running | TurnScreen::Asking | TurnScreen::Background | TurnScreen::Draft => {
            *quiet_since = None;
            Held::Hold
        }
        TurnScreen::Between if hooks == Hooks::InTurn => match *quiet_since {
            Some(first) if now.saturating_duration_since(first) >= LOOKS_APART => Held::Interrupted,
            Some(_) => Held::Hold,
            None => {
                *quiet_since = Some(now);
                Held::Hold
            }
        },
        TurnScreen::Between => Held::Ready,
        TurnScreen::Unknown => match hooks {
            Hooks::InTurn => {
                *quiet_since = None;
                Held::Hold
            }
            Hooks::Silent => Held::Hold,
            Hooks::Between => Held::Ready,
        },
    }
}

/// Why a session the screen holds is held, for its `deferred` detail and
/// every view's label; `None` where the screen releases it.
pub fn held_words(screen: TurnScreen) -> Option<&'static str> {
    match screen {
        TurnScreen::Running => Some("busy: its screen shows a running turn or shell command"),
        TurnScreen::Asking => Some("held: a menu or dialog is open"),
        TurnScreen::Background => Some("held: a background shell or task runs"),
        TurnScreen::Draft => Some("held: a prompt is being written"),
        TurnScreen::Between | TurnScreen::Unknown => None,
    }
}

/// Why a session neither its hooks nor its screen speak for is held.
pub const UNKNOWN_WORDS: &str = "held: neither its hooks nor its screen say it is between turns";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_screen_holds_a_bang_command_and_releases_an_interrupt_on_a_second_look() {
        let t0 = Instant::now();
        let later = t0 + LOOKS_APART;
        let mut quiet = None;
        // A `!` command: hooks idle, screen running.
        assert_eq!(
            held(Hooks::Between, TurnScreen::Running, &mut quiet, t0),
            Held::Hold
        );
        assert_eq!(
            held(Hooks::Between, TurnScreen::Asking, &mut quiet, t0),
            Held::Hold
        );
        // Between turns by both.
        assert_eq!(
            held(Hooks::Between, TurnScreen::Between, &mut quiet, t0),
            Held::Ready
        );
        assert_eq!(
            held(Hooks::Between, TurnScreen::Unknown, &mut quiet, t0),
            Held::Ready
        );
        // Interrupted: hooks busy, screen quiet twice, far enough apart.
        assert_eq!(
            held(Hooks::InTurn, TurnScreen::Between, &mut quiet, t0),
            Held::Hold
        );
        assert_eq!(quiet, Some(t0));
        let soon = t0 + LOOKS_APART / 2;
        assert_eq!(
            held(Hooks::InTurn, TurnScreen::Between, &mut quiet, soon),
            Held::Hold
        );
        assert_eq!(
            held(Hooks::InTurn, TurnScreen::Between, &mut quiet, later),
            Held::Interrupted
        );
        // A turn seen again in between starts the count over.
        let mut quiet = None;
        assert_eq!(
            held(Hooks::InTurn, TurnScreen::Between, &mut quiet, t0),
            Held::Hold
        );
        assert_eq!(
            held(Hooks::InTurn, TurnScreen::Running, &mut quiet, soon),
            Held::Hold
        );
        assert_eq!(quiet, None);
        assert_eq!(
            held(Hooks::InTurn, TurnScreen::Between, &mut quiet, later),
            Held::Hold
        );
        // A screen that says nothing known leaves the hooks' word.
        let mut quiet = None;
        assert_eq!(
            held(Hooks::InTurn, TurnScreen::Unknown, &mut quiet, later),
            Held::Hold
        );
    }

    #[test]
    fn what_a_person_could_lose_holds_and_unknown_is_never_ready() {
        let t0 = Instant::now();
        for hooks in [Hooks::InTurn, Hooks::Between, Hooks::Silent] {
            for screen in [
                TurnScreen::Background,
                TurnScreen::Draft,
                TurnScreen::Asking,
            ] {
                let mut quiet = None;
                assert_eq!(
                    held(hooks, screen, &mut quiet, t0),
                    Held::Hold,
                    "{hooks:?} {screen:?}"
                );
                assert!(held_words(screen).is_some());
            }
        }
        let mut quiet = None;
        // The hooks never spoke: the screen decides.
        assert_eq!(
            held(Hooks::Silent, TurnScreen::Between, &mut quiet, t0),
            Held::Ready
        );
        assert_eq!(
            held(Hooks::Silent, TurnScreen::Running, &mut quiet, t0),
            Held::Hold
        );
        // Neither says: held, never rolled on a guess.
        assert_eq!(
            held(Hooks::Silent, TurnScreen::Unknown, &mut quiet, t0),
            Held::Hold
        );
        assert_eq!(Hooks::of(crate::activity::Activity::Unknown), Hooks::Silent);
        assert_eq!(Hooks::of(crate::activity::Activity::Idle), Hooks::Between);
        assert_eq!(Hooks::of(crate::activity::Activity::Waiting), Hooks::InTurn);
    }
}
