//! One look at the host, planned: the observation of [`super::observe`]
//! against the policy and the records of what the-loop manages there, with
//! what an earlier roll left unfinished.

use crate::desired::config::Config;
use crate::desired::policy::Policy;
use crate::host_kind::Host;
use crate::plan::host::HostPlan;
use crate::registry::background::BackgroundRecord;
use std::path::Path;

/// One look at the daemon of `config_dir`, planned, with the records of the
/// sessions the-loop manages under it (also what `sessions start --host
/// claude-background` reads before it starts one).
pub fn look_in(
    config: &Config,
    policy: &Policy,
    config_dir: &Path,
) -> (HostPlan, Vec<BackgroundRecord>) {
    let (managed, _bad) = crate::registry::background::load_all(&config.state_root);
    let claude = super::observe::claude_binary(config);
    let seen = super::observe::observe(&claude, config_dir);
    let managed: Vec<BackgroundRecord> = managed
        .into_iter()
        .filter(|r| r.config_dir == config_dir)
        .collect();
    let mut host = super::plan::plan(policy, &seen, &managed);
    host.unfinished_roll =
        crate::registry::host_roll::load(&config.state_root, Host::ClaudeBackground)
            .and_then(|journal| crate::plan::host::unfinished(&host, journal));
    (host, managed)
}
