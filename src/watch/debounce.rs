//! Turning a burst of file events into one change.
//!
//! An editor's save is several events (write a temp file, rename it over
//! the original, touch attributes), and a script may write a file twice in
//! a row. A change is therefore "due" once the events have been quiet for
//! the debounce period. A stream that never goes quiet still fires after
//! [`MAX_WAIT_FACTOR`] debounce periods, so a busy directory cannot
//! postpone a rotation forever.

use std::time::{Duration, Instant};

/// The longest a burst can postpone a change, in debounce periods.
pub const MAX_WAIT_FACTOR: u32 = 10;

#[derive(Debug, Clone)]
pub struct Debouncer {
    quiet: Duration,
    burst: Option<Burst>,
}

#[derive(Debug, Clone, Copy)]
struct Burst {
    first: Instant,
    last: Instant,
    events: usize,
}

impl Debouncer {
    pub fn new(quiet: Duration) -> Self {
        Debouncer { quiet, burst: None }
    }

    /// Records one relevant event seen at `at`.
    pub fn note(&mut self, at: Instant) {
        self.burst = Some(match self.burst {
            None => Burst {
                first: at,
                last: at,
                events: 1,
            },
            Some(b) => Burst {
                first: b.first,
                last: b.last.max(at),
                events: b.events + 1,
            },
        });
    }

    /// When the pending burst becomes one change; `None` when nothing is pending.
    pub fn deadline(&self) -> Option<Instant> {
        self.burst.map(|b| {
            let settled = b.last + self.quiet;
            let capped = b.first + self.quiet * MAX_WAIT_FACTOR;
            settled.min(capped)
        })
    }

    /// When the pending burst is due at `now`, forgets it and returns how
    /// many events it held.
    pub fn take_due(&mut self, now: Instant) -> Option<usize> {
        match (self.deadline(), self.burst) {
            (Some(deadline), Some(burst)) if now >= deadline => {
                self.burst = None;
                Some(burst.events)
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const Q: Duration = Duration::from_millis(500);

    #[test]
    fn nothing_pending_is_never_due() {
        let mut d = Debouncer::new(Q);
        assert_eq!(d.deadline(), None);
        assert_eq!(d.take_due(Instant::now() + Q * 100), None);
    }

    #[test]
    fn a_save_burst_is_one_change_after_the_quiet_period() {
        let t0 = Instant::now();
        let mut d = Debouncer::new(Q);
        // write temp, rename over, chmod: three events within 30 ms.
        for ms in [0, 10, 30] {
            d.note(t0 + Duration::from_millis(ms));
        }
        assert_eq!(d.take_due(t0 + Duration::from_millis(529)), None);
        assert_eq!(d.take_due(t0 + Duration::from_millis(530)), Some(3));
        assert_eq!(d.take_due(t0 + Duration::from_millis(2000)), None, "once");
    }

    #[test]
    fn each_event_extends_the_wait() {
        let t0 = Instant::now();
        let mut d = Debouncer::new(Q);
        d.note(t0);
        d.note(t0 + Duration::from_millis(400));
        assert_eq!(d.deadline(), Some(t0 + Duration::from_millis(900)));
    }

    #[test]
    fn a_stream_that_never_settles_still_fires() {
        let t0 = Instant::now();
        let mut d = Debouncer::new(Q);
        let mut at = t0;
        while at < t0 + Q * (MAX_WAIT_FACTOR + 2) {
            d.note(at);
            at += Duration::from_millis(100);
        }
        assert_eq!(d.deadline(), Some(t0 + Q * MAX_WAIT_FACTOR));
    }
}
