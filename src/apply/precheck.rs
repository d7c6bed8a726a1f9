//! Before a respawn: can the recorded conversation be resumed? If not, the
//! session is left alone entirely. A fresh conversation never replaces one.

use crate::harness::{is_valid_session_id, Harness, LaunchArgs};
use crate::observed::{EnvRead, Observation, ProcessEnv};
use crate::plan::SessionPlan;
use crate::registry::{Registry, SessionKey};
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

/// What a respawn needs from the record.
#[derive(Debug, Clone)]
pub struct Resumable {
    /// The harness the record names.
    pub harness: &'static dyn Harness,
    pub session_id: String,
    pub cwd: PathBuf,
    pub args: LaunchArgs,
    pub transcript: PathBuf,
}

/// The fields of a work-item or standing record a respawn reads: the plan
/// carries them, read once with the record.
pub use crate::registry::RecordFacts;

/// Where the session keeps its conversations: from the environment the
/// session itself holds, falling back to our own when it could not be read.
fn env_path(session_env: Option<&ProcessEnv>, name: &str) -> Option<PathBuf> {
    match session_env.and_then(|env| env.get(name)) {
        Some(value) => Some(PathBuf::from(std::ffi::OsStr::from_bytes(
            value.expose_bytes(),
        ))),
        None if session_env.is_some() => None,
        None => std::env::var_os(name).map(PathBuf::from),
    }
}

/// The resumability check. The error is the reason, for the report.
pub fn check(facts: &RecordFacts, session_env: Option<&ProcessEnv>) -> Result<Resumable, String> {
    let harness = crate::harness::by_name(&facts.harness)
        .ok_or_else(|| crate::harness::refusal(&facts.harness))?;
    let session_id = facts
        .session_id
        .as_deref()
        .filter(|s| !s.is_empty())
        .ok_or("unresumable: no conversation id is recorded")?;
    if !is_valid_session_id(session_id) {
        return Err("unresumable: the recorded conversation id fails the safety check".into());
    }
    let cwd = facts
        .cwd
        .clone()
        .filter(|c| c.is_absolute())
        .ok_or("unresumable: no absolute working directory is recorded")?;
    if !cwd.is_dir() {
        return Err(format!(
            "unresumable: the working directory {} is gone",
            cwd.display()
        ));
    }
    let env = |name: &str| env_path(session_env, name);
    let transcript = harness.transcript_path(&env, &cwd, session_id);
    if !transcript.is_file() {
        return Err(format!(
            "unresumable: no transcript for conversation {session_id} at {}",
            transcript.display()
        ));
    }
    Ok(Resumable {
        harness,
        session_id: session_id.to_owned(),
        cwd,
        args: facts.args.clone(),
        transcript,
    })
}

/// Which record a planned session belongs to; `None` for unmanaged ones.
pub fn identity_of(plan: &SessionPlan) -> Option<SessionKey> {
    plan.key.clone()
}

/// The record as the plan read it.
fn facts_of(plan: &SessionPlan) -> Result<&RecordFacts, String> {
    plan.record
        .as_ref()
        .ok_or_else(|| "the registry record is gone".to_owned())
}

/// The one resumability decision for a planned session, shared by `plan`
/// (which predicts it) and the roll (which acts on it), so the two cannot
/// disagree about which sessions a roll leaves alone. `None` for an
/// unmanaged session; the error is the reason, for the plan and the report.
pub fn decide(
    registry: &Registry,
    plan: &SessionPlan,
    observed: &Observation,
) -> Option<(SessionKey, Result<Resumable, String>)> {
    let identity = identity_of(plan)?;
    if plan.action == crate::plan::Action::Resume {
        // The pane is dead, so there is no environment to read: the
        // journal entry says where the conversation was before the signal.
        let verdict = facts_of(plan).and_then(|facts| {
            let entry = super::journal::Journal::under(registry.root())
                .load(&plan.tmux_target)
                .ok_or("the interrupted respawn was completed meanwhile")?;
            super::journal::resumable(facts, &entry)
        });
        return Some((identity, verdict));
    }
    let session_env = plan.pane_pid.and_then(|pid| match observed.env(pid) {
        Some(EnvRead::Read(env)) => Some(env),
        _ => None,
    });
    let verdict = facts_of(plan).and_then(|facts| check(facts, session_env));
    Some((identity, verdict))
}

/// Where the launcher finds the harness: the config's override for it, or
/// its own binary on PATH.
pub fn harness_binary(
    config: &crate::desired::config::Config,
    harness: &dyn Harness,
) -> std::ffi::OsString {
    config
        .routing
        .harness(harness.name())
        .binary
        .clone()
        .map(|p| p.into_os_string())
        .unwrap_or_else(|| harness.default_binary().into())
}
