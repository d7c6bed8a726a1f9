//! `cli-config.yaml`: finding it, reading it, and what it says.
//!
//! One file configures all of the-loop, so it carries sections this tool
//! never reads. Those are accepted unread (see `raw::FOREIGN_SECTIONS` and
//! the per-section lists beside it), while the sections this tool does read
//! are strict: an unknown key or a value of the wrong type is an error that
//! names the file, line, column and dotted key, and never the value. The JSON
//! Schema in `schemas/cli-config.schema.json` is generated from the same
//! types the parser uses ([`json_schema`]).
//!
//! `routing.models` is a mapping from each model a work item may choose to
//! the effort levels it allows (`[]` for a model that takes none).

mod de;
mod error;
mod fix;
mod locate;
mod model;
mod parse;
mod raw;
mod resolve;

pub use error::{ConfigError, ProblemKind};
pub use model::*;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// Names the config file when `--config` is not given.
pub const CONFIG_ENV_VAR: &str = "THE_LOOP_CLI_CONFIG";
/// Where the config sits below the working directory or the home directory.
pub const CONFIG_RELATIVE_PATH: &str = ".the-loop/cli-config.yaml";
/// `--config`, then `$THE_LOOP_CLI_CONFIG`, then `./.the-loop/cli-config.yaml`,
/// then `~/.the-loop/cli-config.yaml`. Returns the config's canonical path
/// (see [`identity`]).
pub fn discover(explicit: Option<&Path>) -> Result<PathBuf, ConfigError> {
    let cwd = std::env::current_dir().map_err(|error| ConfigError::Read {
        path: PathBuf::from("."),
        kind: error.kind(),
    })?;
    let from_env = std::env::var_os(CONFIG_ENV_VAR);
    let home = std::env::var_os("HOME")
        .filter(|home| !home.is_empty())
        .map(PathBuf::from);
    discover_in(explicit, from_env.as_deref(), &cwd, home.as_deref())
}

/// [`discover`] with its environment passed in: the value of
/// `$THE_LOOP_CLI_CONFIG`, the working directory and `$HOME`.
///
/// A path named by the flag or the variable must exist (else a `Read` error
/// of kind `NotFound`); the two default locations are simply skipped when absent.
pub fn discover_in(
    explicit: Option<&Path>,
    from_env: Option<&OsStr>,
    cwd: &Path,
    home: Option<&Path>,
) -> Result<PathBuf, ConfigError> {
    let named = explicit.or(from_env.filter(|v| !v.is_empty()).map(Path::new));
    if let Some(named) = named {
        let path = crate::fsutil::absolute(cwd, named);
        return match std::fs::metadata(&path) {
            Ok(_) => Ok(identity(&path)),
            Err(error) => Err(ConfigError::Read {
                path,
                kind: error.kind(),
            }),
        };
    }
    let local = cwd.join(CONFIG_RELATIVE_PATH);
    let in_home = home.map(|home| home.join(CONFIG_RELATIVE_PATH));
    for candidate in std::iter::once(&local).chain(in_home.as_ref()) {
        if candidate.is_file() {
            return Ok(identity(&crate::fsutil::absolute(cwd, candidate)));
        }
    }
    let home_looked = match &in_home {
        Some(path) => path.display().to_string(),
        None => format!("~/{CONFIG_RELATIVE_PATH} ($HOME unset)"),
    };
    Err(ConfigError::NotFound {
        looked: format!(
            "--config (not given), ${CONFIG_ENV_VAR} (unset or empty), {}, {home_looked}",
            local.display()
        ),
    })
}

/// The config's one name: its canonical path, every symlink and `.`/`..`
/// resolved. It is what sessions carry in `THE_LOOP_CLI_CONFIG`, what the
/// launcher is handed, and the directory its relative paths (and the
/// default state root) resolve against; so `--config ./cli-config.yaml`,
/// the absolute path and a link to the file are one config, and a plan
/// through any of them sees the same fleet, with no drift on the
/// variable. A path that is not a regular file (it does not exist, or it
/// is a FIFO or a link to a device) is kept as given: reading it is
/// refused next, naming the path the operator wrote.
pub fn identity(absolute: &Path) -> PathBuf {
    let regular = std::fs::metadata(absolute).is_ok_and(|m| m.is_file());
    regular
        .then(|| std::fs::canonicalize(absolute).ok())
        .flatten()
        .unwrap_or_else(|| absolute.to_owned())
}

/// Reads and checks the config at `path` (made absolute against the working
/// directory, then canonical: [`identity`]). `~/` in its paths expands to
/// `$HOME`.
pub fn load(path: &Path) -> Result<Config, ConfigError> {
    let base = if path.is_absolute() {
        PathBuf::new()
    } else {
        std::env::current_dir().map_err(|error| ConfigError::Read {
            path: path.to_owned(),
            kind: error.kind(),
        })?
    };
    let path = identity(&crate::fsutil::absolute(&base, path));
    let text =
        crate::bounded_read::read_string(&path, &crate::bounded_read::CONFIG).map_err(|error| {
            if let Some(refusal) = crate::fsutil::owner::not_yours(&error) {
                return ConfigError::NotYours {
                    path: path.clone(),
                    refusal: refusal.clone(),
                };
            }
            match crate::bounded_read::refusal(&error) {
                Some(reason) => ConfigError::Refused {
                    path: path.clone(),
                    reason,
                },
                None => ConfigError::Read {
                    path: path.clone(),
                    kind: error.kind(),
                },
            }
        })?;
    let home = std::env::var_os("HOME")
        .filter(|home| !home.is_empty())
        .map(PathBuf::from);
    let config = from_text(&path, &text, home.as_deref())?;
    check_state_root(&config)?;
    Ok(config)
}

/// The state root must be the caller's alone: another user who can write
/// it can plant records there, each a conversation a start would resume.
/// Checked here, where every command learns where it is; an absent root is
/// created by the-loop, 0700. Its records are checked as they are read.
fn check_state_root(config: &Config) -> Result<(), ConfigError> {
    use crate::fsutil::owner::{check_path, not_yours, Rule};
    match check_path(&config.state_root, Rule::Unwritable) {
        Err(e) => match not_yours(&e) {
            Some(refusal) => Err(ConfigError::StateRootNotYours {
                path: config.state_root.clone(),
                config: config.path.clone(),
                refusal: refusal.clone(),
            }),
            // Unreadable for another reason: the verb that uses it says so.
            None => Ok(()),
        },
        Ok(()) => Ok(()),
    }
}

/// Where the value of the dotted key `keys` (`["env", "file"]`) starts in
/// the config at `path`, read again: for an error found after loading (the
/// env file it names is missing) that should point at the line to fix.
/// `None` when the file cannot be read again or no longer holds the key.
pub fn position_of(path: &Path, keys: &[&str]) -> Option<(usize, usize)> {
    let text = crate::bounded_read::read_string(path, &crate::bounded_read::CONFIG).ok()?;
    let steps: Vec<locate::Step> = keys.iter().map(|k| locate::Step::key(k)).collect();
    locate::locate(&text, &steps)
}

/// Parses `text` as the config at the absolute `path`. Every mistake that
/// can be found is reported, the parser's and the checks' alike (`parse`).
fn from_text(path: &Path, text: &str, home: Option<&Path>) -> Result<Config, ConfigError> {
    let mut mistakes = Vec::new();
    let resolved = parse::parse(text, &mut mistakes).map(|raw| resolve::resolve(raw, path, home));
    let config = match resolved {
        Some(Ok(config)) => Some(config),
        Some(Err(findings)) => {
            mistakes.extend(findings.into_iter().map(|f| f.locate(text)));
            None
        }
        None => None,
    };
    match config {
        Some(config) if mistakes.is_empty() => Ok(config),
        _ => Err(error::from_located(path, mistakes)),
    }
}

/// The JSON Schema (draft 2020-12) of the keys this tool reads, generated
/// from the parser's own types. Foreign sections appear as `true`.
pub fn json_schema() -> serde_json::Value {
    schemars::generate::SchemaSettings::draft2020_12()
        .for_deserialize()
        .into_generator()
        .into_root_schema_for::<de::Shared<raw::RawConfig>>()
        .to_value()
}
