//! Which session something is about: a work item or a standing session.
//!
//! This is the one key every part uses (the policy, the plan, the roll and
//! the lifecycle verbs), so a session is never named by a string that has
//! to be parsed back. It lives with the registry because the registry is
//! what it keys: one key, one record file, one tmux session name.

use super::record::LaunchArgs;
use super::record::{LaunchFields, SessionFields, StandingRecord, WorkItemRecord};
use super::refs::{standing_tmux_name, validate_standing_name, RefError, WorkItemRef};
use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SessionKey {
    WorkItem(WorkItemRef),
    Standing(String),
}

impl SessionKey {
    pub fn work_item(text: &str) -> Result<SessionKey, RefError> {
        text.parse().map(SessionKey::WorkItem)
    }

    pub fn standing(name: &str) -> Result<SessionKey, RefError> {
        validate_standing_name(name)?;
        Ok(SessionKey::Standing(name.to_owned()))
    }

    /// The ref's canonical text, or the standing name.
    pub fn label(&self) -> String {
        match self {
            SessionKey::WorkItem(r) => r.to_string(),
            SessionKey::Standing(n) => n.clone(),
        }
    }

    /// `loop-<slug>` or `loop-standing-<name>`, as tmux spells it.
    pub fn tmux_name(&self) -> String {
        match self {
            SessionKey::WorkItem(r) => r.tmux_name(),
            SessionKey::Standing(n) => standing_tmux_name(n),
        }
    }

    /// `{"ref": …}` or `{"standing": …}`: how events name the session.
    pub fn subject(&self) -> crate::events::Subject {
        match self {
            SessionKey::WorkItem(r) => crate::events::Subject::work_item(r.to_string()),
            SessionKey::Standing(n) => crate::events::Subject::standing(n.clone()),
        }
    }

    pub fn as_work_item(&self) -> Option<&WorkItemRef> {
        match self {
            SessionKey::WorkItem(r) => Some(r),
            SessionKey::Standing(_) => None,
        }
    }

    /// The ref's text and the standing name, as the plan's and the
    /// reports' `ref` and `standing` fields carry them.
    pub fn ref_and_standing(&self) -> (Option<String>, Option<String>) {
        match self {
            SessionKey::WorkItem(r) => (Some(r.to_string()), None),
            SessionKey::Standing(n) => (None, Some(n.clone())),
        }
    }
}

/// What a respawn needs from a session's record, taken when the record is
/// read, so nothing downstream reads the record again.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecordFacts {
    pub harness: String,
    pub session_id: Option<String>,
    /// The conversations the record followed from, oldest first.
    pub previous_session_ids: Vec<String>,
    pub cwd: Option<PathBuf>,
    pub args: LaunchArgs,
    /// The record's `conversationBegun`: `Some(false)` only for a
    /// conversation the-loop began with no first prompt.
    pub conversation_begun: Option<bool>,
}

impl RecordFacts {
    /// What a record's shared parts say.
    pub fn of(session: &SessionFields, launch: &LaunchFields) -> Self {
        RecordFacts {
            harness: session.harness.clone(),
            session_id: session.harness_session_id.clone(),
            previous_session_ids: session.previous_harness_session_ids.clone(),
            cwd: session.cwd.clone(),
            args: launch.args(),
            conversation_begun: session.conversation_begun,
        }
    }
}

impl RecordFacts {
    /// Every conversation the record names: its own, then the ones it
    /// followed from, newest first.
    pub fn conversations(&self) -> Vec<&str> {
        let previous = self.previous_session_ids.iter().rev();
        self.session_id
            .iter()
            .chain(previous)
            .map(String::as_str)
            .collect()
    }
}

impl From<&WorkItemRecord> for RecordFacts {
    fn from(r: &WorkItemRecord) -> Self {
        RecordFacts::of(&r.session, &r.launch)
    }
}

impl From<&StandingRecord> for RecordFacts {
    fn from(r: &StandingRecord) -> Self {
        RecordFacts::of(&r.session, &r.launch)
    }
}
