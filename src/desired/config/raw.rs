//! The file format: what `cli-config.yaml` may say, exactly as it is parsed.
//!
//! These types mirror the YAML key for key (camelCase, `Option` for every key
//! that may be left out) so that `schemas/cli-config.schema.json`, generated
//! from them, describes precisely what the parser accepts. Their doc comments
//! become the schema's descriptions. Defaults, path resolution and the checks
//! that span keys live in `resolve`.

use super::de::{Ignored, Names, Shared, SharedSection, Toggle};
use super::model::{BypassPermissions, TrustScope};
use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::BTreeMap;

/// Top-level sections owned by other parts of the-loop (its daemons,
/// channels, process graph, control-plane service...). This tool never reads
/// them, but a deployment's one config file carries them, so they are skipped
/// unread. Any other unknown top-level key is an error. Keep this list in
/// step with the sections the rest of the-loop defines.
pub(super) const FOREIGN_SECTIONS: &[&str] = &[
    "channels",
    "checks",
    "critic",
    "daemon",
    "eventLog",
    "github",
    "graph",
    "integrations",
    "labels",
    "mcp",
    "phases",
    "poll",
    "poller",
    "polling",
    "receiver",
    "selfDiagnosis",
    "service",
    "slack",
    "standingSessions",
    "version",
    "webhooks",
    "workflows",
];

/// `routing.*` keys the daemons read and this tool does not (dispatch policy,
/// prompt templates, reactions...). `routing.runner` is not here: it is
/// deprecated, so it has a field of its own that triggers a warning.
pub(super) const FOREIGN_ROUTING_KEYS: &[&str] = &[
    "autoExecuteLabel",
    "control",
    "dedupCacheSize",
    "dispatchTimeoutSeconds",
    "enabled",
    "graph",
    "interaction",
    "maxConcurrentDispatches",
    "promptTemplate",
    "reactions",
    "registryDir",
    "sessionPerPr",
    "spawnOnUnmatched",
    "spawnPromptTemplate",
    "spawnWorkdir",
];

/// `routing.tmux.*` keys the daemons read and this tool does not.
pub(super) const FOREIGN_TMUX_KEYS: &[&str] = &["sessionPerPr"];

/// `routing.workspace.*` keys the daemons read and this tool does not.
pub(super) const FOREIGN_WORKSPACE_KEYS: &[&str] =
    &["cloneProtocol", "defaultHost", "gitBinary", "strategy"];

/// the-loop's CLI config (`cli-config.yaml`): the keys the session reconciler
/// reads. Sections owned by other parts of the-loop are accepted and not
/// described here. Relative paths resolve against the directory holding the
/// file; `~/` means the home directory.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(rename = "CliConfig")]
pub(super) struct RawConfig {
    pub state: Option<RawState>,
    /// Names this deployment. Exported to every session as `THE_LOOP_INSTANCE`.
    pub instance: Option<String>,
    pub env: Option<RawEnv>,
    pub routing: Option<Shared<RawRouting>>,
}

impl SharedSection for RawConfig {
    const FOREIGN: &'static [&'static str] = FOREIGN_SECTIONS;
}

/// Where the-loop keeps what it generates (session records under `local/`).
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(rename = "State")]
pub(super) struct RawState {
    /// State directory. Default: the directory holding this file.
    pub root: Option<String>,
}

/// The environment sessions must hold. Desired state depends on this section
/// and the env file only, never on the shell that runs the-loop.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(rename = "Env")]
pub(super) struct RawEnv {
    /// The env file (`KEY=VALUE` lines). Every name it declares is a credential
    /// withheld from sessions unless listed in `deliver`. Without it, `plan`
    /// and `apply` refuse.
    pub file: Option<String>,
    /// Extra names to treat as credentials (withheld from sessions) although
    /// the env file does not declare them.
    pub credentials: Option<Names>,
    /// Names from the env file whose current value sessions must hold.
    pub deliver: Option<Names>,
    /// Non-secret names that pass through to sessions unchanged. A name may
    /// not also be in `credentials`.
    pub session_passthrough: Option<Names>,
    /// Let the daemons apply a refreshed environment without asking.
    #[schemars(extend("default" = false))]
    pub auto_apply: Option<bool>,
    /// How values are named in plans, reports and events: `sha256` (the
    /// first 8 hex digits of SHA-256, checkable by hand; a guessable value
    /// is then withheld) or `keyed` (HMAC-SHA-256 under a key the-loop
    /// keeps in `<state root>/fingerprint.key`; every value shown).
    #[schemars(extend("default" = "sha256"))]
    pub fingerprint: Option<crate::secret::FingerprintMode>,
    pub watch: Option<RawWatch>,
}

/// Watching the env file for changes.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(rename = "EnvWatch")]
pub(super) struct RawWatch {
    #[schemars(extend("default" = false))]
    pub enabled: Option<bool>,
}

/// How sessions are spawned, hosted in tmux, retained and cleaned up. Keys
/// that only the daemons read are accepted here too.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(rename = "Routing")]
pub(super) struct RawRouting {
    /// Harness for new sessions: `claude` or `codex`. `cursor-agent` is
    /// accepted here but cannot be hosted in tmux, so a spawn refuses it
    /// (`cursor` is its older name).
    #[schemars(extend("default" = "claude"))]
    pub default_harness: Option<HarnessName>,
    pub harness_args: Option<RawHarnessArgs>,
    pub harness_binary: Option<RawHarnessBinary>,
    pub tmux: Option<Shared<RawTmux>>,
    pub workspace: Option<Shared<RawWorkspace>>,
    /// GitHub logins whose actions the-loop acts on. Empty: nobody (fail closed).
    pub authorized_users: Option<Vec<String>>,
    /// Comment the tmux attach command on the work item when a session is
    /// first spawned.
    #[schemars(extend("default" = true))]
    pub announce: Option<Toggle<RawAnnounce>>,
    /// Pre-seed the harness's trust and onboarding state before each spawn so
    /// the session does not open on a dialog.
    #[schemars(extend("default" = true))]
    pub harness_trust: Option<Toggle<RawHarnessTrust>>,
    /// Enable the-loop's own plugin in the harness's user settings before
    /// each spawn.
    #[schemars(extend("default" = true))]
    pub harness_plugins: Option<Toggle<RawHarnessPlugins>>,
    pub web_terminal: Option<RawWebTerminal>,
    /// Models a work item may choose, each with the effort levels it allows
    /// (`[]`: the model takes no effort level). Names and levels become
    /// harness arguments, so they may not start with `-`.
    pub models: Option<BTreeMap<String, Vec<String>>>,
    /// Where the sessions the-loop plans and rolls are hosted: `tmux`
    /// (panes), and `claude-background` (Claude Code's own background
    /// sessions under its daemon, `docs/hosts.md`).
    #[schemars(extend("default" = ["tmux"]))]
    pub hosts: Option<Vec<super::model::Host>>,
    /// Deprecated and ignored: tmux is the only runner.
    #[schemars(extend("deprecated" = true))]
    pub runner: Option<Ignored>,
}

impl SharedSection for RawRouting {
    const FOREIGN: &'static [&'static str] = FOREIGN_ROUTING_KEYS;
}

/// A harness name as the config spells it (`cursor` is the older name of
/// `cursor-agent`).
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
#[schemars(extend("enum" = ["claude", "codex", "cursor-agent", "cursor"]))]
pub(super) enum HarnessName {
    Claude,
    Codex,
    #[serde(alias = "cursor")]
    CursorAgent,
}

impl HarnessName {
    /// The name records and the harness registry use (`cursor` reads as
    /// `cursor-agent`).
    pub fn name(self) -> &'static str {
        match self {
            HarnessName::Claude => "claude",
            HarnessName::Codex => "codex",
            HarnessName::CursorAgent => "cursor-agent",
        }
    }
}

/// Extra arguments per harness, placed before the-loop's own.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "HarnessArgs")]
pub(super) struct RawHarnessArgs {
    pub claude: Option<Vec<String>>,
    pub codex: Option<Vec<String>>,
    // cursor-agent is refused at spawn, so its settings are type-checked only.
    #[serde(rename = "cursor-agent")]
    #[allow(
        dead_code,
        reason = "type-checked only: cursor-agent is refused at spawn"
    )]
    pub cursor_agent: Option<Vec<String>>,
    /// Older name of `cursor-agent`.
    #[allow(dead_code, reason = "type-checked only, as cursor-agent")]
    pub cursor: Option<Vec<String>>,
}

impl RawHarnessArgs {
    /// The arguments of each harness the-loop hosts, by the name the
    /// harness registry (`crate::harness::HARNESSES`) knows it by.
    /// cursor-agent's are left out: it is refused at spawn.
    pub fn by_harness(self) -> [(&'static str, Option<Vec<String>>); 2] {
        [("claude", self.claude), ("codex", self.codex)]
    }
}

/// Harness executables: a path (relative to this file's directory) or a bare
/// name looked up on PATH.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "HarnessBinary")]
pub(super) struct RawHarnessBinary {
    #[schemars(extend("default" = "claude"))]
    pub claude: Option<String>,
    /// The native binary inside the npm package
    /// (`@openai/codex-linux-x64/vendor/…/bin/codex`) rather than npm's
    /// `codex.js` wrapper, whose conversation files open in a child process.
    #[schemars(extend("default" = "codex"))]
    pub codex: Option<String>,
    #[serde(rename = "cursor-agent")]
    #[allow(dead_code, reason = "type-checked only, as in RawHarnessArgs")]
    pub cursor_agent: Option<String>,
}

impl RawHarnessBinary {
    /// Each hosted harness's binary, by name, as in
    /// [`RawHarnessArgs::by_harness`].
    pub fn by_harness(self) -> [(&'static str, Option<String>); 2] {
        [("claude", self.claude), ("codex", self.codex)]
    }
}

/// The tmux sessions that host harnesses.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(rename = "Tmux")]
pub(super) struct RawTmux {
    /// A respawn resumes the recorded conversation (`claude --resume`).
    #[schemars(extend("default" = true))]
    pub resume_on_respawn: Option<bool>,
    /// Seconds to wait before checking that a resumed harness is still
    /// running. 0 checks at once; at most 300.
    #[schemars(range(min = 0, max = 300), extend("default" = 2))]
    pub resume_probe_seconds: Option<f64>,
    /// Keep a pane (and its scrollback) after its harness exits.
    #[schemars(extend("default" = true))]
    pub remain_on_exit: Option<bool>,
    /// Seconds between SIGTERM and SIGKILL when a harness is ended. 0
    /// escalates at once; at most 600.
    #[schemars(range(min = 0, max = 600), extend("default" = 5))]
    pub harness_kill_grace_seconds: Option<f64>,
    /// Keep a session's tmux session when its work item ends.
    #[schemars(extend("default" = true))]
    pub keep_session_on_close: Option<bool>,
    /// End the harness inside a kept session, leaving a record rather than a
    /// live TUI.
    #[schemars(extend("default" = true))]
    pub kill_harness_on_close: Option<bool>,
}

impl SharedSection for RawTmux {
    const FOREIGN: &'static [&'static str] = FOREIGN_TMUX_KEYS;
}

/// Per-work-item checkouts.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(rename = "Workspace")]
pub(super) struct RawWorkspace {
    /// Directory the checkouts live under.
    pub root: Option<String>,
    /// Read by the daemons; type-checked here.
    #[allow(dead_code, reason = "read by the daemons; type-checked here")]
    pub keep_checkout_on_close: Option<bool>,
}

impl SharedSection for RawWorkspace {
    const FOREIGN: &'static [&'static str] = FOREIGN_WORKSPACE_KEYS;
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(rename = "Announce")]
pub(super) struct RawAnnounce {
    #[schemars(extend("default" = true))]
    pub enabled: Option<bool>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(rename = "HarnessTrust")]
pub(super) struct RawHarnessTrust {
    #[schemars(extend("default" = true))]
    pub enabled: Option<bool>,
    /// `workspace-root` also trusts the workspace root; `directory` trusts the
    /// spawn directory alone.
    #[schemars(extend("default" = "workspace-root"))]
    pub scope: Option<TrustScope>,
    /// Record the bypass-permissions disclaimer: `auto` only when harnessArgs
    /// already ask for bypass mode.
    #[schemars(extend("default" = "auto"))]
    pub accept_bypass_permissions: Option<BypassPermissions>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(rename = "HarnessPlugins")]
pub(super) struct RawHarnessPlugins {
    #[schemars(extend("default" = true))]
    pub enabled: Option<bool>,
    /// `owner/repo` the plugin's marketplace is registered from; empty
    /// registers none.
    #[schemars(extend("default" = "MadaraUchiha-314/the-loop"))]
    pub marketplace_repo: Option<String>,
}

/// A ttyd browser terminal onto the tmux sessions. It has no authentication
/// of its own: keep it on localhost unless the network protects it.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(rename = "WebTerminal")]
pub(super) struct RawWebTerminal {
    #[schemars(extend("default" = false))]
    pub enabled: Option<bool>,
    #[schemars(extend("default" = "127.0.0.1"))]
    pub host: Option<String>,
    #[schemars(range(min = 1), extend("default" = 7681))]
    pub port: Option<u16>,
}
