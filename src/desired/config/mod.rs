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
mod locate;
mod raw;
mod resolve;

pub use error::{ConfigError, ProblemKind};

use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Names the config file when `--config` is not given.
pub const CONFIG_ENV_VAR: &str = "THE_LOOP_CLI_CONFIG";
/// Where the config sits below the working directory or the home directory.
pub const CONFIG_RELATIVE_PATH: &str = ".the-loop/cli-config.yaml";
/// Where the-loop's plugin marketplace is registered from by default.
pub const DEFAULT_MARKETPLACE_REPO: &str = "MadaraUchiha-314/the-loop";

#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Absolute path of the config file that was loaded.
    pub path: PathBuf,
    /// `state.root`, absolute; defaults to the config file's directory.
    pub state_root: PathBuf,
    /// `instance`: exported to sessions as `THE_LOOP_INSTANCE`.
    pub instance: Option<String>,
    pub env: EnvSettings,
    pub routing: Routing,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct EnvSettings {
    /// `env.file`, absolute (relative paths resolve against the config's directory).
    pub file: Option<PathBuf>,
    /// `env.credentials`: extra names withheld from sessions.
    pub credentials: Vec<String>,
    /// `env.deliver`: names whose env-file value sessions must hold.
    pub deliver: Vec<String>,
    /// `env.sessionPassthrough`: non-secret names left as they are; never
    /// overlaps `credentials` (checked at load).
    pub session_passthrough: Vec<String>,
    /// `env.autoApply` (default false).
    pub auto_apply: bool,
    /// `env.watch.enabled` (default false).
    pub watch_enabled: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Routing {
    /// `routing.defaultHarness`: `"claude"` (default) or `"cursor-agent"`
    /// (the older spelling `cursor` reads as `"cursor-agent"`). cursor-agent
    /// is accepted here and refused at spawn time.
    pub default_harness: String,
    /// `routing.harnessArgs.<name>` and `routing.harnessBinary.<name>`, by
    /// harness name (`claude`), as the YAML keys them. A harness the config
    /// says nothing about is absent: [`Routing::harness`] gives it the
    /// defaults.
    pub harnesses: BTreeMap<String, HarnessSettings>,
    pub tmux: TmuxSettings,
    /// `routing.workspace.root`, absolute.
    pub workspace_root: Option<PathBuf>,
    /// `routing.authorizedUsers`
    pub authorized_users: Vec<String>,
    /// `routing.announce` (default true): comment the attach command on the
    /// work item when a session is first spawned.
    pub announce: bool,
    /// `routing.harnessTrust`
    pub harness_trust: HarnessTrust,
    /// `routing.harnessPlugins`
    pub harness_plugins: HarnessPlugins,
    /// `routing.webTerminal`
    pub web_terminal: WebTerminal,
    /// `routing.models`: model name to the effort levels it allows. Empty
    /// when nothing is declared.
    pub models: BTreeMap<String, Vec<String>>,
}

/// What the config says about one harness.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HarnessSettings {
    /// `routing.harnessArgs.<name>`: placed before the-loop's own arguments.
    pub args: Vec<String>,
    /// `routing.harnessBinary.<name>`: overrides the harness's own binary
    /// on PATH. Absolute when written as a path; a bare name is kept for a
    /// PATH lookup.
    pub binary: Option<PathBuf>,
}

/// The settings of a harness the config does not mention.
static NO_SETTINGS: HarnessSettings = HarnessSettings {
    args: Vec::new(),
    binary: None,
};

impl Routing {
    /// The settings for the harness named `name`, or the defaults when the
    /// config gives none.
    pub fn harness(&self, name: &str) -> &HarnessSettings {
        self.harnesses.get(name).unwrap_or(&NO_SETTINGS)
    }
}

impl Default for Routing {
    fn default() -> Self {
        Routing {
            default_harness: "claude".into(),
            harnesses: BTreeMap::new(),
            tmux: TmuxSettings::default(),
            workspace_root: None,
            authorized_users: Vec::new(),
            announce: true,
            harness_trust: HarnessTrust::default(),
            harness_plugins: HarnessPlugins::default(),
            web_terminal: WebTerminal::default(),
            models: BTreeMap::new(),
        }
    }
}

/// The longest `routing.tmux.resumeProbeSeconds`: a probe later than this
/// keeps a roll's slot (and the operator) waiting for nothing.
pub const RESUME_PROBE_MAX: Duration = Duration::from_secs(300);
/// The longest `routing.tmux.harnessKillGraceSeconds`: a harness that has not
/// ended after ten minutes of SIGTERM will not end without SIGKILL.
pub const KILL_GRACE_MAX: Duration = Duration::from_secs(600);

/// `routing.tmux.*`
#[derive(Debug, Clone, PartialEq)]
pub struct TmuxSettings {
    /// Default true.
    pub resume_on_respawn: bool,
    /// `resumeProbeSeconds`: how long after a respawn the harness is checked
    /// to be still running. Default 2 s; from 0 to [`RESUME_PROBE_MAX`].
    pub resume_probe: Duration,
    /// Default true.
    pub remain_on_exit: bool,
    /// `harnessKillGraceSeconds`: between SIGTERM and SIGKILL. Default 5 s;
    /// from 0 to [`KILL_GRACE_MAX`].
    pub harness_kill_grace: Duration,
    /// Default true.
    pub keep_session_on_close: bool,
    /// Default true.
    pub kill_harness_on_close: bool,
}

impl Default for TmuxSettings {
    fn default() -> Self {
        TmuxSettings {
            resume_on_respawn: true,
            resume_probe: Duration::from_secs(2),
            remain_on_exit: true,
            harness_kill_grace: Duration::from_secs(5),
            keep_session_on_close: true,
            kill_harness_on_close: true,
        }
    }
}

/// `routing.harnessTrust`: `true`/`false` or `{enabled, scope, acceptBypassPermissions}`.
#[derive(Debug, Clone, PartialEq)]
pub struct HarnessTrust {
    /// Default true.
    pub enabled: bool,
    pub scope: TrustScope,
    pub accept_bypass_permissions: BypassPermissions,
}

impl Default for HarnessTrust {
    fn default() -> Self {
        HarnessTrust {
            enabled: true,
            scope: TrustScope::WorkspaceRoot,
            accept_bypass_permissions: BypassPermissions::Auto,
        }
    }
}

/// How far pre-seeded trust reaches. The spawn directory is trusted either way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum TrustScope {
    /// Also trust `routing.workspace.root`, covering every checkout below it.
    WorkspaceRoot,
    /// Trust the spawn directory alone.
    Directory,
}

/// When to record the harness's bypass-permissions disclaimer acceptance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum BypassPermissions {
    /// Only when the harness arguments already ask for bypass mode.
    Auto,
    /// Whatever the harness arguments say.
    Always,
    /// Never: a session in bypass mode is then prompted or downgraded.
    Never,
}

/// `routing.harnessPlugins`: `true`/`false` or `{enabled, marketplaceRepo}`.
#[derive(Debug, Clone, PartialEq)]
pub struct HarnessPlugins {
    /// Default true.
    pub enabled: bool,
    /// `owner/repo`, default [`DEFAULT_MARKETPLACE_REPO`]; empty registers no
    /// marketplace.
    pub marketplace_repo: String,
}

impl Default for HarnessPlugins {
    fn default() -> Self {
        HarnessPlugins {
            enabled: true,
            marketplace_repo: DEFAULT_MARKETPLACE_REPO.into(),
        }
    }
}

/// `routing.webTerminal`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebTerminal {
    /// Default false.
    pub enabled: bool,
    /// Default `127.0.0.1`.
    pub host: String,
    /// Default 7681; never 0.
    pub port: u16,
}

impl Default for WebTerminal {
    fn default() -> Self {
        WebTerminal {
            enabled: false,
            host: "127.0.0.1".into(),
            port: 7681,
        }
    }
}

/// `--config`, then `$THE_LOOP_CLI_CONFIG`, then `./.the-loop/cli-config.yaml`,
/// then `~/.the-loop/cli-config.yaml`. Returns an absolute path.
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
        let path = absolute(cwd, named);
        return match std::fs::metadata(&path) {
            Ok(_) => Ok(path),
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
            return Ok(absolute(cwd, candidate));
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

/// Reads and checks the config at `path` (made absolute against the working
/// directory). `~/` in its paths expands to `$HOME`.
pub fn load(path: &Path) -> Result<Config, ConfigError> {
    let base = if path.is_absolute() {
        PathBuf::new()
    } else {
        std::env::current_dir().map_err(|error| ConfigError::Read {
            path: path.to_owned(),
            kind: error.kind(),
        })?
    };
    let path = absolute(&base, path);
    let text = std::fs::read_to_string(&path).map_err(|error| ConfigError::Read {
        path: path.clone(),
        kind: error.kind(),
    })?;
    let home = std::env::var_os("HOME")
        .filter(|home| !home.is_empty())
        .map(PathBuf::from);
    from_text(&path, &text, home.as_deref())
}

/// Parses `text` as the config at the absolute `path`.
fn from_text(path: &Path, text: &str, home: Option<&Path>) -> Result<Config, ConfigError> {
    let document = serde_yaml::Deserializer::from_str(text);
    let raw: de::Shared<raw::RawConfig> = serde_path_to_error::deserialize(document)
        .map_err(|error| error::from_parse(&error).into_error(path.to_owned()))?;
    resolve::resolve(raw.0, path, home)
        .map_err(|finding| finding.locate(text).into_error(path.to_owned()))
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

/// `path` joined to `base` when relative, with `.` components and repeated
/// separators removed (`..` is kept: it may cross a symlink).
fn absolute(base: &Path, path: &Path) -> PathBuf {
    base.join(path).components().collect()
}
