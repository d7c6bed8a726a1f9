//! Claude Code's own background sessions (`claude --bg`, `claude agents`,
//! `claude respawn`) as a host beside tmux (`routing.hosts` names
//! `claude-background`; `docs/hosts.md`). Every background session holds
//! the environment of the one daemon of its Claude config dir, never its
//! caller's: the daemon is the host's layer, as a pane's tmux server is.
//!
//! - [`observe`]: one look (the listing, each worker's and the daemon's
//!   `/proc` environment, each proved by its `procStart`);
//! - [`plan`]: that look against the policy and the records of what
//!   the-loop manages there (`registry::background`);
//! - [`client`]: the daemon the-loop starts on the policy's environment,
//!   and a respawn verified by its new worker;
//! - `roll`: the daemon first, then each session at its safe point, the
//!   canary first, journalled;
//! - `import` and `start`: a session brought under management by its
//!   short id, or started by the-loop under a daemon of the policy's.

pub mod client;
mod import;
pub mod look;
pub mod observe;
pub mod plan;
mod respawn;
mod roll;
mod start;

use super::commands::{ImportedOnHost, StartedOnHost};
use super::interface::{HostLook, HostRoll, HostWords, ManagedOnHost, SessionHost};
use crate::desired::config::Config;
use crate::desired::policy::Policy;
use crate::events::host::HostRollReport;
use crate::host_kind::Host;
use crate::plan::host::HostPlan;
use std::path::Path;

/// The host (`claude-background`).
pub struct ClaudeBackground;

static WORDS: HostWords = HostWords {
    title: "Claude Code background host",
    location: "config dir",
    session: "background",
    layer: "daemon",
    short: "bg",
    harness: Some("claude"),
};

impl SessionHost for ClaudeBackground {
    fn kind(&self) -> Host {
        Host::ClaudeBackground
    }

    fn words(&self) -> &'static HostWords {
        &WORDS
    }

    fn managed(&self, config: &Config) -> Vec<ManagedOnHost> {
        let (records, _bad) = crate::registry::background::load_all(&config.state_root);
        records
            .into_iter()
            .map(|r| ManagedOnHost {
                reference: r.reference,
                id: r.id,
            })
            .collect()
    }

    /// The daemon of the Claude config dir the-loop's environment names
    /// (`CLAUDE_CONFIG_DIR`, else `~/.claude`); `None` when none can be.
    fn look(&self, config: &Config, policy: &Policy) -> Option<HostLook> {
        let config_dir = observe::config_dir()?;
        let (plan, managed) = look::look_in(config, policy, &config_dir);
        Some(HostLook {
            plan,
            managed: managed.into_iter().map(|r| r.reference).collect(),
        })
    }

    fn roll(
        &self,
        config: &Config,
        policy: &Policy,
        plan: &HostPlan,
        how: HostRoll,
    ) -> HostRollReport {
        let claude = observe::claude_binary(config);
        roll::roll(&client::HostClient::new(config, &claude, policy), plan, how)
    }

    fn import(
        &self,
        config: &Config,
        id: &str,
        reference: &str,
        dry_run: bool,
    ) -> miette::Result<ImportedOnHost> {
        import::import(config, id, reference, dry_run)
    }

    fn start(
        &self,
        config: &Config,
        reference: &str,
        cwd: &Path,
        prompt: Option<&str>,
    ) -> miette::Result<StartedOnHost> {
        start::start(config, reference, cwd, prompt)
    }
}
