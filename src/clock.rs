//! Wall-clock time in the registry's format, kept behind one function so the
//! rest of the code never reads the clock directly; and the monotonic clock
//! every duration is measured on, so a wall clock set forward by a day (an
//! NTP step, a VM resumed) never makes a 64 s roll read as 86,464 s.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Now, as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn now_utc() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    format_utc(secs)
}

/// Formats seconds since the epoch as `YYYY-MM-DDTHH:MM:SSZ` (proleptic Gregorian).
pub fn format_utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        (rem / 60) % 60,
        rem % 60
    )
}

/// Seconds since the epoch now; `None` when the clock is before 1970.
pub fn now_secs() -> Option<u64> {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .ok()
        .map(|d| d.as_secs())
}

/// Milliseconds since the epoch now, as hook records carry them; 0 when the
/// clock is before 1970.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// Reads a registry timestamp back: `YYYY-MM-DDTHH:MM:SS`, then optional
/// fractional seconds, then `Z` or `+00:00`. Upstream writers add
/// milliseconds; any other offset is refused rather than guessed at.
pub fn parse_utc(text: &str) -> Option<u64> {
    let (stamp, rest) = (text.get(..19)?, text.get(19..)?);
    let rest = match rest.strip_prefix('.') {
        Some(frac) => frac.trim_start_matches(|c: char| c.is_ascii_digit()),
        None => rest,
    };
    if !matches!(rest, "Z" | "+00:00") {
        return None;
    }
    let b = stamp.as_bytes();
    if b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<u64> {
        let part = stamp.get(r)?;
        part.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| part.parse().ok())?
    };
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hh, mm, ss) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) || hh > 23 || mm > 59 || ss > 60 {
        return None;
    }
    let days = u64::try_from(days_from_civil(i64::try_from(y).ok()?, m, d)).ok()?;
    days.checked_mul(86_400)?
        .checked_add(hh * 3600 + mm * 60 + ss)
}

// Howard Hinnant's civil-to-days, the inverse of `civil_from_days`.
fn days_from_civil(y: i64, m: u64, d: u64) -> i64 {
    let (m, d) = (m as i64, d as i64);
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Days since 1970-01-01 to (year, month, day): Howard Hinnant's days-to-civil
/// algorithm, which avoids a date crate (also how Codex's rollout days are found).
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// `Instant::now() + wait`, checked. A wait too long for the clock saturates
/// at the furthest deadline it can hold (halving until one fits) instead of
/// panicking: `Instant + Duration` overflowed once after a SIGTERM was sent.
pub fn deadline(wait: Duration) -> Instant {
    deadline_from(Instant::now(), wait)
}

/// `start + wait`, checked as [`deadline`] is.
pub fn deadline_from(start: Instant, wait: Duration) -> Instant {
    let mut wait = wait;
    loop {
        if let Some(at) = start.checked_add(wait) {
            return at;
        }
        wait /= 2;
    }
}

/// The two clocks, read through one seam so a test can set the wall clock
/// apart from the monotonic one: timestamps come from [`Clock::wall_secs`],
/// durations only from [`Clock::monotonic`].
pub trait Clock: Send + Sync {
    /// Seconds since the epoch (0 before 1970): what a timestamp says.
    fn wall_secs(&self) -> u64;
    /// The monotonic clock: what a duration is measured on.
    fn monotonic(&self) -> Instant;
}

/// The machine's clocks.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn wall_secs(&self) -> u64 {
        now_secs().unwrap_or(0)
    }
    fn monotonic(&self) -> Instant {
        Instant::now()
    }
}

/// A start to measure a duration from (a plan, a roll), on the monotonic
/// clock.
#[derive(Clone, Copy, Debug)]
pub struct Stopwatch(Instant);

impl From<Instant> for Stopwatch {
    fn from(start: Instant) -> Stopwatch {
        Stopwatch(start)
    }
}

impl Stopwatch {
    pub fn start() -> Stopwatch {
        Stopwatch(Instant::now())
    }

    /// Started on `clock`'s monotonic reading.
    pub fn start_on(clock: &dyn Clock) -> Stopwatch {
        Stopwatch(clock.monotonic())
    }

    /// The time since [`Stopwatch::start`], checked: zero, never a panic,
    /// should the clock read earlier.
    pub fn elapsed(self) -> Duration {
        self.elapsed_on(&SystemClock)
    }

    /// The time since the start, on `clock`'s monotonic reading; checked.
    pub fn elapsed_on(self, clock: &dyn Clock) -> Duration {
        clock
            .monotonic()
            .checked_duration_since(self.0)
            .unwrap_or_default()
    }
}

/// A duration in whole milliseconds, saturating: what the event log and
/// `history --json` carry.
pub fn millis(took: Duration) -> u64 {
    u64::try_from(took.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::{deadline, format_utc, parse_utc};

    #[test]
    fn a_deadline_past_the_clock_saturates_instead_of_panicking() {
        let far = deadline(std::time::Duration::MAX);
        assert!(far > std::time::Instant::now());
        let near = deadline(std::time::Duration::from_millis(5));
        assert!(near < far);
    }

    #[test]
    fn parses_what_it_formats_and_what_upstream_writes() {
        for secs in [0, 951_782_400, 1_796_000_000] {
            assert_eq!(parse_utc(&format_utc(secs)), Some(secs));
        }
        assert_eq!(parse_utc("2026-11-30T00:53:20.123Z"), Some(1_796_000_000));
        assert_eq!(parse_utc("2026-11-30T00:53:20+00:00"), Some(1_796_000_000));
        for bad in [
            "",
            "2026-11-30",
            "2026-11-30T00:53:20+02:00",
            "2026-13-30T00:53:20Z",
            "2026-11-30 00:53:20Z",
            "+026-11-30T00:53:20Z",
            "2026-11-30T00:53:2\u{e9}Z",
        ] {
            assert_eq!(parse_utc(bad), None, "{bad}");
        }
    }

    #[test]
    fn formats_known_instants() {
        assert_eq!(format_utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(format_utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(format_utc(1_796_000_000), "2026-11-30T00:53:20Z");
    }
}
