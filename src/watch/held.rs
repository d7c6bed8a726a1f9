//! Held sessions, counted for `watch`'s metrics: drifted sessions a roll
//! leaves in place for now because their turn is running, a person is being
//! asked, or a client is attached. A session held for long is a session
//! still on a retired value, so the example alert rules watch how long.

use crate::plan::{Action, SafePoint, SessionKind, SessionPlan};
use prometheus_client::encoding::{EncodeLabelSet, EncodeLabelValue, LabelValueEncoder};

/// Why a drifted session is held.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq)]
pub enum HeldReason {
    /// Its turn is running.
    Busy,
    /// Its turn is asking a person.
    Waiting,
    /// A tmux client is attached.
    Attached,
    /// Its screen shows a background shell or task.
    Background,
    /// Its screen shows a prompt being written.
    Draft,
    /// Neither its hooks nor its screen say it is between turns.
    Unknown,
}

pub const REASONS: [HeldReason; 6] = [
    HeldReason::Busy,
    HeldReason::Waiting,
    HeldReason::Attached,
    HeldReason::Background,
    HeldReason::Draft,
    HeldReason::Unknown,
];

impl HeldReason {
    pub fn as_str(self) -> &'static str {
        match self {
            HeldReason::Busy => "busy",
            HeldReason::Waiting => "waiting",
            HeldReason::Attached => "attached",
            HeldReason::Background => "background",
            HeldReason::Draft => "draft",
            HeldReason::Unknown => "unknown",
        }
    }

    /// Why the session is held, from its safe point and, for one its
    /// screen holds, what the screen showed.
    pub fn of(session: &SessionPlan) -> Option<HeldReason> {
        use crate::harness::turn_screen::TurnScreen;
        match session.apply_will? {
            SafePoint::WaitBusy => Some(HeldReason::Busy),
            SafePoint::WaitWaiting => Some(HeldReason::Waiting),
            SafePoint::LeaveAttached => Some(HeldReason::Attached),
            SafePoint::WaitScreen => match session.screen {
                Some(TurnScreen::Draft) => Some(HeldReason::Draft),
                _ => Some(HeldReason::Background),
            },
            SafePoint::WaitUnknown => Some(HeldReason::Unknown),
            SafePoint::RollNow | SafePoint::LeaveEnded => None,
        }
    }
}

impl EncodeLabelValue for HeldReason {
    fn encode(&self, encoder: &mut LabelValueEncoder) -> std::fmt::Result {
        EncodeLabelValue::encode(&self.as_str(), encoder)
    }
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ReasonLabels {
    pub reason: HeldReason,
}

/// For each reason: how many drifted, managed sessions are held, and how
/// long the longest of them has been (seconds since its turn began; 0 when
/// that is not known, as for an attached session).
pub fn held(sessions: &[SessionPlan], now_epoch: u64) -> [(HeldReason, usize, u64); REASONS.len()] {
    REASONS.map(|reason| {
        let held = sessions.iter().filter(|s| {
            s.kind != SessionKind::Unmanaged
                && s.action == Action::Respawn
                && HeldReason::of(s) == Some(reason)
        });
        let (count, longest) = held.fold((0, 0), |(count, longest), s| {
            let secs = s
                .busy_since
                .as_deref()
                .and_then(crate::clock::parse_utc)
                .map_or(0, |since| now_epoch.saturating_sub(since));
            (count + 1, longest.max(secs))
        });
        (reason, count, longest)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::activity::Activity;
    use crate::observed::Probe;

    fn session(will: SafePoint, since: Option<&str>) -> SessionPlan {
        SessionPlan {
            action: Action::Respawn,
            apply_will: Some(will),
            activity: Activity::Busy,
            busy_since: since.map(str::to_owned),
            ..SessionPlan::new(SessionKind::WorkItem, "loop-x".into(), Probe::Live)
        }
    }

    #[test]
    fn held_sessions_are_counted_by_reason_with_the_longest_hold() {
        let now = crate::clock::parse_utc("2026-12-03T10:00:00Z").unwrap();
        let sessions = vec![
            session(SafePoint::WaitBusy, Some("2026-12-03T09:00:00Z")),
            session(SafePoint::WaitBusy, Some("2026-12-03T09:59:00Z")),
            session(SafePoint::WaitWaiting, Some("2026-12-03T09:50:00Z")),
            session(SafePoint::LeaveAttached, None),
            session(SafePoint::RollNow, None),
            session(SafePoint::LeaveEnded, None),
            SessionPlan {
                screen: Some(crate::harness::turn_screen::TurnScreen::Draft),
                ..session(SafePoint::WaitScreen, None)
            },
            SessionPlan {
                screen: Some(crate::harness::turn_screen::TurnScreen::Background),
                ..session(SafePoint::WaitScreen, None)
            },
            session(SafePoint::WaitUnknown, None),
            session(SafePoint::WaitUnknown, None),
        ];
        assert_eq!(
            held(&sessions, now),
            [
                (HeldReason::Busy, 2, 3600),
                (HeldReason::Waiting, 1, 600),
                (HeldReason::Attached, 1, 0),
                (HeldReason::Background, 1, 0),
                (HeldReason::Draft, 1, 0),
                (HeldReason::Unknown, 2, 0),
            ]
        );
    }
}
