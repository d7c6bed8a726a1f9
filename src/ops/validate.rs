//! `validate`: the config and the env file checked as `plan` would read
//! them (syntax, names, the policy that joins them), and nothing else: no
//! tmux, no `/proc`, no state root. It runs where the-loop does not, in a
//! pre-commit hook or an Ansible task before a new env file is pushed.
//!
//! The checks are the loaders' own, so a file `validate` passes is one
//! `plan` reads, and an error is the one `plan` would print, with its file,
//! line and column. Each loader stops at its first mistake, so there is at
//! most one error; `errors` is a list so that a later check can add more.

use crate::desired::config::{self, ConfigError};
use crate::desired::envfile::EnvFileError;
use crate::desired::DesiredError;
use schemars::JsonSchema;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// `validate --json`: what was checked, and what is wrong with it.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ValidateReport {
    /// Always "1" for this shape.
    pub format_version: String,
    /// True when the config and the env file load, and `errors` is empty.
    pub valid: bool,
    /// The config checked; null when none was found.
    pub config: Option<PathBuf>,
    /// The env file checked: `--env-file`'s candidate, else the configured
    /// `env.file`; null when there is neither (or the config did not load).
    pub env_file: Option<PathBuf>,
    /// Whether `env_file` is a candidate given with `--env-file`.
    pub candidate: bool,
    /// How many names the env file declares, once it has loaded.
    pub names: Option<usize>,
    /// What is wrong, each as its diagnostic says it (no value ever).
    pub errors: Vec<Finding>,
}

/// One mistake, placed where the diagnostic places it.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Finding {
    /// The diagnostic's code, e.g. `the_loop::config::invalid`.
    pub code: Option<String>,
    /// The diagnostic's message, as `plan` would print it.
    pub message: String,
    /// The file at fault (the config or the env file).
    pub file: Option<PathBuf>,
    /// 1-based line and column, when the mistake is inside the file.
    pub line: Option<usize>,
    pub column: Option<usize>,
    /// How to fix it.
    pub help: Option<String>,
}

/// The report, and the first error as a diagnostic for the text view.
pub struct Validated {
    pub report: ValidateReport,
    pub error: Option<miette::Report>,
}

/// Checks the config found as every command finds it (`explicit` is
/// `--config`), and `candidate` instead of its env file when given.
pub fn validate(explicit: Option<&Path>, candidate: Option<&Path>) -> Validated {
    let mut report = ValidateReport {
        format_version: "1".into(),
        valid: false,
        config: None,
        env_file: None,
        candidate: candidate.is_some(),
        names: None,
        errors: Vec::new(),
    };
    let loaded = config::discover(explicit).and_then(|path| {
        report.config = Some(path.clone());
        config::load(&path)
    });
    let config = match loaded {
        Ok(config) => config,
        Err(error) => return failed(report, config_finding(&error), error.into()),
    };
    let candidate = candidate.map(|c| std::path::absolute(c).unwrap_or_else(|_| c.to_owned()));
    report.env_file = candidate.clone().or_else(|| config.env.file.clone());
    let policy = match &candidate {
        Some(candidate) => crate::desired::load_policy_with(&config, candidate),
        None => crate::desired::load_policy(&config, false),
    };
    match policy {
        Ok(policy) => {
            report.names = policy.env_file().map(|f| f.entries.len());
            report.valid = true;
            Validated {
                report,
                error: None,
            }
        }
        Err(error) => failed(report, desired_finding(&error), error.into()),
    }
}

fn failed(mut report: ValidateReport, finding: Finding, error: miette::Report) -> Validated {
    report.errors.push(finding);
    Validated {
        report,
        error: Some(error),
    }
}

/// A finding with the diagnostic's own words, and where it points.
fn finding(
    diagnostic: &dyn miette::Diagnostic,
    file: Option<&Path>,
    at: Option<(usize, usize)>,
) -> Finding {
    Finding {
        code: diagnostic.code().map(|c| c.to_string()),
        message: diagnostic.to_string(),
        file: file.map(Path::to_path_buf),
        line: at.map(|(line, _)| line),
        column: at.map(|(_, column)| column),
        help: diagnostic.help().map(|h| h.to_string()),
    }
}

fn config_finding(error: &ConfigError) -> Finding {
    match error {
        ConfigError::Invalid {
            path, line, column, ..
        } => finding(error, Some(path), Some((*line, *column))),
        ConfigError::Read { path, .. }
        | ConfigError::Refused { path, .. }
        | ConfigError::NotYours { path, .. }
        | ConfigError::StateRootNotYours { path, .. } => finding(error, Some(path), None),
        ConfigError::NotFound { .. } => finding(error, None, None),
    }
}

fn desired_finding(error: &DesiredError) -> Finding {
    match error {
        DesiredError::EnvFile(EnvFileError::Syntax {
            path, line, column, ..
        }) => finding(error, Some(path), Some((*line, *column))),
        DesiredError::EnvFile(EnvFileError::Read { path, .. })
        | DesiredError::EnvFile(EnvFileError::Refused { path, .. })
        | DesiredError::EnvFile(EnvFileError::NotYours { path, .. })
        | DesiredError::EnvFileMissing { path, .. } => finding(error, Some(path), None),
        DesiredError::NoEnvFile { config } | DesiredError::CandidateWithoutEnvFile { config } => {
            finding(error, Some(config), None)
        }
        DesiredError::Policy(policy) => finding(error, Some(policy.config()), None),
        // validate reads no key; a key error can only come from another path.
        DesiredError::Key(_) => finding(error, None, None),
    }
}
