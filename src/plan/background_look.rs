//! Adds the background host to a plan (`routing.hosts` names
//! `claude-background`): one look at the host, planned against the
//! policy and the records of what the-loop manages there. A host the
//! plan could not read while it manages sessions there makes the plan
//! blind to them: an observation failure, as a tmux that did not answer.

use super::background::{plan as plan_host, BackgroundHostPlan};
use super::model::{ObservationFailure, Plan};
use crate::desired::config::{Config, Host};
use crate::desired::policy::Policy;
use crate::registry::background::BackgroundRecord;

/// One look at the host and its plan, with the records of the sessions
/// the-loop manages under that config dir, when the config turns the host
/// on (and a Claude config dir can be named); `None` otherwise, at no cost.
pub fn look(
    config: &Config,
    policy: &Policy,
) -> Option<(BackgroundHostPlan, Vec<BackgroundRecord>)> {
    if !config.routing.hosts.contains(&Host::ClaudeBackground) {
        return None;
    }
    let config_dir = crate::observed::background::config_dir()?;
    Some(look_in(config, policy, &config_dir))
}

/// [`look`] at the daemon of `config_dir`, the host being on.
pub fn look_in(
    config: &Config,
    policy: &Policy,
    config_dir: &std::path::Path,
) -> (BackgroundHostPlan, Vec<BackgroundRecord>) {
    let (managed, _bad) = crate::registry::background::load_all(&config.state_root);
    let claude =
        crate::harness::resumable::harness_binary(config, &crate::harness::claude::ClaudeCode);
    let seen = crate::observed::background::observe(&claude, config_dir);
    let managed: Vec<BackgroundRecord> = managed
        .into_iter()
        .filter(|r| r.config_dir == config_dir)
        .collect();
    let mut host = plan_host(policy, &seen, &managed);
    host.unfinished_roll = crate::registry::background_roll::load(&config.state_root)
        .and_then(|journal| super::background::unfinished(&host, journal));
    (host, managed)
}

/// Looks at the host, when the config turns it on, and plans it into `plan`.
pub fn annotate(plan: &mut Plan, config: &Config, policy: &Policy) {
    let Some((host, managed)) = look(config, policy) else {
        return;
    };
    if let Some(why) = &host.observation_failed {
        let refs: Vec<String> = managed.iter().map(|r| r.reference.clone()).collect();
        if !refs.is_empty() {
            let cause = format!("Claude Code's background host could not be read: {why}");
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
    }
    plan.background_host = Some(host);
}
