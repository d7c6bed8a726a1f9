//! What a roll of Claude Code's background host did (`docs/hosts.md`): the
//! daemon's outcome and each session's. `apply`'s report and JSON carry
//! it, and `apply.finished` writes it, so `the-loop history` reads it
//! back. Short ids, refs, pids and words: never a value.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What the roll did with the daemon.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DaemonOutcome {
    /// It held the policy's environment already.
    Kept,
    /// Stopped (workers kept) and replaced by one the-loop started.
    Replaced,
    /// Not replaced: nothing was respawned (the detail says why).
    Refused,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct DaemonReport {
    pub outcome: DaemonOutcome,
    pub old_pid: Option<i32>,
    pub new_pid: Option<i32>,
    pub detail: Option<String>,
}

/// What happened to one background session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BackgroundOutcome {
    /// Respawned; its new worker holds the policy's environment and the
    /// same conversation.
    Restarted,
    /// Held at its safe point until the drain ended: left as it was.
    Deferred,
    /// Not respawned: the daemon could not be made the policy's.
    NotAttempted,
    /// Respawned, but the new worker could not be verified or is wrong.
    Failed,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct BackgroundSessionReport {
    pub id: String,
    #[serde(rename = "ref")]
    pub reference: Option<String>,
    pub outcome: BackgroundOutcome,
    pub old_pid: Option<i32>,
    pub new_pid: Option<i32>,
    pub conversation: Option<String>,
    pub detail: Option<String>,
}

/// The host's part of an apply report.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct BackgroundRollReport {
    pub daemon: Option<DaemonReport>,
    pub sessions: Vec<BackgroundSessionReport>,
}

impl BackgroundRollReport {
    /// Anything not restarted leaves a session stale: the command did not
    /// do what it was asked.
    pub fn failed(&self) -> bool {
        self.went_wrong()
            || self
                .sessions
                .iter()
                .any(|s| s.outcome == BackgroundOutcome::Deferred)
    }

    /// Something went wrong, held sessions aside: a respawn failed or was
    /// not attempted, or the daemon was refused. What a `watch` roll, which
    /// looks at a held session again within seconds, counts as failed.
    pub fn went_wrong(&self) -> bool {
        self.sessions.iter().any(|s| {
            matches!(
                s.outcome,
                BackgroundOutcome::Failed | BackgroundOutcome::NotAttempted
            )
        }) || self
            .daemon
            .as_ref()
            .is_some_and(|d| d.outcome == DaemonOutcome::Refused)
    }
}
