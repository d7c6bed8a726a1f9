//! Desired state: the config and the env file, and the policy that turns
//! them into the environment each managed session must hold.

pub mod config;
pub mod envfile;
pub mod policy;

use config::Config;
use envfile::{EnvFile, EnvFileError};
use policy::{Policy, PolicyError};

#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum DesiredError {
    #[error("{config}: no env.file is configured, so there is no declared environment to compare sessions with")]
    #[diagnostic(
        code(the_loop::desired::no_env_file),
        help("add `env:\n  file: path/to/.env` to the config; without it, respawning would cost every pane and change nothing")
    )]
    NoEnvFile { config: std::path::PathBuf },
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
        Some(path) => Some(EnvFile::load(path)?),
        None if require_env_file => {
            return Err(DesiredError::NoEnvFile {
                config: config.path.clone(),
            })
        }
        None => None,
    };
    Ok(Policy::new(config, env_file)?)
}

/// [`load_policy`] (an env file required) for a command that names values
/// by fingerprint (`plan`, `apply`, `watch`): with the local key, read or
/// created under the state root, when the mode or a guessable value needs
/// it. The launcher and the spawns use [`load_policy`]: they name no value.
pub fn load_policy_with_key(config: &Config) -> Result<Policy, DesiredError> {
    let mut policy = load_policy(config, true)?;
    if policy.needs_key() {
        policy.attach_key(crate::secret::store::load_or_create(&config.state_root)?);
    }
    Ok(policy)
}
