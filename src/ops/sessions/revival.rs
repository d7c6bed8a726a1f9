//! What `sessions start --all` reports: each down session and what became
//! of it, and the sums (its `--json` document).

use crate::lifecycle::key::{self as records, Record};
use serde::Serialize;
use std::path::PathBuf;

pub const FORMAT_VERSION: &str = "1";

pub struct StartAllOptions {
    /// List what would start; start nothing.
    pub dry_run: bool,
    /// How many sessions are launched at once.
    pub parallelism: usize,
}

/// What became of one down session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// `--dry-run`: it would be started.
    WouldStart,
    /// Started, and the new process holds the env file's values and the
    /// recorded conversation.
    Started,
    /// Started, but what the new process holds could not be read.
    StartedUnverified,
    /// Started, and the new process does not hold what it should.
    Mismatch,
    /// Not started: starting it could lose or double a conversation.
    LeftAlone,
    /// The start was attempted and failed.
    Failed,
}

impl Outcome {
    pub fn is_success(self) -> bool {
        matches!(self, Outcome::WouldStart | Outcome::Started)
    }
}

/// One down session and what `start --all` did with it.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Revival {
    #[serde(rename = "ref")]
    pub reference: Option<String>,
    pub standing: Option<String>,
    pub tmux_target: String,
    pub harness: String,
    pub cwd: Option<PathBuf>,
    /// The conversation it resumes (or begins on its pre-assigned id).
    pub harness_session_id: Option<String>,
    /// False for a conversation that never began, started on its own id.
    pub resumed: bool,
    pub outcome: Outcome,
    /// Why, for anything but `started`/`would_start`; names only, never values.
    pub detail: Option<String>,
    pub new_pid: Option<i32>,
}

#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
pub struct Summary {
    pub down: usize,
    pub started: usize,
    pub left_alone: usize,
    pub failed: usize,
}

/// What `sessions start --all` did (its `--json` document).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct StartAllReport {
    pub format_version: String,
    pub dry_run: bool,
    /// The tmux server the sessions were started on.
    pub tmux_server: Option<PathBuf>,
    pub sessions: Vec<Revival>,
    pub summary: Summary,
}

impl StartAllReport {
    /// Everything down was started and verified (or nothing was down).
    pub fn succeeded(&self) -> bool {
        self.sessions.iter().all(|s| s.outcome.is_success())
    }
}

impl Revival {
    pub(super) fn of(key: &crate::registry::SessionKey, record: &Record) -> Self {
        let (reference, standing) = match key {
            crate::registry::SessionKey::WorkItem(r) => (Some(r.to_string()), None),
            crate::registry::SessionKey::Standing(name) => (None, Some(name.clone())),
        };
        Revival {
            reference,
            standing,
            tmux_target: records::target_of(key, Some(record)),
            harness: record.harness().to_owned(),
            cwd: record.cwd().map(PathBuf::from),
            harness_session_id: record.harness_session_id().map(String::from),
            resumed: false,
            outcome: Outcome::LeftAlone,
            detail: None,
            new_pid: None,
        }
    }

    pub fn label(&self) -> &str {
        self.reference
            .as_deref()
            .or(self.standing.as_deref())
            .unwrap_or(&self.tmux_target)
    }
}
