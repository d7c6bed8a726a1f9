//! How a process's environment differs from the policy: the environment
//! half of a plan. It lives here, not in `desired/`, because it compares
//! the desired state with an observed one, and `desired/` knows nothing of
//! tmux or `/proc`. The methods stay on [`Policy`] so a caller still reads
//! `policy.diff(..)`; only the plan may define them.

use crate::desired::policy::{is_identifier, DesiredEnv, Policy, VAR_CLI_CONFIG, VAR_INSTANCE};
pub use crate::events::roll::Change;
pub use crate::events::roll::ChangeCase;
use crate::observed::ProcessEnv;
use std::os::unix::ffi::OsStrExt;

impl Policy {
    /// Whether a process environment provably comes from a launch under
    /// THIS config (and instance): it carries the identifiers the launcher
    /// sets. Anything else is not the-loop's to judge.
    pub fn launched_here(&self, env: &ProcessEnv) -> bool {
        let config = env.get(VAR_CLI_CONFIG).map(|v| v.expose_bytes());
        let instance = env.get(VAR_INSTANCE).map(|v| v.expose_bytes());
        config == Some(self.config_path().as_os_str().as_bytes())
            && instance == self.instance().map(str::as_bytes)
    }

    /// Compares what a process holds with what it should hold, name by name.
    pub fn diff(&self, desired: &DesiredEnv, have: &ProcessEnv) -> Vec<Change> {
        let mut changes = Vec::new();
        for name in &desired.withheld {
            if let Some(value) = have.get(name) {
                let exposed = self
                    .file_value(name)
                    .is_some_and(|current| *current == value);
                let case = if exposed {
                    ChangeCase::Exposed
                } else if is_identifier(name) {
                    ChangeCase::Identifier
                } else {
                    ChangeCase::Stale
                };
                changes.push(Change {
                    name: name.clone(),
                    have: Some(self.show(name, value.expose_bytes())),
                    want: None,
                    case,
                });
            }
        }
        for (name, want) in &desired.set {
            let held = have.get(name);
            if held.is_some_and(|held| held == *want) {
                continue;
            }
            let case = match (is_identifier(name), held) {
                (true, _) => ChangeCase::Identifier,
                (false, None) => ChangeCase::Missing,
                (false, Some(_)) => ChangeCase::Stale,
            };
            changes.push(Change {
                name: name.clone(),
                have: held.map(|v| self.show(name, v.expose_bytes())),
                want: Some(self.show(name, want.expose_bytes())),
                case,
            });
        }
        changes.sort_by(|a, b| a.name.cmp(&b.name));
        changes
    }
}
