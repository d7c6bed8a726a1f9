//! Long-running pieces of the-loop that `status` reports on. Each service
//! knows whether it is enabled by config and whether it is running now.

use crate::desired::config::Config;
use serde::Serialize;

pub mod watch_lock;

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
    vec![web_terminal(config), watch(config)]
}

/// `the-loop watch`, enabled by `env.watch.enabled`: running when the pid in
/// `<state root>/watch.pid` is alive and holds `<state root>/watch.lock`.
fn watch(config: &Config) -> Service {
    let probe = watch_lock::probe(&config.state_root);
    Service {
        name: "watch".into(),
        enabled: config.env.watch_enabled,
        running: probe.running,
        detail: Some(probe.detail),
    }
}

/// The web terminal as a `status` service.
fn web_terminal(config: &Config) -> Service {
    let settings = &config.routing.web_terminal;
    let pid = settings
        .enabled
        .then(|| crate::web_terminal::running_pid(&config.state_root))
        .flatten();
    Service {
        name: crate::web_terminal::SERVICE_NAME.into(),
        enabled: settings.enabled,
        running: pid.is_some(),
        detail: Some(match pid {
            Some(pid) => format!("{} (pid {pid})", crate::web_terminal::url(settings)),
            None if settings.enabled => {
                format!(
                    "{}: start it with `the-loop web-terminal`",
                    crate::web_terminal::url(settings)
                )
            }
            None => "disabled (routing.webTerminal.enabled)".into(),
        }),
    }
}
