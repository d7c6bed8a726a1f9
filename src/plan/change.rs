//! How a process's environment differs from the policy: the environment
//! half of a plan. It lives here, not in `desired/`, because it compares
//! the desired state with an observed one, and `desired/` knows nothing of
//! tmux or `/proc`. The methods stay on [`Policy`] so a caller still reads
//! `policy.diff(..)`; only the plan may define them.

use crate::desired::policy::{is_identifier, DesiredEnv, Policy, VAR_CLI_CONFIG, VAR_INSTANCE};
pub use crate::events::roll::Change;
pub use crate::events::roll::ChangeCase;
use crate::observed::ProcessEnv;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

impl Policy {
    /// Whether a process environment provably comes from a launch under
    /// THIS config (and instance): it carries the identifiers the launcher
    /// sets. Anything else is not the-loop's to judge.
    pub fn launched_here(&self, env: &ProcessEnv) -> bool {
        let config = env.get(VAR_CLI_CONFIG).map(|v| v.expose_bytes());
        let instance = env.get(VAR_INSTANCE).map(|v| v.expose_bytes());
        config.is_some_and(|held| self.names_config(held))
            && instance == self.instance().map(str::as_bytes)
    }

    /// Whether `held`, a `THE_LOOP_CLI_CONFIG` some process holds, names
    /// this policy's config. The policy holds the config's canonical path;
    /// a session launched before the-loop wrote that may hold another
    /// spelling of the same file (a symlink, a `..`), and the config is
    /// the file, not the spelling: a fleet must not roll because `plan`
    /// was given a link. Another file with the same text is another
    /// config (its relative paths and state root are its own).
    fn names_config(&self, held: &[u8]) -> bool {
        let want = self.config_path();
        if held == want.as_os_str().as_bytes() {
            return true;
        }
        let held = Path::new(OsStr::from_bytes(held));
        held.is_absolute() && same_file(held, want)
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
            if name == VAR_CLI_CONFIG && held.is_some_and(|h| self.names_config(h.expose_bytes())) {
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

/// Two paths name one file: the same canonical path, or (a file reached
/// through a bind mount or a hard link) the same device and inode. A path
/// that cannot be read names nothing.
fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    if let (Ok(a), Ok(b)) = (a.canonicalize(), b.canonicalize()) {
        if a == b {
            return true;
        }
    }
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}
