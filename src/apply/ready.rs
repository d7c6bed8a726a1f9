//! Readiness after a respawn: did the conversation on record come back?
//!
//! A live pane whose environment verifies proves little: the harness may
//! have started a fresh conversation, or stopped at a dialog. The proof is
//! what the new harness process says itself: its own `SessionStart` hook
//! with source `resume` and the recorded conversation id (see
//! `docs/safe-points.md`), or, for a harness that keeps its conversation's
//! file open (Codex), that file held by the new process. Without it
//! the pane's screen is read each second for a known blocking screen, whose
//! name, never its text, is reported; with it, until the screen shows the
//! harness ready or blocked, since a harness may report its resume and
//! still stop at a menu.

use super::report::{Conversation, Outcome, SessionReport};
use super::roll::Roller;
use crate::activity::store;
use crate::activity::waker::Waker;
use crate::events::{Event, Subject};
use crate::harness::capture::Capture;
use crate::harness::screens::BlockingScreen;
use crate::harness::turn_screen::TurnScreen;
use crate::harness::Harness;
use std::ffi::OsString;
use std::time::{Duration, Instant};

/// The least time given a harness to report its resume, counted after the
/// probe: the real CLI, offline and on a loaded machine, was seen to take a
/// second or two to fire `SessionStart`, and the stand-in over five on a
/// machine at load 30 (its hook is a process start of its own). A harness
/// that reports at once costs nothing, a blocking screen is named within a
/// second, and one that never reports (no hooks) costs this once per roll,
/// for all its sessions together.
pub const MIN_WINDOW: Duration = Duration::from_secs(10);

/// How long a confirmed harness's screen is still watched, at most, for a
/// menu that comes up after its report (the auto-mode menu, 0.3 s after on
/// a quiet machine). The watch ends as soon as the screen says: a blocking
/// screen, or the harness ready at its prompt (its prompt box between
/// turns, no menu: the harness's own `turn_screen` reader). Only a screen
/// that says neither (a harness without a reader, a start-up screen still
/// drawing) is watched this long, once per roll for all its sessions.
pub const SETTLE: Duration = Duration::from_millis(1500);

/// What one look at a confirmed harness's screen decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Settle {
    /// It stopped at a screen that waits for a person.
    Blocked(BlockingScreen),
    /// At its prompt, between turns, no menu: nothing more will come up.
    Ready,
    /// Neither yet: looked at again until the settle's bound.
    Watch,
    /// Neither, and the bound is reached: taken as it is.
    Over,
}

/// How long the prompt must stay between turns, from the first look that
/// showed it, before nothing more is expected: Claude Code draws its
/// prompt box at once on a resume and the auto-mode menu about 0.3 s later
/// (2.1.332, a quiet machine), so one look at the prompt proves nothing.
pub const STEADY: Duration = Duration::from_millis(800);

/// The settle's rule for one look: pure, so the evidence (a blocking
/// screen, or the prompt between turns on looks [`STEADY`] apart), not a
/// fixed wait, ends it wherever the screen says something. `between_since`
/// is the first look of the current run of looks between turns, kept by
/// the caller.
pub fn settle(
    seen: Seen,
    now: Instant,
    until: Instant,
    between_since: &mut Option<Instant>,
) -> Settle {
    match seen {
        Seen {
            blocking: Some(screen),
            ..
        } => Settle::Blocked(screen),
        Seen {
            turn: TurnScreen::Between,
            ..
        } => match *between_since {
            Some(first) if now.saturating_duration_since(first) >= STEADY => Settle::Ready,
            _ if now >= until => Settle::Over,
            Some(_) => Settle::Watch,
            None => {
                *between_since = Some(now);
                Settle::Watch
            }
        },
        _ => {
            *between_since = None;
            if now < until {
                Settle::Watch
            } else {
                Settle::Over
            }
        }
    }
}

/// What a pane's screen shows, as the harness's readers name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seen {
    pub blocking: Option<BlockingScreen>,
    pub turn: TurnScreen,
}

impl Seen {
    /// A capture that failed, or no pane: nothing seen.
    const NOTHING: Seen = Seen {
        blocking: None,
        turn: TurnScreen::Unknown,
    };
}

/// How often a session still without its report has its screen read, so a
/// dialog is named within about this long rather than at the window's end.
const SCREEN_EVERY: Duration = Duration::from_secs(1);

/// Sets `conversation` on each respawned session whose pane is live, and
/// turns a restart stopped at a known blocking screen into `blocked`.
/// Waits at most `window` (at least [`MIN_WINDOW`]) for the reports, for
/// all the sessions together.
pub fn confirm(roller: &Roller, reports: &mut [SessionReport], window: Duration) {
    let live = |r: &SessionReport| {
        r.new_pid.is_some()
            && matches!(
                r.outcome,
                Outcome::Restarted
                    | Outcome::RestartedUnverified
                    | Outcome::Superseded
                    | Outcome::Mismatch
            )
    };
    let mut pending: Vec<usize> = (0..reports.len()).filter(|i| live(&reports[*i])).collect();
    if pending.is_empty() {
        return;
    }
    let root = &roller.config.state_root;
    let waker = Waker::new(&store::dir(root));
    let deadline = Instant::now() + window.max(MIN_WINDOW);
    let mut next_screen = Instant::now();
    // Confirmed sessions still being watched for a menu, with when their
    // watch ends.
    let mut settling: Vec<(usize, Instant, Option<Instant>)> = Vec::new();
    loop {
        pending.retain(|i| {
            let report = &mut reports[*i];
            let (Some(pid), Some(id)) = (report.new_pid, report.harness_session_id.as_deref())
            else {
                return true;
            };
            if crate::runner::signal::has_exited(pid) {
                resume_failed_late(roller, report);
                return false;
            }
            // The hooks' `SessionStart` (Claude Code), or the conversation's
            // file held open by the new process (Codex fires its hook only
            // at the next prompt).
            let activity = store::read_one(root, pid);
            // A conversation that never began is confirmed by the new
            // harness starting it on the same id.
            let reported = activity.confirmed_resume(id)
                || (report.fresh_start && activity.never_prompted(id))
                || harness_of(report)
                    .conversations_held(pid)
                    .iter()
                    .any(|held| held == id);
            let confirmed = reported && store::process_start(pid).is_some();
            if confirmed {
                report.conversation = Some(Conversation::Confirmed);
                settling.push((*i, Instant::now() + SETTLE, reported_at(&activity)));
            }
            !confirmed
        });
        // A harness can report its resume and still stop at a screen that
        // waits for a person: the auto-mode menu comes up about 0.3 s after
        // `SessionStart` on the real CLI. Each confirmed pane is watched
        // for [`SETTLE`] more.
        if !settling.is_empty() {
            let indices: Vec<usize> = settling.iter().map(|(i, _, _)| *i).collect();
            let screens = screens_of(roller, &indices, reports);
            let now = Instant::now();
            settling = settling
                .into_iter()
                .zip(screens)
                .filter_map(|((i, until, mut since), seen)| {
                    match settle(seen, now, until, &mut since) {
                        Settle::Blocked(screen) => {
                            block(roller, &mut reports[i], screen);
                            None
                        }
                        Settle::Watch => Some((i, until, since)),
                        Settle::Ready | Settle::Over => None,
                    }
                })
                .collect();
        }
        if Instant::now() >= next_screen && !pending.is_empty() {
            next_screen = Instant::now() + SCREEN_EVERY;
            let screens = screens_of(roller, &pending, reports);
            pending = pending
                .into_iter()
                .zip(screens)
                .filter(|(i, seen)| match seen.blocking {
                    Some(screen) => {
                        block(roller, &mut reports[*i], screen);
                        false
                    }
                    None => true,
                })
                .map(|(i, _)| i)
                .collect();
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if (pending.is_empty() && settling.is_empty()) || left.is_zero() {
            break;
        }
        waker.wait(left.min(Duration::from_millis(250)));
    }
    for i in pending {
        reports[i].conversation = Some(Conversation::Unconfirmed);
    }
}

/// When the harness last reported anything (its resume, at the latest),
/// as the start of the run of looks between turns: the prompt is drawn as
/// the resume is reported, so a first look that finds it between turns
/// [`STEADY`] or more after the report ends the settle at once, instead of
/// waiting out a second look (the roll confirms every session only after
/// the last probe, long after most reported). A first look that finds it
/// still drawing starts the run afresh ([`settle`]). A report older than a
/// minute, or stamped ahead of the clock, counts for nothing.
fn reported_at(activity: &crate::activity::HarnessActivity) -> Option<Instant> {
    let ago = crate::clock::now_ms().checked_sub(activity.last_ms?)?;
    let ago = Duration::from_millis(ago);
    if ago > Duration::from_secs(60) {
        return None;
    }
    Instant::now().checked_sub(ago)
}

/// The harness was live at the probe and exited before it reported its
/// resume: on a loaded machine the launcher can still be starting when the
/// probe looks, and a resume that fails (no conversation, a refused
/// resume) ends the harness only then. Not a restart. (A pid reused
/// meanwhile reads as alive: the session is then only `unconfirmed`.)
fn resume_failed_late(roller: &Roller, report: &mut SessionReport) {
    let reason = "the harness exited after the probe, before it reported its resume: \
                  the conversation did not resume"
        .to_owned();
    roller.events.emit(Event::SessionResumeFailed {
        subject: Subject::planned(report.reference.clone(), report.standing.clone())
            .target(&report.tmux_target),
        reason: reason.clone(),
        resumed: None,
        fresh_started: false,
    });
    report.outcome = Outcome::ResumeFailed;
    report.detail = Some(reason);
    report.conversation = None;
}

/// Says in the session's report, and in an event, that its harness
/// stopped at `screen`.
fn block(roller: &Roller, report: &mut SessionReport, screen: BlockingScreen) {
    roller.events.emit(Event::SessionBlocked {
        subject: Subject::planned(report.reference.clone(), report.standing.clone())
            .target(&report.tmux_target),
        screen: screen.name().to_owned(),
    });
    report.conversation = Some(Conversation::Unconfirmed);
    if report.outcome != Outcome::Mismatch {
        report.outcome = Outcome::Blocked;
        report.detail = Some(format!("stopped at the {screen}"));
    }
}

/// What each pending session's pane shows (a blocking screen, if any, and
/// what it says of a turn), read through the roll's own tmux client (issue
/// 15's bound on clients per roll holds while harnesses start). A pane
/// whose capture failed reads as nothing seen. The captured text stays
/// here.
fn screens_of(roller: &Roller, pending: &[usize], reports: &[SessionReport]) -> Vec<Seen> {
    let panes: Vec<Option<&str>> = pending
        .iter()
        .map(|i| reports[*i].pane_id.as_deref())
        .collect();
    let commands: Vec<Vec<OsString>> = panes
        .iter()
        .flatten()
        .map(|pane| {
            // `-e`: the attributes tell a hint in the prompt box from a
            // draft (`crate::harness::capture`).
            ["capture-pane", "-p", "-e", "-t", pane]
                .map(OsString::from)
                .to_vec()
        })
        .collect();
    let mut answers = roller.tmux.run_all(commands).into_iter();
    panes
        .iter()
        .zip(pending)
        .map(|(pane, i)| {
            pane.and_then(|_| answers.next())
                .and_then(|answer| answer.ok())
                .filter(|out| out.success)
                .map_or(Seen::NOTHING, |out| {
                    let harness = harness_of(&reports[*i]);
                    let text = Capture::parse(&out.stdout);
                    Seen {
                        blocking: harness.blocking_screen(text.text()),
                        turn: harness.turn_screen(&out.stdout),
                    }
                })
        })
        .collect()
}

/// The harness a report's record names; Claude Code for a record from
/// before harnesses were named.
fn harness_of(report: &SessionReport) -> &'static dyn Harness {
    report
        .harness
        .as_deref()
        .and_then(crate::harness::by_name)
        .unwrap_or(&crate::harness::CLAUDE_CODE)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(blocking: Option<BlockingScreen>, turn: TurnScreen) -> Seen {
        Seen { blocking, turn }
    }

    #[test]
    fn a_resume_reported_steady_ago_ends_the_settle_at_the_first_look_between_turns() {
        let now = Instant::now();
        let until = now + SETTLE;
        let between = seen(None, TurnScreen::Between);
        // Reported a second before the roll looked: one look suffices.
        let mut since = now.checked_sub(Duration::from_secs(1));
        assert_eq!(settle(between, now, until, &mut since), Settle::Ready);
        // Reported just now: watched until STEADY after the report.
        let mut since = Some(now);
        assert_eq!(settle(between, now, until, &mut since), Settle::Watch);
        // Still drawing at the first look: the run starts afresh.
        let mut since = now.checked_sub(Duration::from_secs(1));
        let drawing = seen(None, TurnScreen::Unknown);
        assert_eq!(settle(drawing, now, until, &mut since), Settle::Watch);
        assert_eq!(settle(between, now, until, &mut since), Settle::Watch);
    }

    #[test]
    fn the_settle_ends_on_what_the_screen_says_not_on_the_clock() {
        let now = Instant::now();
        let until = now + SETTLE;
        let between = seen(None, TurnScreen::Between);
        // At its prompt, between turns, no menu, on looks STEADY apart:
        // done before the bound (the fixed wait this replaces kept watching).
        let mut since = None;
        assert_eq!(settle(between, now, until, &mut since), Settle::Watch);
        let later = now + STEADY / 2;
        assert_eq!(settle(between, later, until, &mut since), Settle::Watch);
        let steady = now + STEADY;
        assert!(steady < until);
        assert_eq!(settle(between, steady, until, &mut since), Settle::Ready);
        // The prompt, then the menu the real CLI draws 0.3 s after it: the
        // first look at the prompt ended nothing.
        let mut since = None;
        assert_eq!(settle(between, now, until, &mut since), Settle::Watch);
        let blocking = BlockingScreen::AutoModeMenu;
        assert_eq!(
            settle(
                seen(Some(blocking), TurnScreen::Between),
                later,
                until,
                &mut since
            ),
            Settle::Blocked(blocking)
        );
        // A menu above the prompt box is not ready, and starts the run of
        // looks between turns over.
        let mut since = Some(now);
        assert_eq!(
            settle(seen(None, TurnScreen::Asking), later, until, &mut since),
            Settle::Watch
        );
        assert_eq!(since, None);
        // Nothing understood: watched until the bound, and no longer.
        let mut since = None;
        assert_eq!(
            settle(seen(None, TurnScreen::Unknown), now, until, &mut since),
            Settle::Watch
        );
        assert_eq!(
            settle(seen(None, TurnScreen::Unknown), until, until, &mut since),
            Settle::Over
        );
    }

    #[test]
    fn the_auto_mode_menu_after_a_resume_is_blocking_and_the_prompt_is_ready() {
        let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/it/fixtures/screens/");
        let read = |name: &str| std::fs::read_to_string(format!("{fixtures}{name}")).unwrap();
        let claude: &dyn Harness = &crate::harness::CLAUDE_CODE;
        let look = |name: &str| {
            let raw = read(name);
            seen(
                claude.blocking_screen(Capture::parse(&raw).text()),
                claude.turn_screen(&raw),
            )
        };
        let now = Instant::now();
        let until = now + SETTLE;
        assert_eq!(
            settle(look("auto-mode-menu.txt"), now, until, &mut None),
            Settle::Blocked(BlockingScreen::AutoModeMenu)
        );
        let mut since = Some(now);
        assert_eq!(
            settle(
                look("resumed-conversation.txt"),
                now + STEADY,
                until,
                &mut since
            ),
            Settle::Ready
        );
    }
}
