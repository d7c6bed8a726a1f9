//! The intent journal: what a roll meant to do to a pane, written before
//! the harness is signalled and removed once the new process is verified.
//!
//! Between the SIGTERM and the `respawn-pane`, the only place a pane's
//! conversation is named is this process's memory. If the process dies
//! there (`kill -9`, a closed terminal before SIGHUP was handled, SIGXFSZ,
//! a panic), the pane stays dead under remain-on-exit and nothing says
//! whose it was or that it should come back. An entry here says exactly
//! that, so the next `plan` and `status` report an interrupted respawn and
//! the next `apply` (or `watch --apply`) completes it: it respawns the same
//! dead pane, resuming the recorded conversation, and verifies it.
//!
//! One file per tmux session, `<root>/journal/<tmux name>.json`, written
//! atomically with mode 0600 (the directory 0700). An entry holds names,
//! ids and paths only, never a value. It sits beside the registry, not in
//! it, so a read-only registry directory does not stop a roll. When the
//! entry cannot be written, nothing is signalled.

use super::target_file::{Kind, TargetFile};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::io;
use std::path::{Path, PathBuf};

/// One roll in progress: enough to find the pane again and resume it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    #[serde(rename = "ref")]
    pub reference: Option<String>,
    pub standing: Option<String>,
    pub tmux_target: String,
    pub pane_id: String,
    /// The harness that was (or was about to be) ended.
    pub old_pid: i32,
    pub harness_session_id: String,
    pub cwd: PathBuf,
    /// Where the conversation was found before the signal, in the
    /// session's own environment: the completion checks it again there.
    pub transcript: PathBuf,
    /// `YYYY-MM-DDTHH:MM:SSZ`, when the entry was written.
    pub since: String,
}

/// What `plan --json` says about an interrupted respawn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct InterruptedRespawn {
    /// The pane the interrupted roll was respawning.
    pub pane_id: String,
    /// The conversation it was resuming.
    pub harness_session_id: String,
    /// When the roll wrote its intent, just before the signal.
    pub since: String,
}

/// Where the journal is kept, and what its warnings call an entry.
const KIND: Kind = Kind {
    folder: "journal",
    limit: &crate::bounded_read::JOURNAL_ENTRY,
    unreadable: "unreadable intent journal entry",
    unparsed: "it does not parse as an entry",
    unremovable: "cannot clear the intent journal entry",
};

pub struct Journal {
    files: TargetFile,
}

impl Journal {
    pub fn under(state_root: &Path) -> Self {
        Journal {
            files: TargetFile::under(state_root, &KIND),
        }
    }

    /// Where the entry for `tmux_target` is kept. `None` for a name that
    /// could climb out of the directory; tmux names the-loop builds never
    /// can, but a record's `tmuxTarget` is input.
    pub fn path(&self, tmux_target: &str) -> Option<PathBuf> {
        self.files.path(tmux_target)
    }

    /// Writes the entry, durably, before anything is signalled. An error
    /// means the roll must not go on.
    pub fn record(&self, entry: &Entry) -> io::Result<()> {
        self.files.write(&entry.tmux_target, entry)
    }

    /// The entry for `tmux_target`; `None` when there is none or it cannot
    /// be read (said as [`Journal::entries`] says it).
    pub fn load(&self, tmux_target: &str) -> Option<Entry> {
        self.files.load(tmux_target)
    }

    /// Removes the entry; a missing one is already cleared. Only a regular
    /// file is removed: a FIFO, a directory or a link in an entry's place is
    /// not one the-loop wrote, and is left there, as the readers say they
    /// leave it ([`Journal::entries`]).
    pub fn clear(&self, tmux_target: &str) {
        self.files.remove(tmux_target)
    }

    /// Every readable entry. An unreadable one is skipped with a warning:
    /// it can only ever make a pane be reported, never signalled. Each is
    /// read without blocking and within its cap
    /// ([`crate::bounded_read::JOURNAL_ENTRY`]: a FIFO, a link or a huge
    /// file is refused, never read).
    pub fn entries(&self) -> Vec<Entry> {
        let Ok(dir) = std::fs::read_dir(self.files.dir()) else {
            return Vec::new();
        };
        let mut entries: Vec<Entry> = dir
            .flatten()
            .filter(|e| {
                let name = e.file_name();
                let name = name.to_string_lossy();
                !name.starts_with('.') && name.ends_with(".json")
            })
            .filter_map(|e| self.files.read(&e.path()))
            .collect();
        entries.sort_by(|a, b| a.tmux_target.cmp(&b.tmux_target));
        entries
    }
}
