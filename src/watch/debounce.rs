//! Turning a burst of file events into one change.
//!
//! An editor's save is several events (write a temp file, rename it over
//! the original, touch attributes), and a script may write a file twice in
//! a row. A change is therefore "due" once the events have been quiet for
//! the debounce period: it is then *settled*. A stream that never goes
//! quiet is still due after [`MAX_WAIT_FACTOR`] debounce periods, so it is
//! looked at, but as *unsettled*: the burst stays pending, and is due again
//! (settled) once it does go quiet, or (unsettled) after another
//! [`MAX_WAIT_FACTOR`] periods. `watch` rolls only on a settled change, or
//! on a file that read the same at two unsettled looks in a row.

use std::time::{Duration, Instant};

/// The longest a burst can postpone a change, in debounce periods.
pub const MAX_WAIT_FACTOR: u32 = 10;

/// The longest quiet period a storm of rotations stretches the debounce to.
pub const MAX_STORM_QUIET: Duration = Duration::from_secs(30);

/// The quiet period watch waits for after `cut_short` rolls in a row were
/// cut short by a rewrite of the env file (a storm of rotations): the
/// debounce, doubled for each, up to [`MAX_STORM_QUIET`] (never below the
/// debounce). Each cut-short roll respawned sessions onto a value that was
/// replaced seconds later; waiting for the storm to pass respawns each
/// session fewer times, and the roll after it puts the whole fleet on the
/// last value. A roll that ends without a rewrite resets it.
pub fn storm_quiet(debounce: Duration, cut_short: u32) -> Duration {
    let stretched = debounce.saturating_mul(1u32 << cut_short.min(16));
    stretched.min(MAX_STORM_QUIET.max(debounce))
}

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

    /// Changes the quiet period a pending or later burst waits for.
    pub fn set_quiet(&mut self, quiet: Duration) {
        self.quiet = quiet;
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

    /// Whether a burst is pending: until it is due, nothing else should
    /// act on the files it is about.
    pub fn pending(&self) -> bool {
        self.burst.is_some()
    }

    /// When the pending burst is due at `now`: how many events it held and
    /// whether it is settled. A settled burst is forgotten; an unsettled
    /// one stays pending with its last event, so its quiet period is still
    /// waited for.
    pub fn take_due(&mut self, now: Instant) -> Option<Due> {
        let (deadline, burst) = (self.deadline()?, self.burst?);
        if now < deadline {
            return None;
        }
        let settled = now >= burst.last + self.quiet;
        self.burst = (!settled).then_some(Burst {
            first: now,
            last: burst.last,
            events: 0,
        });
        Some(Due {
            events: burst.events,
            settled,
        })
    }
}

/// A burst that is due.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Due {
    /// The events it held since it was last due.
    pub events: usize,
    /// Quiet for the whole debounce period; `false` when it is due only
    /// because it has gone on for [`MAX_WAIT_FACTOR`] periods.
    pub settled: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    const Q: Duration = Duration::from_millis(500);

    #[test]
    fn a_storm_of_cut_short_rolls_stretches_the_quiet_period_up_to_a_bound() {
        let waits: Vec<u128> = (0..8).map(|n| storm_quiet(Q, n).as_millis()).collect();
        assert_eq!(waits, [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000]);
        assert_eq!(storm_quiet(Q, u32::MAX), MAX_STORM_QUIET, "no overflow");
        let long = Duration::from_secs(60);
        assert_eq!(storm_quiet(long, 3), long, "never below the debounce");
    }

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
        assert_eq!(
            d.take_due(t0 + Duration::from_millis(530)),
            Some(Due {
                events: 3,
                settled: true
            })
        );
        assert_eq!(d.take_due(t0 + Duration::from_millis(2000)), None, "once");
        assert!(!d.pending());
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

    #[test]
    fn an_unsettled_burst_stays_pending_until_it_is_quiet() {
        let t0 = Instant::now();
        let mut d = Debouncer::new(Q);
        let mut at = t0;
        while at < t0 + Q * MAX_WAIT_FACTOR {
            d.note(at);
            at += Duration::from_millis(100);
        }
        let capped = t0 + Q * MAX_WAIT_FACTOR;
        let last = at - Duration::from_millis(100);
        let due = d.take_due(capped).expect("due at the cap");
        assert!(!due.settled, "still being written: {due:?}");
        assert_eq!(due.events, 50);
        assert!(d.pending(), "its quiet period is still waited for");
        // No further event: due once quiet, settled, and then forgotten.
        assert_eq!(d.deadline(), Some(last + Q));
        assert_eq!(d.take_due(last + Q - Duration::from_millis(1)), None);
        assert_eq!(
            d.take_due(last + Q),
            Some(Due {
                events: 0,
                settled: true
            })
        );
        assert!(!d.pending());
    }

    #[test]
    fn a_burst_that_goes_on_is_due_unsettled_once_per_cap() {
        let t0 = Instant::now();
        let mut d = Debouncer::new(Q);
        let mut dues = Vec::new();
        let mut at = t0;
        // Twenty-five periods of events, 50 ms apart, looked at every 10 ms.
        while at < t0 + Q * 25 {
            d.note(at);
            for step in 0..5 {
                if let Some(due) = d.take_due(at + Duration::from_millis(step * 10)) {
                    dues.push(due.settled);
                }
            }
            at += Duration::from_millis(50);
        }
        assert_eq!(dues, vec![false, false], "at 10 and 20 periods");
        let end = at + Q;
        assert_eq!(d.take_due(end).map(|due| due.settled), Some(true));
    }
}
