//! The JSONL event log under the state root: one line per state change.
//!
//! Events are built from `serde_json::Value`s, and [`crate::secret::SecretValue`]
//! is not serialisable, so a value cannot be put into an event by mistake.

use serde_json::{json, Map, Value};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

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
        let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        let written = (|| -> std::io::Result<()> {
            let mut file = crate::fsutil::open_append(&self.path, crate::fsutil::PRIVATE_FILE)?;
            let mut text = Value::Object(line).to_string();
            text.push('\n');
            file.write_all(text.as_bytes())
        })();
        if let Err(err) = written {
            tracing::warn!(path = %self.path.display(), error = %err, "could not write event");
        }
    }
}
