//! The hosts beside tmux's panes (`routing.hosts`, `docs/hosts.md`): places
//! sessions live that the-loop observes, plans and rolls through one
//! interface, [`SessionHost`]. tmux's panes are the plan's own `sessions`
//! (the contract `plan --json` was first written to) and their roll is the
//! fleet's (`apply::fleet`); every other host is a module here, behind
//! this trait, and one line in [`of`]. What the plan, `apply`, `watch`,
//! `status`, `top`, the metrics, `history` and the views know of a host is
//! its [`HostPlan`] and [`HostRollReport`], never the host's own types.
//!
//! Adding a host: its module (its look, its plan, its roll), a variant of
//! [`Host`] (the config schema follows it), and its line in [`of`].

pub mod claude_background;
pub mod commands;
pub mod interface;

use crate::desired::config::Config;
use crate::desired::policy::Policy;
pub use crate::events::host::{
    HostOutcome, HostRollReport, HostSessionReport, LayerOutcome, LayerReport,
};
pub use crate::host_kind::Host;
use crate::plan::compute::Targets;
use crate::plan::host::HostPlan;
use crate::plan::model::{ObservationFailure, Plan};
pub use interface::{HostLook, HostRoll, HostWords, ManagedOnHost, SessionHost};

/// Whether `target` names a session the-loop manages on a host the config
/// turns on (by its ref or the host's id for it).
pub fn names_a_managed_session(config: &Config, target: &str) -> bool {
    beside_tmux(config).any(|host| {
        host.managed(config)
            .iter()
            .any(|m| m.reference == target || m.id == target)
    })
}

/// The registry: the module of each host beside tmux. tmux's panes are the
/// plan's own.
pub fn of(host: Host) -> Option<&'static dyn SessionHost> {
    match host {
        Host::Tmux => None,
        Host::ClaudeBackground => Some(&claude_background::ClaudeBackground),
    }
}

/// The words of `host`; tmux's panes are the plan's own sessions.
pub fn words(host: Host) -> &'static HostWords {
    static PANES: HostWords = HostWords {
        title: "tmux panes",
        location: "server",
        session: "pane",
        layer: "server",
        short: "pane",
        harness: None,
    };
    of(host).map_or(&PANES, |h| h.words())
}

/// The hosts beside tmux that the config turns on, in `routing.hosts`'s
/// order.
pub fn beside_tmux(config: &Config) -> impl Iterator<Item = &'static dyn SessionHost> + '_ {
    config.routing.hosts.iter().filter_map(|h| of(*h))
}

/// Looks at each host the config turns on and plans it into `plan`, as far
/// as `targets` selects its sessions (by ref or id; every session when it
/// names none). A host the plan could not read while it manages sessions
/// there makes the plan blind to them: an observation failure, as a tmux
/// that did not answer.
pub fn annotate(plan: &mut Plan, config: &Config, policy: &Policy, targets: &Targets) {
    for host in beside_tmux(config) {
        let Some(HostLook {
            plan: mut host_plan,
            managed,
        }) = host.look(config, policy)
        else {
            continue;
        };
        if !targets.is_all() {
            host_plan = host_plan.restricted(|s| targets.names(s.label()) || targets.names(&s.id));
        }
        if let Some(why) = &host_plan.observation_failed {
            let refs: Vec<String> = managed
                .into_iter()
                .filter(|r| targets.is_all() || targets.names(r))
                .collect();
            blind_to(plan, host.words().title, why, refs);
        }
        plan.hosts.push(host_plan);
    }
}

fn blind_to(plan: &mut Plan, title: &str, why: &str, refs: Vec<String>) {
    if refs.is_empty() {
        return;
    }
    let cause = format!("{title} could not be read: {why}");
    match plan.observation_failed.as_mut() {
        Some(failed) => {
            failed.cause = format!("{}; {cause}", failed.cause);
            failed.sessions.extend(refs);
        }
        None => {
            plan.observation_failed = Some(ObservationFailure {
                cause,
                sessions: refs,
            })
        }
    }
}

/// Rolls each host of `plans` through its module, one after another.
pub fn roll_all(
    config: &Config,
    policy: &Policy,
    plans: &[HostPlan],
    how: HostRoll,
) -> Vec<HostRollReport> {
    plans
        .iter()
        .filter_map(|plan| Some(of(plan.host)?.roll(config, policy, plan, how)))
        .collect()
}
