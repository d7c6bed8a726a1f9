//! Before a respawn: can the recorded conversation be resumed? If not, the
//! session is left alone entirely. A fresh conversation never replaces one.

//!
//! This is what decides whether a harness can start on a recorded
//! conversation: below the roll, the lifecycle and the launcher alike, so
//! all of them ask the same question the same way.

use super::{is_valid_session_id, Harness, LaunchArgs};
use crate::observed::ProcessEnv;
use crate::registry::journal::Entry;
use crate::registry::RecordFacts;
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
    /// The conversation never began ([`check_or_never_begun`]): the harness is
    /// relaunched on the same pre-assigned id, not resumed.
    pub fresh: bool,
}

/// Where the session keeps its conversations: from the environment the
/// session itself holds, falling back to our own when it could not be read.
fn env_path(session_env: Option<&ProcessEnv>, name: &str) -> Option<PathBuf> {
    match session_env {
        Some(env) => env.path(name),
        None => std::env::var_os(name).map(PathBuf::from),
    }
}

/// The resumability check. The error is the reason, for the report.
pub fn check(facts: &RecordFacts, session_env: Option<&ProcessEnv>) -> Result<Resumable, String> {
    let harness = super::by_name(&facts.harness).ok_or_else(|| super::refusal(&facts.harness))?;
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
    if let Some(problem) = directory_problem(&cwd) {
        return Err(format!(
            "unresumable: the working directory {} {problem}",
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
        fresh: false,
    })
}

/// [`check`], and where it fails, a conversation that never began: the
/// record says the-loop began it with no first prompt
/// (`conversationBegun: false`), `never_prompted` says the live harness
/// started it new and has reported no turn in it, and no transcript
/// exists. Nothing is in such a conversation, so relaunching it on the same
/// id loses nothing, while leaving it alone would keep a retired value in
/// the process for good. A transcript missing after a conversation began
/// is still left alone. Only a harness that takes pre-assigned ids can be
/// relaunched so.
pub fn check_or_never_begun(
    facts: &RecordFacts,
    session_env: Option<&ProcessEnv>,
    never_prompted: bool,
) -> Result<Resumable, String> {
    let why = match check(facts, session_env) {
        Ok(resumable) => return Ok(resumable),
        Err(why) => why,
    };
    never_begun(facts, session_env, never_prompted).ok_or(why)
}

fn never_begun(
    facts: &RecordFacts,
    session_env: Option<&ProcessEnv>,
    never_prompted: bool,
) -> Option<Resumable> {
    if facts.conversation_begun != Some(false) || !never_prompted {
        return None;
    }
    let harness = super::by_name(&facts.harness)?;
    let session_id = facts
        .session_id
        .as_deref()
        .filter(|id| is_valid_session_id(id))?;
    let cwd = facts.cwd.clone().filter(|c| c.is_absolute())?;
    if !harness.names_fresh_conversations() || directory_problem(&cwd).is_some() {
        return None;
    }
    let env = |name: &str| env_path(session_env, name);
    let transcript = harness.transcript_path(&env, &cwd, session_id);
    (!transcript.exists()).then(|| Resumable {
        harness,
        session_id: session_id.to_owned(),
        cwd,
        args: facts.args.clone(),
        transcript,
        fresh: true,
    })
}

/// What is wrong with `path` as a working directory, in words that say
/// what is really there; `None` when it is a directory.
pub fn directory_problem(path: &std::path::Path) -> Option<String> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => None,
        Ok(meta) if meta.is_file() => Some("is a file, not a directory".into()),
        Ok(_) => Some("is not a directory".into()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some("is gone".into()),
        Err(e) => Some(format!("cannot be read ({})", e.kind())),
    }
}

/// What completing an interrupted respawn needs, from the record as it is
/// now and the journal entry. The record must still name the journaled
/// conversation: if it moved on, the entry is not ours to act on.
pub fn check_interrupted(facts: &RecordFacts, entry: &Entry) -> Result<Resumable, String> {
    let harness = super::by_name(&facts.harness).ok_or_else(|| super::refusal(&facts.harness))?;
    let recorded = facts.session_id.as_deref().unwrap_or_default();
    if recorded != entry.harness_session_id {
        return Err(
            "the record names another conversation than the interrupted respawn; not touched"
                .into(),
        );
    }
    if !is_valid_session_id(recorded) {
        return Err("unresumable: the recorded conversation id fails the safety check".into());
    }
    if facts.cwd.as_deref() != Some(entry.cwd.as_path()) || !entry.cwd.is_dir() {
        return Err("unresumable: the recorded working directory changed or is gone".into());
    }
    if !entry.transcript.is_file() {
        return Err(format!(
            "unresumable: no transcript for conversation {recorded} at {}",
            entry.transcript.display()
        ));
    }
    Ok(Resumable {
        harness,
        session_id: recorded.to_owned(),
        cwd: entry.cwd.clone(),
        args: facts.args.clone(),
        transcript: entry.transcript.clone(),
        fresh: false,
    })
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

#[cfg(test)]
mod tests {
    use super::directory_problem;

    /// A working directory that became a file is said to be one, not "gone".
    #[test]
    fn a_working_directory_problem_says_what_is_there() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("was-a-dir");
        std::fs::write(&file, "").unwrap();
        let fifo = dir.path().join("fifo");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        let said = |p: &std::path::Path| directory_problem(p);
        assert_eq!(said(dir.path()), None);
        assert_eq!(said(&file).as_deref(), Some("is a file, not a directory"));
        assert_eq!(said(&fifo).as_deref(), Some("is not a directory"));
        assert_eq!(said(&dir.path().join("nope")).as_deref(), Some("is gone"));
    }
}
