//! Desired state: the config and the env file, and the policy that turns
//! them into the environment each managed session must hold.

pub mod config;
pub mod envfile;
pub mod policy;

use config::Config;
use envfile::{EnvFile, EnvFileError};
use policy::{Policy, PolicyError};
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum DesiredError {
    #[error("{config}: no env.file is configured, so there is no declared environment to compare sessions with")]
    #[diagnostic(
        code(the_loop::desired::no_env_file),
        help("add `env:\n  file: path/to/.env` to the config; without it, respawning would cost every pane and change nothing")
    )]
    NoEnvFile { config: PathBuf },
    #[error("{config}: no env.file is configured, so --env-file has no env file to preview a rotation of")]
    #[diagnostic(
        code(the_loop::desired::no_env_file),
        help("add `env:\n  file: path/to/.env` to the config; `the-loop validate --env-file FILE` checks a file on its own")
    )]
    CandidateWithoutEnvFile { config: PathBuf },
    /// The configured env file does not exist: said with the config line
    /// that names it, which is where a typo would be fixed.
    #[error("cannot read env file {path}: no such file (it is env.file, set at {set_at})")]
    #[diagnostic(
        code(the_loop::envfile::missing),
        help("create it, or point env.file at the file that holds the environment; `the-loop validate` checks the config and the env file without touching tmux")
    )]
    EnvFileMissing { path: PathBuf, set_at: String },
    #[error(transparent)]
    #[diagnostic(transparent)]
    EnvFile(#[from] EnvFileError),
    #[error(transparent)]
    #[diagnostic(transparent)]
    Policy(#[from] PolicyError),
    #[error(transparent)]
    #[diagnostic(transparent)]
    Key(#[from] crate::secret::store::KeyFileError),
}

/// Reads the env file now (never cached) and builds the policy. With
/// `require_env_file`, a config without `env.file` is refused.
pub fn load_policy(config: &Config, require_env_file: bool) -> Result<Policy, DesiredError> {
    let env_file = match &config.env.file {
        Some(path) => Some(load_configured(config, path)?),
        None if require_env_file => {
            return Err(DesiredError::NoEnvFile {
                config: config.path.clone(),
            })
        }
        None => None,
    };
    Ok(Policy::new(config, env_file)?)
}

/// The policy with `candidate` in place of the configured env file (`plan
/// --env-file`, `validate --env-file`): what the sessions would have to hold
/// once `env.file` holds what the candidate holds.
pub fn load_policy_with(config: &Config, candidate: &Path) -> Result<Policy, DesiredError> {
    Ok(Policy::new(config, Some(EnvFile::load(candidate)?))?)
}

/// The policy `plan --env-file CANDIDATE` plans against, and the
/// configured env file the candidate would replace (`None` when the
/// candidate is that file itself, under any name: then it is a plain plan).
pub fn load_candidate_policy(
    config: &Config,
    candidate: &Path,
) -> Result<(Policy, Option<PathBuf>), DesiredError> {
    let Some(configured) = &config.env.file else {
        return Err(DesiredError::CandidateWithoutEnvFile {
            config: config.path.clone(),
        });
    };
    // Absolute, as every path in a plan is: a saved plan is applied from
    // wherever the operator stands then.
    let candidate = std::path::absolute(candidate).unwrap_or_else(|_| candidate.to_owned());
    let policy = load_policy_with(config, &candidate)?;
    let same = match (candidate.canonicalize(), configured.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    Ok((policy, (!same).then(|| configured.clone())))
}

/// [`EnvFile::load`] of `env.file`; a missing file names the config line
/// that set it.
fn load_configured(config: &Config, path: &Path) -> Result<EnvFile, DesiredError> {
    EnvFile::load(path).map_err(|error| match error {
        EnvFileError::Read {
            path,
            kind: std::io::ErrorKind::NotFound,
        } => {
            let set_at = match config::position_of(&config.path, &["env", "file"]) {
                Some((line, column)) => format!("{}:{line}:{column}", config.path.display()),
                None => config.path.display().to_string(),
            };
            DesiredError::EnvFileMissing { path, set_at }
        }
        other => other.into(),
    })
}

/// [`load_policy`] (an env file required) for a command that names values
/// by fingerprint (`plan`, `apply`, `watch`): with the local key, read or
/// created under the state root, when the mode or a guessable value needs
/// it. The launcher and the spawns use [`load_policy`]: they name no value.
pub fn load_policy_with_key(config: &Config) -> Result<Policy, DesiredError> {
    with_key(config, load_policy(config, true)?)
}

/// `policy` with the local key attached when its mode or a guessable value
/// needs it (a candidate's policy too: `plan --env-file`).
pub fn with_key(config: &Config, mut policy: Policy) -> Result<Policy, DesiredError> {
    if policy.needs_key() {
        policy.attach_key(crate::secret::store::load_or_create(&config.state_root)?);
    }
    Ok(policy)
}
