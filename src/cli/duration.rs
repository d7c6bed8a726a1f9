//! Durations on the command line, as operators write them for Terraform's
//! `-lock-timeout`: `30s`, `5m`, `1h`, `1m30s`, `500ms`; a bare number is
//! seconds. Every flag gives its own upper bound, so no later arithmetic on
//! the value can overflow.

use std::time::Duration;

/// Parses `text`, refusing anything longer than `max`.
pub fn parse(text: &str, max: Duration) -> Result<Duration, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err("empty duration; write it like 30s, 5m or 1h".into());
    }
    if let Ok(secs) = text.parse::<u64>() {
        return within(Duration::from_secs(secs), max);
    }
    let mut total = Duration::ZERO;
    let mut rest = text;
    while !rest.is_empty() {
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits == 0 {
            return Err(format!(
                "{text:?}: expected a number before each unit (30s, 5m, 1h)"
            ));
        }
        let number: u64 = rest[..digits]
            .parse()
            .map_err(|_| format!("{text:?}: the number is too large"))?;
        rest = &rest[digits..];
        let unit_len = rest.len()
            - rest
                .trim_start_matches(|c: char| c.is_ascii_alphabetic())
                .len();
        let part = match &rest[..unit_len] {
            "ms" => Some(Duration::from_millis(number)),
            "s" => Some(Duration::from_secs(number)),
            "m" => number.checked_mul(60).map(Duration::from_secs),
            "h" => number.checked_mul(3600).map(Duration::from_secs),
            "" => {
                return Err(format!(
                    "{text:?}: a unit (ms, s, m, h) must follow {number}"
                ))
            }
            unit => {
                return Err(format!(
                    "{text:?}: unknown unit {unit:?}; use ms, s, m or h"
                ))
            }
        };
        rest = &rest[unit_len..];
        total = part
            .and_then(|p| total.checked_add(p))
            .ok_or_else(|| format!("{text:?} is too long"))?;
    }
    within(total, max)
}

fn within(d: Duration, max: Duration) -> Result<Duration, String> {
    if d > max {
        Err(format!(
            "{}s is longer than the {}s this flag allows",
            d.as_secs(),
            max.as_secs()
        ))
    } else {
        Ok(d)
    }
}

/// `--lock-timeout`: at most a day; an apply that waits longer is stuck.
pub const LOCK_TIMEOUT_MAX: Duration = Duration::from_secs(24 * 3600);

pub fn lock_timeout(text: &str) -> Result<Duration, String> {
    parse(text, LOCK_TIMEOUT_MAX)
}

/// `--ready-timeout`: at most ten minutes; a harness not drawn by then is
/// not starting.
pub const READY_TIMEOUT_MAX: Duration = Duration::from_secs(600);

pub fn ready_timeout(text: &str) -> Result<Duration, String> {
    parse(text, READY_TIMEOUT_MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operator_forms() {
        let max = LOCK_TIMEOUT_MAX;
        assert_eq!(parse("30s", max), Ok(Duration::from_secs(30)));
        assert_eq!(parse("5m", max), Ok(Duration::from_secs(300)));
        assert_eq!(parse("1h", max), Ok(Duration::from_secs(3600)));
        assert_eq!(parse("1m30s", max), Ok(Duration::from_secs(90)));
        assert_eq!(parse("500ms", max), Ok(Duration::from_millis(500)));
        assert_eq!(parse("0", max), Ok(Duration::ZERO));
        assert_eq!(parse("12", max), Ok(Duration::from_secs(12)));
        assert_eq!(parse("24h", max), Ok(max));
    }

    #[test]
    fn refusals_never_panic() {
        let max = LOCK_TIMEOUT_MAX;
        for bad in [
            "",
            "s",
            "5x",
            "-5s",
            "5 s",
            "1.5s",
            "25h",
            "99999999999999999999s",
            "18446744073709551615h",
            "18446744073709551615m",
            "5s5",
            "m5",
        ] {
            assert!(parse(bad, max).is_err(), "{bad:?} accepted");
        }
    }
}
