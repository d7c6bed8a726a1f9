//! The deliveries turned away before anything is pasted: a cleaned-up work
//! item, an id already processed, a session that is closed or paused. Each
//! logs one event and ends the report the same way.

use super::{finish, DeliveryReport, Outcome, Record};
use crate::events::{Dispatch, Event, Level, Subject};
use crate::registry::Status;

/// A delivery that ends before anything is pasted: what it is reported as,
/// the reason its event gives, and the words the report gives.
pub(super) struct Refusal {
    outcome: Outcome,
    reason: &'static str,
    detail: &'static str,
}

impl Refusal {
    pub const CLEANED_UP: Refusal = Refusal {
        outcome: Outcome::Dropped,
        reason: "cleaned-up",
        detail: "the work item was cleaned up; `the-loop sessions start` begins it again",
    };

    /// Why the record turns the delivery away: an id it already processed
    /// (checked first, so a redelivery to a paused session is still a
    /// duplicate), or a session that is not active.
    pub fn of(record: &Record, delivery_id: Option<&str>) -> Option<Refusal> {
        if delivery_id.is_some_and(|id| record.has_delivery(id)) {
            return Some(Refusal {
                outcome: Outcome::Duplicate,
                reason: "duplicate",
                detail: "this delivery id was already processed",
            });
        }
        match record.status() {
            Status::Closed => Some(Refusal {
                outcome: Outcome::Ignored,
                reason: "closed",
                detail: "the session is closed",
            }),
            Status::Paused => Some(Refusal {
                outcome: Outcome::Suppressed,
                reason: "paused",
                detail: "the session is paused; `the-loop sessions resume` lets deliveries through again",
            }),
            Status::Active => None,
        }
    }

    /// Logs the refusal's event and finishes the report with it.
    pub fn apply(
        self,
        report: DeliveryReport,
        event: impl Fn(&dyn Fn(Subject, Dispatch) -> Event),
    ) -> DeliveryReport {
        event(&|subject, dispatch| match self.outcome {
            Outcome::Dropped => Event::DispatchDropped {
                subject,
                dispatch,
                reason: self.reason.into(),
                level: Level::Warn,
            },
            Outcome::Suppressed => Event::DispatchSuppressed {
                subject,
                dispatch,
                reason: self.reason.into(),
            },
            _ => Event::DispatchSkipped {
                subject,
                dispatch,
                reason: self.reason.into(),
            },
        });
        finish(report, self.outcome, self.detail)
    }
}
