//! A respawn of one background session (`claude respawn <id>`, from its
//! directory, the client holding the policy's environment), verified by
//! its new worker: what it holds, and that it holds the same conversation.

use super::client::{await_shown, HostClient, HOST_COMMAND, SHOWS_WITHIN};
use super::observe as host;
use crate::events::host::{HostOutcome, HostSessionReport};
use crate::plan::host::HostSessionPlan;
use crate::proc_env::EnvRead;
use std::path::Path;

/// What became of `session`, before any new worker is known of it.
pub(super) fn report_of(
    session: &HostSessionPlan,
    outcome: HostOutcome,
    detail: Option<String>,
) -> HostSessionReport {
    HostSessionReport {
        id: session.id.clone(),
        reference: session.reference.clone(),
        outcome,
        old_pid: session.pid,
        new_pid: None,
        conversation: session.conversation.clone(),
        detail,
    }
}

/// `claude respawn <id>`, then the new worker, verified.
pub(super) fn respawn(
    client: &HostClient,
    config_dir: &Path,
    session: &HostSessionPlan,
) -> HostSessionReport {
    let (claude, policy) = (client.claude, client.policy);
    let mut report = report_of(session, HostOutcome::Failed, None);
    // The client holds what the host's daemon holds, and stands in the
    // session's directory: Claude Code refuses a respawn from a client
    // that would not bring the session's gateway (`ANTHROPIC_BASE_URL`),
    // and leaves the session running.
    let desired = policy.desired_for_host();
    let cwd = session
        .cwd
        .as_deref()
        .map(Path::new)
        .filter(|dir| dir.is_dir());
    let respawned = host::run_claude_as(
        claude,
        config_dir,
        &["respawn", &session.id],
        HOST_COMMAND,
        &mut |command| {
            client.environment(command);
            if let Some(dir) = cwd {
                command.current_dir(dir);
            }
        },
    );
    if let Err(why) = respawned {
        report.detail = Some(format!(
            "{why}; the session runs on as it was (`claude respawn {}` says why)",
            session.id
        ));
        return report;
    }
    let verified = await_shown(|| {
        let seen = host::observe(claude, config_dir);
        let now = seen.sessions.iter().find(|s| s.listed.id == session.id);
        let now = now.filter(|s| s.listed.pid.is_some() && s.listed.pid != session.pid)?;
        report.new_pid = now.listed.pid;
        let Some(EnvRead::Read(env)) = &now.env else {
            return None;
        };
        let changes = super::plan::worker_drift(policy, &desired, env);
        if !changes.is_empty() {
            let names: Vec<&str> = changes.iter().map(|c| c.name.as_str()).collect();
            report.detail = Some(format!(
                "the new worker holds other than the policy: {}",
                names.join(", ")
            ));
        } else if now.listed.session_id != session.conversation {
            // A respawn claims one of the daemon's spare workers, which the
            // listing can show under the spare's own conversation until it
            // has resumed the session's: looked at again until the bound,
            // and said only if it never shows it.
            report.detail = Some(format!(
                "the new worker holds conversation {}, not {}, {} s after `claude respawn`",
                now.listed.session_id.as_deref().unwrap_or("none"),
                session.conversation.as_deref().unwrap_or("none"),
                SHOWS_WITHIN.as_secs()
            ));
            return None;
        } else {
            report.detail = None;
            report.outcome = HostOutcome::Restarted;
        }
        Some(())
    });
    if verified.is_none() && report.detail.is_none() {
        report.detail = Some(format!(
            "no new worker could be verified within {} s of `claude respawn`",
            SHOWS_WITHIN.as_secs()
        ));
    }
    report
}
