//! The one interface every host beside tmux implements (`hosts::of` is
//! the registry of who does): one look planned against the policy, a roll
//! of what it found drifted, and the two commands that bring a session
//! under management there. Kept apart from the registry, which names each
//! host's module, so a host's module and the registry never import each
//! other in a circle.

use super::commands::{ImportedOnHost, StartedOnHost};
use crate::desired::config::Config;
use crate::desired::policy::Policy;
use crate::events::host::HostRollReport;
use crate::host_kind::Host;
use crate::plan::host::HostPlan;
use std::time::Duration;

/// A host beside tmux: one look planned against the policy, and a roll of
/// what that plan found drifted, each session only at its safe point.
pub trait SessionHost: Sync {
    /// The host, as `routing.hosts` names it.
    fn kind(&self) -> Host;

    /// The words a person reads of it.
    fn words(&self) -> &'static HostWords;

    /// The sessions the-loop manages there, from its records alone (no
    /// look at the host): each one's ref and the host's id for it, which
    /// `--target` may name.
    fn managed(&self, config: &Config) -> Vec<ManagedOnHost>;

    /// One look at the host, planned: what each session and the host's
    /// layer hold against the policy, which sessions the-loop manages.
    /// `None` when the host cannot be located on this machine.
    fn look(&self, config: &Config, policy: &Policy) -> Option<HostLook>;

    /// Rolls what `plan` found drifted: the layer first when it drifted,
    /// then each managed drifted session at its safe point (the canary
    /// alone first, then at most `how.parallelism` at once), each verified
    /// by its new process; every step journalled
    /// (`registry::host_roll`) before it is taken.
    fn roll(
        &self,
        config: &Config,
        policy: &Policy,
        plan: &HostPlan,
        how: HostRoll,
    ) -> HostRollReport;

    /// Brings the host's session `id` under management as `reference`
    /// (`import ID REF --host …`): the host must list it, and neither may
    /// be managed under another. Nothing is signalled or restarted.
    fn import(
        &self,
        config: &Config,
        id: &str,
        reference: &str,
        dry_run: bool,
    ) -> miette::Result<ImportedOnHost>;

    /// Starts a new session as `reference` in `cwd` (`sessions start REF
    /// --host …`), under a layer that holds the policy's environment, and
    /// manages it from its first moment.
    fn start(
        &self,
        config: &Config,
        reference: &str,
        cwd: &std::path::Path,
        prompt: Option<&str>,
    ) -> miette::Result<StartedOnHost>;
}

/// A session the-loop manages on a host beside tmux, as its record says.
pub struct ManagedOnHost {
    pub reference: String,
    pub id: String,
}

/// What a host's look found.
pub struct HostLook {
    pub plan: HostPlan,
    /// The refs of every session the-loop manages there, listed or not: a
    /// host that could not be read leaves the plan blind to these.
    pub managed: Vec<String>,
}

/// How a person is told of a host.
pub struct HostWords {
    /// Its heading in a plan (`Claude Code background host`).
    pub title: &'static str,
    /// What its `location` is (`config dir`).
    pub location: &'static str,
    /// What one of its sessions is called beside a pane (`background`, as
    /// in `background c83395a6`).
    pub session: &'static str,
    /// What its layer is called (`daemon`).
    pub layer: &'static str,
    /// A row's place in `top` where a pane's tmux target would be (`bg`,
    /// as in `bg c83395a6`).
    pub short: &'static str,
    /// The harness its sessions run, when the host has one kind.
    pub harness: Option<&'static str>,
}

/// How a roll of a host goes: as long as the drain allows, as many at once
/// as the roll of panes.
#[derive(Debug, Clone, Copy)]
pub struct HostRoll {
    /// How long a busy or waiting session is awaited; zero looks once.
    pub drain: Duration,
    /// How many respawns may be in flight at once after the canary.
    pub parallelism: usize,
}
