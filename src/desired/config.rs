//! STUB: replaced by the config work. Signatures are the contract.
use std::path::{Path, PathBuf};

#[derive(Debug, Clone)]
pub struct Config {
    /// Absolute path of the config file that was loaded.
    pub path: PathBuf,
    /// `state.root`, absolute; defaults to the config file's directory.
    pub state_root: PathBuf,
    pub instance: Option<String>,
    pub env: EnvSettings,
    pub routing: Routing,
}

#[derive(Debug, Clone, Default)]
pub struct EnvSettings {
    /// `env.file`, absolute (relative paths resolve against the config's directory).
    pub file: Option<PathBuf>,
    pub credentials: Vec<String>,
    pub deliver: Vec<String>,
    pub session_passthrough: Vec<String>,
    pub auto_apply: bool,
    pub watch_enabled: bool,
}

#[derive(Debug, Clone)]
pub struct Routing {
    pub default_harness: String,
    /// `routing.harnessArgs.claude`
    pub harness_args_claude: Vec<String>,
    /// `routing.harnessBinary.claude`: overrides `claude` on PATH.
    pub harness_binary_claude: Option<PathBuf>,
    pub tmux: TmuxSettings,
    /// `routing.workspace.root`, absolute.
    pub workspace_root: Option<PathBuf>,
    pub authorized_users: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct TmuxSettings {
    pub resume_on_respawn: bool,
    pub resume_probe_seconds: f64,
    pub remain_on_exit: bool,
    pub harness_kill_grace_seconds: f64,
    pub keep_session_on_close: bool,
    pub kill_harness_on_close: bool,
}

#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum ConfigError {
    #[error("no cli-config.yaml found (looked at: {looked})")]
    NotFound { looked: String },
    #[error("cannot read config {path}: {kind}")]
    Read { path: PathBuf, kind: std::io::ErrorKind },
    #[error("{path}:{line}: {key}: {problem}")]
    Invalid { path: PathBuf, line: usize, key: String, problem: String },
}

/// `--config`, then `$THE_LOOP_CLI_CONFIG`, then `./.the-loop/cli-config.yaml`,
/// then `~/.the-loop/cli-config.yaml`.
pub fn discover(_explicit: Option<&Path>) -> Result<PathBuf, ConfigError> {
    todo!("config discovery")
}

pub fn load(_path: &Path) -> Result<Config, ConfigError> {
    todo!("config loading")
}
