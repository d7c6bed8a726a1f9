//! `cli-config.yaml`: defaults, every key, paths, discovery, tolerated
//! sections, and errors that locate a mistake without quoting the file.

mod discovery;
mod errors;
mod valid_files;

use std::path::PathBuf;
use tempfile::TempDir;
use the_loop::desired::config::{self, Config, ConfigError, ProblemKind};

/// A value planted where the file is wrong; no error output may contain it.
const CANARY: &str = "CANARY_s3cr3t_91f2";

/// A temporary directory holding `cli-config.yaml`.
struct Fixture {
    dir: TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        Fixture {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.dir.path().join(relative)
    }

    fn write(&self, relative: &str, text: &str) -> PathBuf {
        let path = self.path(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    fn load(&self, text: &str) -> Result<Config, ConfigError> {
        config::load(&self.write("cli-config.yaml", text))
    }

    fn error(&self, text: &str) -> ConfigError {
        self.load(text).expect_err("the config should be refused")
    }

    /// Output with the temporary directory written as `[DIR]`.
    fn scrub(&self, text: &str) -> String {
        text.replace(&self.dir.path().display().to_string(), "[DIR]")
    }

    /// The error as a user sees it: message, then the miette report.
    fn shown(&self, error: &ConfigError) -> String {
        self.scrub(&format!("{error}\n---\n{}", report(error)))
    }
}

/// How miette shows `error` to a person (no colour, wide).
pub(crate) fn report(error: &ConfigError) -> String {
    let mut out = String::new();
    miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
        .with_width(400)
        .render_report(&mut out, error)
        .unwrap();
    out
}

/// Asserts that nothing a user or a log could see contains the canary.
fn assert_no_canary(error: &ConfigError) {
    for (what, text) in [
        ("Display", error.to_string()),
        ("Debug", format!("{error:?}")),
        ("report", report(error)),
    ] {
        assert!(!text.contains(CANARY), "{what} leaks the value: {text}");
        assert!(
            !text.contains("s3cr3t"),
            "{what} leaks part of the value: {text}"
        );
    }
}

/// (line, column, key, kind) of an `Invalid` error.
fn position(error: &ConfigError) -> (usize, usize, &str, ProblemKind) {
    match error {
        ConfigError::Invalid {
            line,
            column,
            key,
            kind,
            ..
        } => (*line, *column, key.as_str(), *kind),
        other => panic!("expected an Invalid error, got {other:?}"),
    }
}
