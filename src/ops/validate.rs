//! `validate`: the config and the env file checked as `plan` would read
//! them (syntax, names, the policy that joins them), and nothing else: no
//! tmux, no `/proc`, no state root. It runs where the-loop does not, in a
//! pre-commit hook or an Ansible task before a new env file is pushed.
//!
//! The checks are the loaders' own, so a file `validate` passes is one
//! `plan` reads, and an error is the one `plan` would print, with its file,
//! line and column. The config's loader reports every mistake it finds
//! (each is one entry of `errors`); the env file's stops at its first.

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
    /// What this host lacks to run what the config says, without making
    /// the config wrong: a harness binary not found on PATH here. `valid`
    /// and the exit code ignore them (a host that only plans needs no
    /// harness); `apply` and `sessions start` refuse such a launch.
    pub warnings: Vec<Finding>,
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
        warnings: Vec::new(),
    };
    let loaded = config::discover(explicit).and_then(|path| {
        report.config = Some(path.clone());
        config::load(&path)
    });
    let config = match loaded {
        Ok(config) => config,
        Err(error) => return failed(report, config_findings(&error), error.into()),
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
            report.warnings = harnesses_missing(&config, &policy);
            Validated {
                report,
                error: None,
            }
        }
        Err(error) => failed(report, vec![desired_finding(&error)], error.into()),
    }
}

fn failed(mut report: ValidateReport, findings: Vec<Finding>, error: miette::Report) -> Validated {
    report.errors.extend(findings);
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

/// One finding per mistake: a config with several gives several.
fn config_findings(error: &ConfigError) -> Vec<Finding> {
    match error {
        ConfigError::Mistakes { mistakes, .. } => mistakes.iter().map(config_finding).collect(),
        other => vec![config_finding(other)],
    }
}

fn config_finding(error: &ConfigError) -> Finding {
    match error {
        ConfigError::Mistakes { path, .. } => finding(error, Some(path), None),
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

/// A warning for each harness the config can launch (the default one, and
/// each given a `routing.harnessBinary`) whose binary is not found as the
/// launcher's `execvp` would look for it: on the PATH the env file
/// delivers, else on this process's own, which is what a new session
/// inherits from the one starting it.
fn harnesses_missing(
    config: &config::Config,
    policy: &crate::desired::policy::Policy,
) -> Vec<Finding> {
    let delivered = policy.desired_for_host().set.get("PATH").map(|v| {
        use std::os::unix::ffi::OsStrExt;
        std::ffi::OsStr::from_bytes(v.expose_bytes()).to_owned()
    });
    let path = delivered
        .clone()
        .or_else(|| std::env::var_os("PATH"))
        .unwrap_or_default();
    let mut names: Vec<&str> = vec![config.routing.default_harness.as_str()];
    for (name, settings) in &config.routing.harnesses {
        if settings.binary.is_some() && !names.contains(&name.as_str()) {
            names.push(name);
        }
    }
    let mut warnings = Vec::new();
    for name in names {
        let Some(harness) = crate::harness::by_name(name) else {
            continue;
        };
        let binary = crate::harness::resumable::harness_binary(config, harness);
        if crate::runner::prelaunch::resolves(&binary, &path, Path::new("/")) {
            continue;
        }
        let key = format!("routing.harnessBinary.{name}");
        let set = config.routing.harness(name).binary.is_some();
        let at = set
            .then(|| config::position_of(&config.path, &["routing", "harnessBinary", name]))
            .flatten();
        let searched = match (&delivered, binary.as_encoded_bytes().contains(&b'/')) {
            (_, true) => "is not an executable file",
            (Some(_), false) => "is not found on the PATH the env file delivers",
            (None, false) => "is not found on PATH here",
        };
        let from = if set { "set by" } else { "the default; set" };
        warnings.push(Finding {
            code: Some("the_loop::config::harness_not_found".into()),
            message: format!(
                "the {name} harness binary `{}` {searched} ({from} {key})",
                Path::new(&binary).display()
            ),
            file: Some(config.path.clone()),
            line: at.map(|(line, _)| line),
            column: at.map(|(_, column)| column),
            help: Some(format!(
                "install {name} on this host, or set {key} to the executable's full path; `plan` only reads and does not need it, but `apply`, `sessions start` and every respawn refuse to launch it"
            )),
        });
    }
    warnings
}
