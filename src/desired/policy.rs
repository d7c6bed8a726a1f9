//! The policy: what environment a managed session must hold, as a function
//! of the config and the env file alone (never of the calling shell).
//!
//! - D: the names the env file declares; C: D plus `env.credentials`.
//! - E: `env.deliver` (a subset of D): these must hold the file's value.
//! - Every name in C minus E must be absent.
//! - `THE_LOOP_WORK_ITEM`, `THE_LOOP_CLI_CONFIG` and `THE_LOOP_INSTANCE`
//!   (when configured) must be set.

use super::config::Config;
use super::envfile::EnvFile;
use crate::registry::SessionKey;
use crate::secret::{FingerprintKey, FingerprintMode, Fingerprinter, Seal, SecretValue, Shown};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

pub const VAR_WORK_ITEM: &str = "THE_LOOP_WORK_ITEM";
pub const VAR_CLI_CONFIG: &str = "THE_LOOP_CLI_CONFIG";
pub const VAR_INSTANCE: &str = "THE_LOOP_INSTANCE";

/// The one session key, under the name the roll's files still use.
pub use crate::registry::SessionKey as Identity;

/// The delivered name Claude Code is handed through its `apiKeyHelper`
/// setting instead of its environment. In the environment, a new value of
/// it stops Claude Code at "Detected a custom API key… use this API key?"
/// (default: No), so a rotation would leave every session at a dialog.
/// Through the helper a rotation needs no respawn: the harness asks the
/// helper again. The pane never holds the name.
pub const HELPER_DELIVERED: &str = "ANTHROPIC_API_KEY";

#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum PolicyError {
    #[error("{config}: env.deliver names {name}, which the env file {file} does not declare")]
    #[diagnostic(
        code(the_loop::policy::deliver_undeclared),
        help("env.deliver may only list names the env file declares")
    )]
    DeliverUndeclared {
        config: PathBuf,
        file: PathBuf,
        name: String,
    },
    #[error("{config}: env.sessionPassthrough lists {name}, which is a credential (declared by the env file or env.credentials)")]
    #[diagnostic(
        code(the_loop::policy::passthrough_secret),
        help("sessionPassthrough is for non-secret names; remove {name} from it")
    )]
    PassthroughIsSecret { config: PathBuf, name: String },
}

impl PolicyError {
    /// The config whose keys are at fault.
    pub fn config(&self) -> &std::path::Path {
        match self {
            PolicyError::DeliverUndeclared { config, .. }
            | PolicyError::PassthroughIsSecret { config, .. } => config,
        }
    }
}

/// The policy for one config and one reading of the env file.
#[derive(Debug, Clone)]
pub struct Policy {
    env_file: Option<EnvFile>,
    /// Where each of the env file's names is in it (its first entry): a
    /// value is looked up once per name and session, and walking a file of
    /// 20,000 names each time made a plan quadratic ([`Policy::file_value`]).
    index: HashMap<String, usize>,
    credentials: BTreeSet<String>,
    deliver: BTreeSet<String>,
    config_path: PathBuf,
    instance: Option<String>,
    /// `routing.models`, against which a record's model and effort are
    /// re-validated before a launch and when planning.
    models: BTreeMap<String, Vec<String>>,
    /// `env.fingerprint`, and the local key once [`Policy::attach_key`]
    /// gave it: every value the plan names is named through it.
    fingerprinter: Fingerprinter,
}

/// What one session must hold.
#[derive(Debug, Clone, Default)]
pub struct DesiredEnv {
    pub withheld: BTreeSet<String>,
    pub set: BTreeMap<String, SecretValue>,
    /// Delivered names the harness gets from the-loop's key helper rather
    /// than its environment (they are also in `withheld`, so no pane holds
    /// them): see [`HELPER_DELIVERED`].
    pub by_helper: BTreeSet<String>,
}

impl Policy {
    /// `env_file` is the file as read now, or `None` when no `env.file` is
    /// configured, in which case only the identifiers are managed.
    pub fn new(config: &Config, env_file: Option<EnvFile>) -> Result<Policy, PolicyError> {
        let mut credentials: BTreeSet<String> = config.env.credentials.iter().cloned().collect();
        let deliver: BTreeSet<String> = config.env.deliver.iter().cloned().collect();
        if let Some(file) = &env_file {
            credentials.extend(file.names().map(str::to_owned));
            if let Some(name) = deliver.iter().find(|n| file.get(n).is_none()) {
                return Err(PolicyError::DeliverUndeclared {
                    config: config.path.clone(),
                    file: file.path.clone(),
                    name: name.clone(),
                });
            }
        }
        if let Some(name) = config
            .env
            .session_passthrough
            .iter()
            .find(|n| credentials.contains(*n))
        {
            return Err(PolicyError::PassthroughIsSecret {
                config: config.path.clone(),
                name: name.clone(),
            });
        }
        let mut index = HashMap::new();
        for (i, entry) in env_file.iter().flat_map(|f| f.entries.iter()).enumerate() {
            index.entry(entry.name.clone()).or_insert(i);
        }
        Ok(Policy {
            env_file,
            index,
            credentials,
            deliver,
            config_path: config.path.clone(),
            instance: config.instance.clone(),
            models: config.routing.models.clone(),
            fingerprinter: Fingerprinter::new(config.env.fingerprint),
        })
    }

    /// Whether naming this env file's values needs the local key: always
    /// in `keyed` mode, and in `sha256` mode when a value can be guessed,
    /// to seal it ([`Policy::withheld_seal`], [`Policy::file_state`]).
    pub fn needs_key(&self) -> bool {
        self.fingerprinter.mode() == FingerprintMode::Keyed
            || self
                .file_entries()
                .any(|(_, v)| crate::secret::guessable(v))
    }

    /// Gives the policy the local key (read by the caller: this module
    /// does no I/O).
    pub fn attach_key(&mut self, key: FingerprintKey) {
        self.fingerprinter = std::mem::take(&mut self.fingerprinter).with_key(key);
    }

    pub fn fingerprinter(&self) -> &Fingerprinter {
        &self.fingerprinter
    }

    /// What a plan shows for `name` holding `value`: the-loop's own
    /// identifiers are never secret (a ref, a path, an instance name), so
    /// they are never withheld for being short.
    pub fn show(&self, name: &str, value: &[u8]) -> Shown {
        if is_identifier(name) {
            self.fingerprinter.show_public(value)
        } else {
            self.fingerprinter.show(value)
        }
    }

    fn file_entries(&self) -> impl Iterator<Item = (&str, &[u8])> {
        self.env_file
            .iter()
            .flat_map(|f| f.entries.iter())
            .map(|e| (e.name.as_str(), e.value.expose_bytes()))
    }

    /// The models (and their effort levels) the operator declares now.
    pub fn models(&self) -> &BTreeMap<String, Vec<String>> {
        &self.models
    }

    pub fn env_file(&self) -> Option<&EnvFile> {
        self.env_file.as_ref()
    }

    /// The env file's value of `name`, when it declares it.
    pub fn file_value(&self, name: &str) -> Option<&SecretValue> {
        let file = self.env_file.as_ref()?;
        self.index.get(name).map(|&i| &file.entries[i].value)
    }

    /// Name → fingerprint of every value the env file declares, for plans
    /// and for spotting that the file changed since a saved plan.
    pub fn file_fingerprints(&self) -> BTreeMap<String, Shown> {
        self.file_entries()
            .map(|(name, value)| (name.to_owned(), self.show(name, value)))
            .collect()
    }

    /// One keyed digest of every env-file value whose fingerprint is
    /// withheld, so a saved plan still notices that one changed; `None`
    /// when none is withheld (or there is no key to seal with).
    pub fn withheld_seal(&self) -> Option<Seal> {
        let mut parts: Vec<(&str, &[u8])> = self
            .file_entries()
            .filter(|(name, value)| self.show(name, value).is_withheld())
            .collect();
        if parts.is_empty() {
            return None;
        }
        parts.sort();
        let flat: Vec<&[u8]> = parts
            .iter()
            .flat_map(|(name, value)| [name.as_bytes(), *value])
            .collect();
        self.fingerprinter.seal(&flat)
    }

    /// What the env file holds, name by name, in a form that does not
    /// depend on `env.fingerprint`, for digests of the desired state that
    /// must not change when only the mode does (watch's memory): the
    /// SHA-256 fingerprint of a value too long to guess (only ever hashed
    /// again, never shown), `withheld` for one that can be guessed, whose
    /// plain hash would give it back, and then, under a name no variable can
    /// have (`<sealed>`), one keyed seal of all of those: what changes with
    /// any of them. With nothing guessable it is the name → fingerprint set
    /// it always was.
    pub fn file_state(&self) -> BTreeMap<String, String> {
        let mut guessable: Vec<(&str, &[u8])> = Vec::new();
        let mut state: BTreeMap<String, String> = self
            .file_entries()
            .map(|(name, value)| {
                let stands_for = if crate::secret::guessable(value) {
                    guessable.push((name, value));
                    Shown::Withheld.to_string()
                } else {
                    crate::secret::Fingerprint::of(value).to_string()
                };
                (name.to_owned(), stands_for)
            })
            .collect();
        if !guessable.is_empty() {
            guessable.sort();
            let mut parts: Vec<&[u8]> = vec![b"env-state"];
            parts.extend(guessable.iter().flat_map(|(n, v)| [n.as_bytes(), *v]));
            let seal = self.fingerprinter.seal(&parts);
            state.insert(
                "<sealed>".to_owned(),
                seal.map_or_else(|| Shown::Withheld.to_string(), |s| s.to_string()),
            );
        }
        state
    }

    /// The names no managed session may hold: C minus E, when an env file
    /// is configured (the-loop's own identifiers aside). These are also the
    /// names that must not linger in tmux's own layers.
    pub fn withheld_names(&self) -> BTreeSet<String> {
        if self.env_file.is_none() {
            return BTreeSet::new();
        }
        self.credentials
            .difference(&self.deliver)
            .cloned()
            .collect()
    }

    /// The delivered names (`env.deliver`), when an env file is configured.
    /// Their current value belongs in the harness; a value the file has
    /// since retired must not linger in tmux's environments.
    pub fn delivered_names(&self) -> BTreeSet<String> {
        if self.env_file.is_none() {
            return BTreeSet::new();
        }
        self.deliver.clone()
    }

    /// Every credential name (C: the env file's names and `env.credentials`),
    /// delivered ones included, when an env file is configured. No tmux the-loop
    /// runs is handed these from the-loop's own environment.
    pub fn credential_names(&self) -> BTreeSet<String> {
        if self.env_file.is_none() {
            return BTreeSet::new();
        }
        self.credentials.clone()
    }

    /// The current value of a name the key helper hands the harness, when
    /// the config delivers it and the env file declares it.
    pub fn helper_value(&self, name: &str) -> Option<&SecretValue> {
        if name != HELPER_DELIVERED || !self.deliver.contains(name) {
            return None;
        }
        self.file_value(name)
    }

    pub fn desired_for(&self, identity: &SessionKey) -> DesiredEnv {
        let mut desired = DesiredEnv::default();
        if self.env_file.is_some() {
            desired.withheld = self
                .credentials
                .difference(&self.deliver)
                .cloned()
                .collect();
            for name in &self.deliver {
                if name == HELPER_DELIVERED {
                    desired.withheld.insert(name.clone());
                    desired.by_helper.insert(name.clone());
                    continue;
                }
                if let Some(value) = self.file_value(name) {
                    desired.set.insert(name.clone(), value.clone());
                }
            }
        }
        let config = self.config_path.as_os_str().as_bytes();
        desired
            .set
            .insert(VAR_CLI_CONFIG.into(), SecretValue::new(config));
        match identity {
            SessionKey::WorkItem(reference) => {
                desired.set.insert(
                    VAR_WORK_ITEM.into(),
                    SecretValue::new(reference.to_string().as_bytes()),
                );
            }
            SessionKey::Standing(_) => {
                desired.withheld.insert(VAR_WORK_ITEM.into());
            }
        }
        if let Some(instance) = &self.instance {
            desired
                .set
                .insert(VAR_INSTANCE.into(), SecretValue::new(instance.as_bytes()));
        }
        desired
    }

    /// What a host's one shared environment should hold (Claude Code's
    /// background daemon, which every session under it inherits): the
    /// env file's delivered names and the-loop's config and instance, and
    /// no session's identity.
    /// Claude Code's key helper does not reach a background session (its
    /// settings are the daemon's), so a name the helper delivers to panes
    /// is the host's to hold in its environment.
    pub fn desired_for_host(&self) -> DesiredEnv {
        let mut desired = self.desired_for(&SessionKey::Standing(String::new()));
        for name in std::mem::take(&mut desired.by_helper) {
            desired.withheld.remove(&name);
            if let Some(value) = self.file_value(&name) {
                desired.set.insert(name, value.clone());
            }
        }
        desired
    }

    /// The config file the identifiers name.
    pub fn config_path(&self) -> &std::path::Path {
        &self.config_path
    }

    /// The configured instance, which `THE_LOOP_INSTANCE` carries.
    pub fn instance(&self) -> Option<&str> {
        self.instance.as_deref()
    }
}

/// One of the-loop's own identifiers, which a launch always sets.
pub fn is_identifier(name: &str) -> bool {
    matches!(name, VAR_WORK_ITEM | VAR_CLI_CONFIG | VAR_INSTANCE)
}

impl DesiredEnv {
    /// Makes a command's environment the desired one: withheld names removed,
    /// desired names set, everything else inherited unchanged.
    pub fn apply_to(&self, command: &mut std::process::Command) {
        for name in &self.withheld {
            command.env_remove(name);
        }
        for (name, value) in &self.set {
            command.env(name, std::ffi::OsStr::from_bytes(value.expose_bytes()));
        }
    }
}

#[cfg(test)]
#[path = "policy_tests.rs"]
mod tests;
