//! The JSONL event log under the state root: one line per state change.
//!
//! Each line is an [`Event`], a typed value whose variants carry names,
//! labels and fingerprints only. [`crate::secret::SecretValue`] is not
//! serialisable, so a value cannot be put into an event by mistake.

//! The event types are in `kinds` and `parts`, and the words they are
//! made of that other modules speak too are in [`roll`] and [`session`];
//! this module writes them.

pub mod host;
mod kinds;
mod parts;
pub mod roll;
pub mod session;

pub use kinds::*;
pub use parts::*;

use crate::clock::{Clock, SystemClock};
use schemars::JsonSchema;
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// One line of `events.jsonl`, as written: the time, then the event.
#[derive(Debug, Serialize, JsonSchema)]
pub struct EventLine<'a> {
    /// `YYYY-MM-DDTHH:MM:SSZ`.
    pub ts: String,
    #[serde(flatten)]
    pub event: &'a Event,
}

pub struct EventLog {
    path: PathBuf,
    // Lines from parallel respawns must not interleave.
    lock: Mutex<()>,
    /// Stamps each line (wall clock) and times what a line reports took
    /// (monotonic clock): a seam, so a test can jump the wall clock.
    clock: Arc<dyn Clock>,
}

impl EventLog {
    pub fn under(state_root: &Path) -> Self {
        EventLog::with_clock(state_root, Arc::new(SystemClock))
    }

    /// The log under `state_root`, stamped and timed by `clock`.
    pub fn with_clock(state_root: &Path, clock: Arc<dyn Clock>) -> Self {
        EventLog {
            path: state_root.join("events.jsonl"),
            lock: Mutex::new(()),
            clock,
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The clock the log's lines are stamped by; a duration an event
    /// carries is measured on its monotonic side
    /// ([`crate::clock::Stopwatch::start_on`]).
    pub fn clock(&self) -> &dyn Clock {
        self.clock.as_ref()
    }

    /// Appends one typed event. Failure to log is reported through tracing
    /// and never stops the work the event describes.
    pub fn emit(&self, event: Event) {
        let line = EventLine {
            ts: crate::clock::format_utc(self.clock.wall_secs()),
            event: &event,
        };
        match serde_json::to_string(&line) {
            Ok(text) => {
                tracing::debug!(line = %text, "event");
                self.append(text)
            }
            Err(err) => tracing::warn!(error = %err, "could not serialise an event"),
        }
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
