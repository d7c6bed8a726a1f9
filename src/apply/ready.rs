//! Readiness after a respawn: did the conversation on record come back?
//!
//! A live pane whose environment verifies proves little: the harness may
//! have started a fresh conversation, or stopped at a dialog. The proof is
//! the new harness process's own `SessionStart` hook with source `resume`
//! and the recorded conversation id (see `docs/safe-points.md`). Without it
//! the pane's screen is read once for a known blocking screen, whose name,
//! never its text, is reported.

use super::drain::Waker;
use super::report::{Conversation, Outcome, SessionReport};
use super::roll::Roller;
use crate::activity::store;
use crate::events::{Event, Subject};
use crate::harness::screens::blocking_screen;
use std::time::{Duration, Instant};

/// The least time given a harness to report its resume, counted after the
/// probe: the real CLI, offline and on a loaded machine, was seen to take a
/// second or two to fire `SessionStart`, and the stand-in over five on a
/// machine at load 30 (its hook is a process start of its own). A harness
/// that reports at once costs nothing, a blocking screen is named within a
/// second, and one that never reports (no hooks) costs this once per roll,
/// for all its sessions together.
pub const MIN_WINDOW: Duration = Duration::from_secs(10);

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
                Outcome::Restarted | Outcome::RestartedUnverified | Outcome::Mismatch
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
    loop {
        pending.retain(|i| {
            let report = &mut reports[*i];
            let (Some(pid), Some(id)) = (report.new_pid, report.harness_session_id.as_deref())
            else {
                return true;
            };
            let confirmed = store::read_one(root, pid).confirmed_resume(id)
                && store::process_start(pid).is_some();
            if confirmed {
                report.conversation = Some(Conversation::Confirmed);
            }
            !confirmed
        });
        if Instant::now() >= next_screen {
            next_screen = Instant::now() + SCREEN_EVERY;
            pending.retain(|i| !blocked(roller, &mut reports[*i]));
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if pending.is_empty() || left.is_zero() {
            break;
        }
        waker.wait(left.min(Duration::from_millis(250)));
    }
    for i in pending {
        reports[i].conversation = Some(Conversation::Unconfirmed);
    }
}

/// Whether the session's pane shows a known blocking screen; if so, says
/// so in its report and in an event.
fn blocked(roller: &Roller, report: &mut SessionReport) -> bool {
    let Some(screen) = report
        .pane_id
        .as_deref()
        .and_then(|pane| screen_of(roller, pane))
    else {
        return false;
    };
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
    true
}

/// The blocking screen the pane shows, if any. The captured text stays here.
fn screen_of(roller: &Roller, pane: &str) -> Option<crate::harness::screens::BlockingScreen> {
    let out = roller
        .tmux
        .tmux()
        .run(["capture-pane", "-p", "-t", pane])
        .ok()?;
    out.success.then(|| blocking_screen(&out.stdout)).flatten()
}
