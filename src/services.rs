//! Long-running pieces of the-loop that `status` reports on. Each service
//! knows whether it is enabled by config and whether it is running now.

use crate::desired::config::Config;
use serde::Serialize;

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Service {
    pub name: String,
    pub enabled: bool,
    pub running: bool,
    /// Where it runs or why it does not, for people.
    pub detail: Option<String>,
}

/// Every service this build knows, enabled or not.
pub fn all(config: &Config) -> Vec<Service> {
    vec![crate::web_terminal::service(config), watch(config)]
}

/// `the-loop watch`, enabled by `env.watch.enabled`: running when the pid in
/// `<state root>/watch.pid` is alive and holds `<state root>/watch.lock`.
fn watch(config: &Config) -> Service {
    let probe = crate::watch::service::probe(&config.state_root);
    Service {
        name: "watch".into(),
        enabled: config.env.watch_enabled,
        running: probe.running,
        detail: Some(probe.detail),
    }
}
