//! What `watch` remembers between cycles and across its own restarts:
//! for each session, the desired state it last acted on and how that went.
//!
//! It holds labels, fingerprints, outcome words and times, never a value,
//! in `<state root>/watch-state.json`. Losing the file is safe in one
//! direction only: a restarted `watch` then treats every drifted session as
//! new, so a clean fleet is still left alone (nothing has drifted), and a
//! session that drifted again after its roll may be rolled once more.

use crate::apply::Outcome;
use crate::secret::Fingerprint;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub const FILE_NAME: &str = "watch-state.json";
const FORMAT_VERSION: &str = "1";

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Memory {
    pub format_version: String,
    /// Keyed by the session's label: its work-item ref or standing name.
    pub sessions: BTreeMap<String, Entry>,
}

impl Default for Memory {
    fn default() -> Self {
        Memory {
            format_version: FORMAT_VERSION.into(),
            sessions: BTreeMap::new(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// The desired state (env file fingerprints and env policy) this entry is about.
    pub desired: Fingerprint,
    /// What was observed of the session when it was last acted on.
    pub signature: Fingerprint,
    /// The last attempt's outcome (written as the apply report spells it).
    pub outcome: Outcome,
    /// Why, in words (never a value).
    pub detail: Option<String>,
    /// The pane was respawned for `desired`: it is never respawned again for it.
    pub respawned: bool,
    /// Consecutive failed attempts for `desired`.
    pub failures: u32,
    /// Seconds since the epoch.
    pub attempted_at: u64,
    /// No retry before this (seconds since the epoch).
    pub retry_after: u64,
    /// The signature last reported while holding the session back, so a
    /// hold is reported once per change rather than every interval.
    pub reported: Option<Fingerprint>,
}

impl Entry {
    pub fn succeeded(&self) -> bool {
        self.failures == 0
    }
}

pub fn path(state_root: &Path) -> PathBuf {
    state_root.join(FILE_NAME)
}

impl Memory {
    /// Reads the memory; a missing file is an empty memory, and an
    /// unreadable one is reported and treated as empty.
    pub fn load(state_root: &Path) -> Memory {
        let file = path(state_root);
        let bytes = match crate::bounded_read::read(&file, &crate::bounded_read::WATCH_MEMORY) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Memory::default(),
            Err(e) => {
                let error = crate::bounded_read::describe(&e);
                tracing::warn!(path = %file.display(), %error, "cannot read the watch memory; starting without it");
                return Memory::default();
            }
        };
        match serde_json::from_slice::<Memory>(&bytes) {
            Ok(memory) if memory.format_version == FORMAT_VERSION => memory,
            Ok(_) | Err(_) => {
                tracing::warn!(path = %file.display(), "the watch memory does not parse; starting without it");
                Memory::default()
            }
        }
    }

    pub fn save(&self, state_root: &Path) -> std::io::Result<()> {
        let text = serde_json::to_vec_pretty(self).expect("memory serialises");
        crate::fsutil::write_atomic(&path(state_root), &text, 0o600)
    }

    /// The entry for `label`, when it is about this desired state.
    pub fn current(&self, label: &str, desired: Fingerprint) -> Option<&Entry> {
        self.sessions.get(label).filter(|e| e.desired == desired)
    }

    /// Forgets sessions that are no longer registered.
    pub fn retain_labels<'a>(&mut self, labels: impl IntoIterator<Item = &'a str>) {
        let keep: std::collections::BTreeSet<&str> = labels.into_iter().collect();
        self.sessions
            .retain(|label, _| keep.contains(label.as_str()));
    }
}
