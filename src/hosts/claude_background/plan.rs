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

use super::observe::{BackgroundObservation, DaemonSeen};
use crate::desired::policy::{DesiredEnv, Policy};
use crate::harness::claude_background::BackgroundStatus;
use crate::host_kind::Host;
use crate::plan::change::Change;
use crate::plan::host::{HostAction, HostActivity, HostPlan, HostSessionPlan, HostWill, LayerPlan};
use crate::proc_env::EnvRead;
use crate::registry::background::BackgroundRecord;

/// The host's word for a session's activity, in the plan's.
pub fn activity(status: BackgroundStatus) -> HostActivity {
    match status {
        BackgroundStatus::Busy => HostActivity::Busy,
        BackgroundStatus::Idle => HostActivity::Idle,
        BackgroundStatus::Waiting => HostActivity::Waiting,
        BackgroundStatus::Stopped => HostActivity::Stopped,
    }
}

/// How a person opens a background session: it has no pane.
pub fn open_with(id: &str) -> String {
    format!("claude attach {id}")
}

/// Plans the host from one look and the records of what the-loop manages.
pub fn plan(
    policy: &Policy,
    seen: &BackgroundObservation,
    managed: &[BackgroundRecord],
) -> HostPlan {
    let desired = policy.desired_for_host();
    let layer = |pid, origin, version, (changes, unverified)| LayerPlan {
        pid,
        origin,
        version,
        changes,
        unverified,
    };
    let daemon = match &seen.daemon {
        DaemonSeen::None => None,
        DaemonSeen::Unreadable(why) => Some(layer(0, None, None, (Vec::new(), Some(why.clone())))),
        DaemonSeen::Running {
            pid,
            origin,
            version,
            env,
        } => Some(layer(
            *pid,
            origin.clone(),
            version.clone(),
            compare(policy, &desired, env),
        )),
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
                Some(EnvRead::Read(env)) => (worker_drift(policy, &desired, env), None),
                Some(EnvRead::Unverified(why)) => (Vec::new(), Some(why.clone())),
                None => (Vec::new(), None),
            };
            let action = match (record, listed.status, &reason) {
                (_, BackgroundStatus::Stopped, _) => HostAction::Stopped,
                (None, _, _) => HostAction::Unmanaged,
                (Some(_), _, Some(_)) => HostAction::Unverified,
                (Some(_), _, None) if changes.is_empty() => HostAction::None,
                (Some(_), _, None) => HostAction::Respawn,
            };
            let activity = activity(listed.status);
            HostSessionPlan {
                id: listed.id.clone(),
                reference: record.map(|r| r.reference.clone()),
                conversation: listed.session_id.clone(),
                cwd: listed.cwd.clone(),
                pid: listed.pid,
                activity,
                action,
                apply_will: (action == HostAction::Respawn).then(|| HostWill::at(activity)),
                changes,
                reason,
                open_with: open_with(&listed.id),
            }
        })
        .collect();
    HostPlan {
        host: Host::ClaudeBackground,
        location: seen.config_dir.clone(),
        layer: daemon,
        sessions,
        observation_failed: seen.failed.clone(),
        unfinished_roll: None,
    }
}

/// What a worker holds against the host's wanted environment: the plan's
/// drift, and what a respawn's new worker is verified by. Names the host
/// routes itself and the worker does not hold are no drift
/// (`harness::claude_background::worker_changes`).
pub fn worker_drift(
    policy: &Policy,
    desired: &DesiredEnv,
    env: &crate::proc_env::ProcessEnv,
) -> Vec<Change> {
    crate::harness::claude_background::worker_changes(policy.diff(desired, env))
}

fn compare(policy: &Policy, desired: &DesiredEnv, env: &EnvRead) -> (Vec<Change>, Option<String>) {
    match env {
        EnvRead::Read(env) => (policy.diff(desired, env), None),
        EnvRead::Unverified(why) => (Vec::new(), Some(why.clone())),
    }
}
