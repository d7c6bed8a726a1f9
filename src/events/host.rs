//! What a roll of a host beside tmux did (`docs/hosts.md`): its layer's
//! outcome (Claude Code's daemon) and each session's. `apply`'s report and
//! JSON carry one per host, and `apply.finished` writes them, so
//! `the-loop history` reads them back. Short ids, refs, pids and words:
//! never a value.

use crate::host_kind::Host;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What the roll did with the host's layer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LayerOutcome {
    /// It held the policy's environment already.
    Kept,
    /// Stopped (its sessions kept) and replaced by one the-loop started.
    Replaced,
    /// Not replaced: nothing was respawned (the detail says why).
    Refused,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct LayerReport {
    pub outcome: LayerOutcome,
    pub old_pid: Option<i32>,
    pub new_pid: Option<i32>,
    pub detail: Option<String>,
}

/// What happened to one session of the host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HostOutcome {
    /// Respawned; its new process holds the policy's environment and the
    /// same conversation.
    Restarted,
    /// Held at its safe point until the drain ended: left as it was.
    Deferred,
    /// Not respawned: the layer could not be made the policy's, the canary
    /// failed, or the roll was interrupted.
    NotAttempted,
    /// Respawned, but the new process could not be verified or is wrong.
    Failed,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct HostSessionReport {
    pub id: String,
    #[serde(rename = "ref")]
    pub reference: Option<String>,
    pub outcome: HostOutcome,
    pub old_pid: Option<i32>,
    pub new_pid: Option<i32>,
    pub conversation: Option<String>,
    pub detail: Option<String>,
}

/// One host's part of an apply report.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct HostRollReport {
    /// The host, as `routing.hosts` names it. (A line written before
    /// hosts shared one report has none: it was Claude Code's background
    /// host, the only one then.)
    #[serde(default = "claude_background")]
    pub host: Host,
    /// The host's layer (read from `daemon` too, its name before hosts
    /// shared one report).
    #[serde(alias = "daemon")]
    pub layer: Option<LayerReport>,
    pub sessions: Vec<HostSessionReport>,
}

fn claude_background() -> Host {
    Host::ClaudeBackground
}

impl HostRollReport {
    /// A roll that had nothing to do.
    pub fn nothing(host: Host) -> HostRollReport {
        HostRollReport {
            host,
            layer: None,
            sessions: Vec::new(),
        }
    }

    /// Anything not restarted leaves a session stale: the command did not
    /// do what it was asked.
    pub fn failed(&self) -> bool {
        self.went_wrong()
            || self
                .sessions
                .iter()
                .any(|s| s.outcome == HostOutcome::Deferred)
    }

    /// Something went wrong, held sessions aside: a respawn failed or was
    /// not attempted, or the layer was refused. What a `watch` roll, which
    /// looks at a held session again within seconds, counts as failed.
    pub fn went_wrong(&self) -> bool {
        self.sessions
            .iter()
            .any(|s| matches!(s.outcome, HostOutcome::Failed | HostOutcome::NotAttempted))
            || self
                .layer
                .as_ref()
                .is_some_and(|l| l.outcome == LayerOutcome::Refused)
    }

    /// Something happened: a layer decided or a session reported.
    pub fn did_anything(&self) -> bool {
        self.layer.is_some() || !self.sessions.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_written_before_hosts_shared_one_still_reads() {
        let old = r#"{"daemon":{"outcome":"replaced","old_pid":1,"new_pid":2,"detail":null},"sessions":[]}"#;
        let report: HostRollReport = serde_json::from_str(old).unwrap();
        assert_eq!(report.host, Host::ClaudeBackground);
        assert_eq!(report.layer.unwrap().outcome, LayerOutcome::Replaced);
    }
}
