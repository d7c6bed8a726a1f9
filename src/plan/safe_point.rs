//! Safe points, decided: which sessions a roll selects ([`Mode`]) and
//! what it does about each one given what its harness is doing ([`Drain`]).
//! Pure, so `plan` can say what `apply` will do with the very function the
//! roll uses; the waiting itself is `apply::drain`'s.

use super::{Action, Plan, SafePoint, SessionPlan};
use crate::activity::Activity;
use std::time::Duration;

/// Which sessions a roll acts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `apply`: respawn sessions with observed drift.
    Apply,
    /// `sessions restart`: respawn every targeted live, readable session.
    Restart,
}

/// `--drain-timeout`'s default.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);

/// How a roll treats sessions that are not at a safe point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Drain {
    /// `--drain-timeout`: how long to wait for running turns to end.
    pub timeout: Duration,
    /// `--now`: end busy and waiting harnesses without waiting.
    pub now: bool,
    /// `--include-attached`: also roll sessions a client is attached to.
    pub include_attached: bool,
}

impl Default for Drain {
    fn default() -> Self {
        Drain {
            timeout: DEFAULT_TIMEOUT,
            now: false,
            include_attached: false,
        }
    }
}

/// Whether a roll in `mode` acts on a session the plan gave `action`.
pub fn selects(mode: Mode, action: Action) -> bool {
    match mode {
        Mode::Apply => action.acts(),
        Mode::Restart => action != Action::Skip,
    }
}

/// What a roll does about one selected session, given what it is doing.
pub fn safe_point(session: &SessionPlan, activity: Activity, drain: &Drain) -> SafePoint {
    if session.action == Action::Resume {
        // Its harness is already gone: nothing left to interrupt.
        return SafePoint::RollNow;
    }
    if activity == Activity::Ended {
        // The person ended it: `--now` does not overrule them.
        return SafePoint::LeaveEnded;
    }
    if session.attached > 0 && !drain.include_attached {
        return SafePoint::LeaveAttached;
    }
    use crate::harness::turn_screen::TurnScreen;
    match (activity, session.screen) {
        _ if drain.now => SafePoint::RollNow,
        (Activity::Busy, _) | (_, Some(TurnScreen::Running)) => SafePoint::WaitBusy,
        (Activity::Waiting, _) | (_, Some(TurnScreen::Asking)) => SafePoint::WaitWaiting,
        (_, Some(TurnScreen::Background | TurnScreen::Draft)) => SafePoint::WaitScreen,
        // The hooks never spoke: the screen decides, and one that did not
        // say (or was not looked at) holds it until the roll's own look.
        (Activity::Unknown, None | Some(TurnScreen::Unknown)) => SafePoint::WaitUnknown,
        (
            Activity::Idle | Activity::Unknown | Activity::Ended | Activity::Interrupted,
            Some(TurnScreen::Between | TurnScreen::Unknown) | None,
        ) => SafePoint::RollNow,
    }
}

/// Sets each session's `apply_will` for a roll in `mode` with `drain`:
/// null where that roll does not touch the session.
pub fn annotate(plan: &mut Plan, mode: Mode, drain: &Drain) {
    for session in &mut plan.sessions {
        session.apply_will = (selects(mode, session.action) && session.left_alone.is_none())
            .then(|| safe_point(session, session.activity, drain));
    }
}
