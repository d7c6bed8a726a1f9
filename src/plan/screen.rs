//! What a session's screen says about its turn, beside what its hooks say.
//!
//! The hooks miss three things a roll must not miss (`docs/safe-points.md`):
//! an interrupt (Escape, Ctrl-C, No or Esc on a dialog) fires no hook, so
//! the hooks keep a session `busy` or `waiting` for good; a `!` command
//! fires no `UserPromptSubmit`, so the hooks call it `idle` while it runs.
//! The harness reads its own screen ([`crate::harness::Harness::turn_screen`]);
//! [`look`] asks tmux for the panes, and [`held`] is the rule, pure.
//! Every view chooses which harnesses to look at ([`worth_a_look`]) and
//! names what they do ([`doing`]) as `plan` does, so that `plan`, `top`,
//! `status` and `sessions list` say the same of each (`plan` looks only at
//! the sessions a roll would take: `crate::plan::gather::Looks`).

use super::SessionPlan;
use crate::activity::Activity;
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
    let panes: Vec<Glance> = sessions
        .iter()
        .map(|s| Glance {
            pane: s.pane_id.as_deref(),
            harness: s.record.as_ref().map(|r| r.harness.as_str()),
            pid: s.pane_pid,
        })
        .collect();
    look_at(run, &panes)
}

/// One harness to look at: its pane, its harness's name, and its pid
/// (whose children tell a background shell the screen may not show).
#[derive(Debug, Clone, Copy)]
pub struct Glance<'a> {
    pub pane: Option<&'a str>,
    pub harness: Option<&'a str>,
    pub pid: Option<i32>,
}

/// [`look`] for the harnesses given. A screen between turns (or not
/// understood) over a harness whose children hold a background shell
/// ([`crate::harness::Harness::background_children`]) reads
/// [`TurnScreen::Background`]: the footer that counts it can be off the
/// screen, and ending the harness would end the shell.
pub fn look_at(
    run: &dyn Fn(Vec<Vec<OsString>>) -> Vec<Answer>,
    panes: &[Glance],
) -> Vec<TurnScreen> {
    let commands: Vec<Vec<OsString>> = panes
        .iter()
        .filter_map(|glance| glance.pane)
        .map(|pane| {
            // `-e`: the attributes tell a hint in a prompt box from a
            // draft (`crate::harness::capture`).
            ["capture-pane", "-p", "-e", "-t", pane]
                .map(OsString::from)
                .to_vec()
        })
        .collect();
    let mut answers = run(commands).into_iter();
    let seen: Vec<(&Glance, Option<Answer>)> = panes
        .iter()
        .map(|glance| (glance, glance.pane.and_then(|_| answers.next())))
        .collect();
    // Each verdict reads the screen and, between turns, the harness's
    // children in `/proc`: a plan's 150 are split across the cores.
    crate::parallel::map(&seen, VERDICTS_PER_THREAD, |(glance, answer)| {
        verdict(glance, answer.as_ref()).unwrap_or(TurnScreen::Unknown)
    })
}

/// Fewer screens than this are not worth a thread of their own.
const VERDICTS_PER_THREAD: usize = 64;

/// What one screen tmux answered with says, with the harness's children.
fn verdict(glance: &Glance, answer: Option<&Answer>) -> Option<TurnScreen> {
    let screen = answer?.as_ref().ok().filter(|out| out.success)?;
    let harness = crate::harness::by_name(glance.harness?)?;
    let seen = harness.turn_screen(&screen.stdout);
    Some(match (seen, glance.pid) {
        (TurnScreen::Between | TurnScreen::Unknown, Some(pid))
            if harness.background_children(pid) > 0 =>
        {
            TurnScreen::Background
        }
        _ => seen,
    })
}

/// Whether hooks quiet since `last_ms` have been quiet long enough
/// ([`LOOKS_APART`]) for one look at the screen to stand for two: a turn
/// that had just begun has had that long to show.
pub fn hooks_quiet(last_ms: Option<u64>, now_ms: u64) -> bool {
    let apart = u64::try_from(LOOKS_APART.as_millis()).unwrap_or(u64::MAX);
    last_ms.is_some_and(|last| now_ms.saturating_sub(last) >= apart)
}

/// How many screens one look takes (a plan's, a view's): what one tmux
/// client takes in one batch, so the tmux cost stays constant however
/// large the fleet. Harnesses past it are not looked at (the roll looks
/// at each itself before it ends one).
pub const SCREENS_PER_LOOK: usize = 150;

/// Whether a harness is worth a look at its screen, by what its hooks say
/// (`plan` and every view choose alike): one in a turn once its hooks have
/// been quiet for [`LOOKS_APART`] (Escape and Ctrl-C fire no hook), one
/// between turns or whose hooks never spoke (a `!` command, a menu, a
/// background shell, a draft fire none); never one the person ended.
pub fn worth_a_look(activity: Activity, last_ms: Option<u64>, now_ms: u64) -> bool {
    match activity {
        Activity::Busy | Activity::Waiting => hooks_quiet(last_ms, now_ms),
        Activity::Ended => false,
        Activity::Idle | Activity::Interrupted | Activity::Unknown => true,
    }
}

/// The hooks' activity after a look at the screen: a turn they say runs
/// and the screen shows none of was interrupted.
pub fn marked(activity: Activity, screen: TurnScreen) -> Activity {
    if activity.in_turn() && screen == TurnScreen::Between {
        Activity::Interrupted
    } else {
        activity
    }
}

/// What a person is told a harness is doing, in `plan`, `sessions list`,
/// `top` and `status` alike: its hooks' word, or its screen's where the
/// hooks say nothing of it (a `!` command fires no hook; a menu opened by
/// `/exit` neither).
pub fn doing(activity: Activity, screen: Option<TurnScreen>) -> Activity {
    match (activity.in_turn(), screen) {
        (false, Some(TurnScreen::Running)) => Activity::Busy,
        (false, Some(TurnScreen::Asking)) => Activity::Waiting,
        _ => activity,
    }
}

/// A live harness a view shows: its pane, its harness's name, what its
/// hooks say, and when they last spoke.
#[derive(Debug, Clone, Copy)]
pub struct Live<'a> {
    pub pane_id: &'a str,
    pub harness: Option<&'a str>,
    /// The harness's pid, whose children are read ([`look_at`]).
    pub pid: Option<i32>,
    pub activity: Activity,
    pub last_ms: Option<u64>,
}

/// A view's look (`sessions list`, `status`; `plan` and `top` look the
/// same way in `plan::gather`): those of `live` [`worth_a_look`], up to
/// [`SCREENS_PER_LOOK`], in one tmux client. For each, its activity
/// [`marked`] by the look, and what its screen showed (`None` where it was
/// not looked at).
pub fn look_live(tmux: &crate::tmux::Tmux, live: &[Live]) -> Vec<(Activity, Option<TurnScreen>)> {
    let now_ms = crate::clock::now_ms();
    // A harness the-loop has no reader for would read unknown anyway.
    let readable = |l: &Live| l.harness.and_then(crate::harness::by_name).is_some();
    let chosen: Vec<usize> = (0..live.len())
        .filter(|i| readable(&live[*i]))
        .filter(|i| worth_a_look(live[*i].activity, live[*i].last_ms, now_ms))
        .take(SCREENS_PER_LOOK)
        .collect();
    let mut seen: Vec<(Activity, Option<TurnScreen>)> =
        live.iter().map(|l| (l.activity, None)).collect();
    if chosen.is_empty() {
        return seen;
    }
    let panes: Vec<Glance> = chosen
        .iter()
        .map(|i| Glance {
            pane: Some(live[*i].pane_id),
            harness: live[*i].harness,
            pid: live[*i].pid,
        })
        .collect();
    let screens = look_at(
        &|commands| crate::runner::batch::run_each(tmux, &commands),
        &panes,
    );
    for (i, screen) in chosen.into_iter().zip(screens) {
        seen[i] = (marked(live[i].activity, screen), Some(screen));
    }
    seen
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
    pub fn of(activity: Activity) -> Hooks {
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
    fn every_view_looks_at_the_same_harnesses_and_says_the_same_word() {
        let now = 10_000;
        let quiet = Some(now - 1_000);
        let fresh = Some(now - 100);
        // A turn just begun is not looked at yet; a quiet one is.
        assert!(!worth_a_look(Activity::Busy, fresh, now));
        assert!(worth_a_look(Activity::Waiting, quiet, now));
        // Between turns, or hooks that never spoke: whatever they say.
        assert!(worth_a_look(Activity::Idle, None, now));
        assert!(worth_a_look(Activity::Unknown, None, now));
        assert!(!worth_a_look(Activity::Ended, quiet, now));
        // A turn the screen shows none of was interrupted.
        assert_eq!(
            marked(Activity::Busy, TurnScreen::Between),
            Activity::Interrupted
        );
        assert_eq!(marked(Activity::Busy, TurnScreen::Unknown), Activity::Busy);
        assert_eq!(marked(Activity::Idle, TurnScreen::Running), Activity::Idle);
        // A `!` command and a menu, which no hook tells.
        let idle = Activity::Idle;
        assert_eq!(doing(idle, Some(TurnScreen::Running)), Activity::Busy);
        assert_eq!(doing(idle, Some(TurnScreen::Asking)), Activity::Waiting);
        assert_eq!(doing(idle, Some(TurnScreen::Draft)), idle);
        assert_eq!(doing(idle, None), idle);
        assert_eq!(
            doing(Activity::Waiting, Some(TurnScreen::Running)),
            Activity::Waiting
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
        assert_eq!(Hooks::of(Activity::Unknown), Hooks::Silent);
        assert_eq!(Hooks::of(Activity::Idle), Hooks::Between);
        assert_eq!(Hooks::of(Activity::Waiting), Hooks::InTurn);
    }
}
