//! Whether a down session can be brought back without losing or doubling
//! its conversation, and how: the decision `sessions start --all` makes for
//! each record, from the record and the filesystem alone.

use crate::harness::resumable::{check_or_never_begun, directory_problem};
use crate::harness::{Harness, Launch, LaunchArgs};
use crate::lifecycle::key::Record;
use crate::process_env::ProcessEnv;
use std::path::PathBuf;

/// A down session that can be started again on its own conversation.
pub struct Revivable {
    pub harness: &'static dyn Harness,
    pub session_id: String,
    pub cwd: PathBuf,
    pub args: LaunchArgs,
    /// The conversation never began (the-loop started it with no first
    /// prompt, and no transcript exists): it starts new on the same id.
    pub fresh: bool,
}

impl Revivable {
    pub fn launch(&self) -> Launch {
        let session_id = self.session_id.clone();
        if self.fresh {
            Launch::Fresh {
                session_id,
                prompt: None,
            }
        } else {
            Launch::Resume { session_id }
        }
    }
}

/// How `record`'s session comes back, or why it is left alone. `home` is
/// where a new pane's harness keeps its files (the transcript is looked
/// for there, not where the caller's environment says).
pub fn decide(record: &Record, home: &ProcessEnv) -> Result<Revivable, String> {
    let harness = crate::harness::by_name(record.harness())
        .ok_or_else(|| crate::harness::refusal(record.harness()))?;
    let cwd = record
        .cwd()
        .filter(|c| c.is_absolute())
        .ok_or("the record names no absolute working directory to start in")?
        .to_path_buf();
    if let Some(problem) = directory_problem(&cwd) {
        return Err(format!(
            "the recorded working directory {} {problem}",
            cwd.display()
        ));
    }
    if record.harness_session_id().is_none() {
        return Err(
            "the record names no conversation (its harness never said which it began); `the-loop sessions start REF --cwd DIR` starts a new one"
                .into(),
        );
    }
    let facts = record.facts();
    // Nothing runs in the session: if the record says the conversation never
    // began, no process can have begun it since.
    let never_prompted = true;
    let resumable = check_or_never_begun(&facts, Some(home), never_prompted)?;
    Ok(Revivable {
        harness,
        session_id: resumable.session_id,
        cwd,
        args: record.launch_args(),
        fresh: resumable.fresh,
    })
}
