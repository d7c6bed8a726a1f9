//! `the-loop fingerprint NAME`: what the plan would show for a value a
//! person holds, so they can check it by hand in either mode. The value
//! comes from stdin (the command line reads it; an argv is visible to every
//! user in `ps`), and only its fingerprint, or `withheld`, goes out.

use super::Context;
use crate::desired::DesiredError;
use crate::secret::{FingerprintLabel, FingerprintMode, SecretValue, Shown};
use schemars::JsonSchema;
use serde::Serialize;
use std::path::PathBuf;

/// `fingerprint --json` (schema: `schemas/fingerprint.schema.json`).
#[derive(Debug, Serialize, JsonSchema)]
pub struct FingerprintReport {
    /// Always "1" for this shape.
    pub format_version: String,
    pub name: String,
    /// What a plan, a report or an event shows for this value of NAME:
    /// its fingerprint, or `withheld` (a guessable value in `sha256` mode).
    pub fingerprint: Shown,
    /// How it was made: `env.fingerprint`, and the key's id in `keyed` mode.
    pub fingerprints: FingerprintLabel,
    /// The configured env file; null when none is.
    pub env_file: Option<PathBuf>,
    /// How the value compares with the env file's current value of NAME.
    /// Null when no env file is configured.
    pub env_file_value: Option<EnvFileValue>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum EnvFileValue {
    /// The env file holds this value of NAME now.
    Same,
    /// The env file holds another value of NAME.
    Different,
    /// The env file does not declare NAME.
    Undeclared,
}

/// Fingerprints `value` as `NAME` under the configured mode: the local key
/// is read (or created) only in `keyed` mode; in `sha256` mode nothing is
/// written.
pub fn fingerprint(
    ctx: &Context,
    name: &str,
    value: &SecretValue,
) -> Result<FingerprintReport, DesiredError> {
    let mut policy = crate::desired::load_policy(&ctx.config, false)?;
    if policy.fingerprinter().mode() == FingerprintMode::Keyed {
        policy.attach_key(crate::secret::store::load_or_create(
            &ctx.config.state_root,
        )?);
    }
    let env_file_value = policy.env_file().map(|_| match policy.file_value(name) {
        Some(current) if current == value => EnvFileValue::Same,
        Some(_) => EnvFileValue::Different,
        None => EnvFileValue::Undeclared,
    });
    Ok(FingerprintReport {
        format_version: "1".into(),
        name: name.to_owned(),
        fingerprint: policy.show(name, value.expose_bytes()),
        fingerprints: policy.fingerprinter().label(),
        env_file: policy.env_file().map(|f| f.path.clone()),
        env_file_value,
    })
}
