//! What the config says, once read and checked: the types the rest of
//! the-loop reads. `raw` is the file's shape, `resolve` turns it into these.

use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

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
    /// `env.fingerprint` (default `sha256`).
    pub fingerprint: crate::secret::FingerprintMode,
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
    /// `routing.hosts` (default `[tmux]`): where managed sessions live.
    pub hosts: std::collections::BTreeSet<Host>,
}

pub use crate::host_kind::Host;

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
            hosts: [Host::Tmux].into(),
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
