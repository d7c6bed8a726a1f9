//! Which the-loop this is: its version, the git commit it was built from
//! and the day it was built, as `build.rs` found them. `--version`,
//! `the-loop version` and watch's `the_loop_build_info` metric all read
//! them here, so a bug report, a package and a dashboard name the same build.

use schemars::JsonSchema;
use serde::Serialize;

/// The crate's version (`Cargo.toml`).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// `git rev-parse --short HEAD` at build time, or `unknown` when the source
/// was not a git checkout.
pub const COMMIT: &str = env!("THE_LOOP_COMMIT");
/// `YYYY-MM-DD` (UTC): `SOURCE_DATE_EPOCH`'s day when the build set it,
/// else the day the build script last ran.
pub const BUILD_DATE: &str = env!("THE_LOOP_BUILD_DATE");
/// What `--version` prints after the name: `0.1.0 (3be5d6a 2026-12-03)`,
/// the shape `rustc --version` and `cargo --version` use.
pub const LONG_VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (",
    env!("THE_LOOP_COMMIT"),
    " ",
    env!("THE_LOOP_BUILD_DATE"),
    ")"
);

pub const FORMAT_VERSION: &str = "1";

/// `the-loop version --json` (`schemas/version.schema.json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct BuildInfo {
    /// Contract: always "1" for this shape.
    pub format_version: &'static str,
    pub version: &'static str,
    /// Short git commit hash, or "unknown".
    pub commit: &'static str,
    /// `YYYY-MM-DD`, UTC.
    pub build_date: &'static str,
}

/// This binary's build facts.
pub fn current() -> BuildInfo {
    BuildInfo {
        format_version: FORMAT_VERSION,
        version: VERSION,
        commit: COMMIT,
        build_date: BUILD_DATE,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_long_version_is_made_of_the_parts() {
        assert_eq!(LONG_VERSION, format!("{VERSION} ({COMMIT} {BUILD_DATE})"));
        let date = BUILD_DATE.as_bytes();
        assert!(
            date.len() == 10 && date[4] == b'-' && date[7] == b'-',
            "{BUILD_DATE}"
        );
        assert!(
            COMMIT == "unknown"
                || (COMMIT.len() >= 4 && COMMIT.bytes().all(|b| b.is_ascii_hexdigit())),
            "{COMMIT}"
        );
    }
}
