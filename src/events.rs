//! The JSONL event log under the state root: one line per state change.
//!
//! Each line is an [`Event`], a typed value whose variants carry names,
//! labels and fingerprints only. [`crate::secret::SecretValue`] is not
//! serialisable, so a value cannot be put into an event by mistake.

use crate::apply::{Outcome, SessionReport};
use crate::ops::apply::RollCommand;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{json, Map, Value};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// One line of `events.jsonl`, as written: the time, then the event.
#[derive(Debug, Serialize, JsonSchema)]
pub struct EventLine<'a> {
    /// `YYYY-MM-DDTHH:MM:SSZ`.
    pub ts: String,
    #[serde(flatten)]
    pub event: &'a Event,
}

/// Everything the log records. The tag is the line's `event` field, with
/// the dotted names the README and `docs/watch.md` list.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(tag = "event")]
pub enum Event {
    /// A roll (apply, a restart, or watch's) is about to touch sessions.
    #[serde(rename = "apply.started")]
    ApplyStarted {
        command: RollCommand,
        /// How many sessions the roll selected to act on.
        sessions: usize,
    },
    /// A roll is over; each session's outcome.
    #[serde(rename = "apply.finished")]
    ApplyFinished {
        command: RollCommand,
        failed: bool,
        /// A signal stopped new respawns from starting.
        interrupted: bool,
        sessions: Vec<SessionOutcome>,
    },
}

/// A session's outcome in `apply.finished`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SessionOutcome {
    #[serde(rename = "ref")]
    pub reference: Option<String>,
    pub standing: Option<String>,
    pub tmux_target: String,
    pub outcome: Outcome,
    /// Why, in words (never a value).
    pub detail: Option<String>,
}

impl From<&SessionReport> for SessionOutcome {
    fn from(s: &SessionReport) -> Self {
        SessionOutcome {
            reference: s.reference.clone(),
            standing: s.standing.clone(),
            tmux_target: s.tmux_target.clone(),
            outcome: s.outcome,
            detail: s.detail.clone(),
        }
    }
}

pub struct EventLog {
    path: PathBuf,
    // Lines from parallel respawns must not interleave.
    lock: Mutex<()>,
}

impl EventLog {
    pub fn under(state_root: &Path) -> Self {
        EventLog {
            path: state_root.join("events.jsonl"),
            lock: Mutex::new(()),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one typed event. Failure to log is reported through tracing
    /// and never stops the work the event describes.
    pub fn record(&self, event: Event) {
        let line = EventLine {
            ts: crate::clock::now_utc(),
            event: &event,
        };
        match serde_json::to_string(&line) {
            Ok(text) => self.append(text),
            Err(err) => tracing::warn!(error = %err, "could not serialise an event"),
        }
    }

    /// Appends `{"ts", "event", ...fields}`. Failure to log is reported through
    /// tracing and never stops the work the event describes.
    pub fn emit(&self, event: &str, fields: Value) {
        let mut line = Map::new();
        line.insert("ts".into(), json!(crate::clock::now_utc()));
        line.insert("event".into(), json!(event));
        if let Value::Object(extra) = fields {
            line.extend(extra);
        }
        tracing::debug!(event, "event");
        self.append(Value::Object(line).to_string());
    }

    fn append(&self, mut text: String) {
        let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        let written = (|| -> std::io::Result<()> {
            let mut file = crate::fsutil::open_append(&self.path, crate::fsutil::PRIVATE_FILE)?;
            text.push('\n');
            file.write_all(text.as_bytes())
        })();
        if let Err(err) = written {
            tracing::warn!(path = %self.path.display(), error = %err, "could not write event");
        }
    }
}
