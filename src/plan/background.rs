//! The plan of Claude Code's background host, pure: each background
//! session the host lists, whether the-loop manages it (a record of
//! `registry::background`), what its worker holds against what the policy
//! wants, and what `apply` does with it at its safe point; and the
//! daemon's own drift, the host's layer, as a pane's tmux server is.
//!
//! Every worker holds the daemon's environment, never its caller's, so a
//! session is respawned only under a daemon that holds the policy's; and
//! one environment serves every session, so what is wanted is the host's
//! (`Policy::desired_for_host`), with no session's identity in it.

use crate::desired::policy::{DesiredEnv, Policy};
use crate::harness::claude_background::BackgroundStatus;
use crate::observed::background::{BackgroundObservation, DaemonSeen};
use crate::plan::change::Change;
use crate::proc_env::EnvRead;
use crate::registry::background::BackgroundRecord;
use crate::registry::background_roll::HostRollJournal;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// The host's part of a plan (`plan --json`'s `background_host`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BackgroundHostPlan {
    /// Always `claude-background`.
    pub host: String,
    /// The Claude config dir whose daemon hosts these sessions.
    pub config_dir: PathBuf,
    /// Null when no daemon runs.
    pub daemon: Option<DaemonPlan>,
    pub sessions: Vec<BackgroundSessionPlan>,
    /// The host could not be read (its listing failed or is of a version
    /// this reader does not know): the plan is blind to it.
    pub observation_failed: Option<String>,
    /// What an earlier roll of this host began and never saw through (cut
    /// short, or running now), as far as it still shows: the daemon it
    /// stopped while no daemon holding the policy's runs, the sessions
    /// whose respawn it asked for that still drift. Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unfinished_roll: Option<HostRollJournal>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DaemonPlan {
    pub pid: i32,
    /// `transient` (started by a client) or `foreground` (`claude daemon
    /// run`, as the-loop starts it).
    pub origin: Option<String>,
    pub version: Option<String>,
    /// What the daemon holds against the host's wanted environment: every
    /// session it starts or respawns gets the same.
    pub changes: Vec<Change>,
    /// Why its environment could not be read; null when it was.
    pub unverified: Option<String>,
}

/// What `apply` does with a background session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BackgroundAction {
    /// Managed and drifted: respawned under a daemon holding the policy.
    Respawn,
    /// Managed and holding what the policy wants.
    None,
    /// Not the-loop's: listed, never touched.
    Unmanaged,
    /// No worker runs: it holds nothing, and is not rolled.
    Stopped,
    /// Managed, but what its worker holds could not be read.
    Unverified,
}

/// When `apply` respawns it: only between turns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BackgroundWill {
    RollNow,
    /// A turn runs: held until it ends or the drain does.
    WaitBusy,
    /// It asks a person: held.
    WaitAsking,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BackgroundSessionPlan {
    /// Claude Code's short id.
    pub id: String,
    /// The managing record's ref; null for one the-loop does not manage.
    #[serde(rename = "ref")]
    pub reference: Option<String>,
    pub conversation: Option<String>,
    pub cwd: Option<String>,
    pub pid: Option<i32>,
    /// `busy`, `idle`, `waiting` or `stopped`, as the host says.
    pub activity: BackgroundStatus,
    pub action: BackgroundAction,
    /// Null unless it is to be respawned.
    pub apply_will: Option<BackgroundWill>,
    pub changes: Vec<Change>,
    /// Why it is unverified; null otherwise.
    pub reason: Option<String>,
}

impl BackgroundHostPlan {
    /// How many managed drifted sessions a roll is to respawn.
    pub fn to_respawn(&self) -> usize {
        self.sessions
            .iter()
            .filter(|s| s.action == BackgroundAction::Respawn)
            .count()
    }

    /// A managed session drifted (what `--detailed-exitcode` counts).
    pub fn has_drift(&self) -> bool {
        self.sessions
            .iter()
            .any(|s| s.action == BackgroundAction::Respawn)
    }

    /// A session the-loop does not manage holds what the policy would not
    /// give it (counted with `--include-unmanaged`).
    pub fn has_unmanaged_drift(&self) -> bool {
        self.sessions
            .iter()
            .any(|s| s.action == BackgroundAction::Unmanaged && !s.changes.is_empty())
    }

    /// The daemon holds other than the policy: every session it starts or
    /// respawns would too.
    pub fn daemon_drifts(&self) -> bool {
        self.daemon
            .as_ref()
            .is_some_and(|d| !d.changes.is_empty() || d.unverified.is_some())
    }
}

/// Plans the host from one look and the records of what the-loop manages.
pub fn plan(
    policy: &Policy,
    seen: &BackgroundObservation,
    managed: &[BackgroundRecord],
) -> BackgroundHostPlan {
    let desired = policy.desired_for_host();
    let daemon = match &seen.daemon {
        DaemonSeen::None => None,
        DaemonSeen::Unreadable(why) => Some(DaemonPlan {
            pid: 0,
            origin: None,
            version: None,
            changes: Vec::new(),
            unverified: Some(why.clone()),
        }),
        DaemonSeen::Running {
            pid,
            origin,
            version,
            env,
        } => {
            let (changes, unverified) = compare(policy, &desired, env);
            Some(DaemonPlan {
                pid: *pid,
                origin: origin.clone(),
                version: version.clone(),
                changes,
                unverified,
            })
        }
    };
    let sessions = seen
        .sessions
        .iter()
        .map(|session| {
            let listed = &session.listed;
            let record = managed
                .iter()
                .find(|r| r.id == listed.id && r.config_dir == seen.config_dir);
            let (changes, reason) = match &session.env {
                Some(env) => compare(policy, &desired, env),
                None => (Vec::new(), None),
            };
            let changes = crate::harness::claude_background::worker_changes(changes);
            let action = match (record, listed.status, &reason) {
                (_, BackgroundStatus::Stopped, _) => BackgroundAction::Stopped,
                (None, _, _) => BackgroundAction::Unmanaged,
                (Some(_), _, Some(_)) => BackgroundAction::Unverified,
                (Some(_), _, None) if changes.is_empty() => BackgroundAction::None,
                (Some(_), _, None) => BackgroundAction::Respawn,
            };
            let apply_will = (action == BackgroundAction::Respawn).then_some(match listed.status {
                BackgroundStatus::Busy => BackgroundWill::WaitBusy,
                BackgroundStatus::Waiting => BackgroundWill::WaitAsking,
                BackgroundStatus::Idle | BackgroundStatus::Stopped => BackgroundWill::RollNow,
            });
            BackgroundSessionPlan {
                id: listed.id.clone(),
                reference: record.map(|r| r.reference.clone()),
                conversation: listed.session_id.clone(),
                cwd: listed.cwd.clone(),
                pid: listed.pid,
                activity: listed.status,
                action,
                apply_will,
                changes,
                reason,
            }
        })
        .collect();
    BackgroundHostPlan {
        host: crate::desired::config::Host::ClaudeBackground.name().into(),
        config_dir: seen.config_dir.clone(),
        daemon,
        sessions,
        observation_failed: seen.failed.clone(),
        unfinished_roll: None,
    }
}

/// What of an earlier roll's journal the host still shows unsettled: a
/// stopped daemon while none that holds the policy's runs, respawns of
/// sessions that are still not what the policy wants. `None` when nothing
/// is.
pub fn unfinished(host: &BackgroundHostPlan, journal: HostRollJournal) -> Option<HostRollJournal> {
    let daemon_settled = host.daemon.is_some() && !host.daemon_drifts();
    let unsettled = |id: &String| {
        host.sessions.iter().any(|s| {
            s.id == *id
                && matches!(
                    s.action,
                    BackgroundAction::Respawn | BackgroundAction::Unverified
                )
        })
    };
    let left = HostRollJournal {
        daemon_stopped: journal.daemon_stopped.filter(|_| !daemon_settled),
        respawning: journal.respawning.into_iter().filter(unsettled).collect(),
        since: journal.since,
    };
    (!left.is_settled()).then_some(left)
}

fn compare(policy: &Policy, desired: &DesiredEnv, env: &EnvRead) -> (Vec<Change>, Option<String>) {
    match env {
        EnvRead::Read(env) => (policy.diff(desired, env), None),
        EnvRead::Unverified(why) => (Vec::new(), Some(why.clone())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(daemon_drifts: bool, action: BackgroundAction) -> BackgroundHostPlan {
        let change = Change {
            name: "ANTHROPIC_API_KEY".into(),
            have: None,
            want: None,
            case: crate::events::roll::ChangeCase::Missing,
        };
        BackgroundHostPlan {
            host: "claude-background".into(),
            config_dir: "/c".into(),
            daemon: Some(DaemonPlan {
                pid: 7,
                origin: None,
                version: None,
                changes: if daemon_drifts {
                    vec![change]
                } else {
                    Vec::new()
                },
                unverified: None,
            }),
            sessions: vec![BackgroundSessionPlan {
                id: "0123abcd".into(),
                reference: Some("r".into()),
                conversation: None,
                cwd: None,
                pid: Some(9),
                activity: BackgroundStatus::Idle,
                action,
                apply_will: None,
                changes: Vec::new(),
                reason: None,
            }],
            observation_failed: None,
            unfinished_roll: None,
        }
    }

    fn journal() -> HostRollJournal {
        HostRollJournal {
            since: "2026-12-06T10:00:00Z".into(),
            daemon_stopped: Some(5),
            respawning: vec!["0123abcd".into(), "ffff0000".into()],
        }
    }

    #[test]
    fn an_unfinished_roll_is_said_as_far_as_the_host_still_shows_it() {
        // Daemon replaced and the session rolled since: nothing is left.
        assert_eq!(
            unfinished(&host(false, BackgroundAction::None), journal()),
            None
        );
        // The stopped daemon's place taken by one of another's environment,
        // the session still drifted; a session no longer listed is not named.
        let left = unfinished(&host(true, BackgroundAction::Respawn), journal()).unwrap();
        assert_eq!(left.daemon_stopped, Some(5));
        assert_eq!(left.respawning, ["0123abcd"]);
        let left = unfinished(&host(false, BackgroundAction::Unverified), journal()).unwrap();
        assert_eq!(left.daemon_stopped, None);
        assert_eq!(left.respawning, ["0123abcd"]);
    }
}
