//! The background host's intent journal: what a roll of Claude Code's
//! background host has begun and not yet seen through, in
//! `<state root>/hosts/claude-background/roll.json` (mode 0600).
//!
//! Nothing of a conversation lives only in the-loop's memory there (a
//! stopped daemon keeps its workers, and the host's own `respawn` brings a
//! session back by itself), so the journal is not needed to resume
//! anything. It is there so a roll cut short (`kill -9`, a closed
//! terminal) is said, not guessed: the next `plan` names the daemon the
//! roll stopped and never replaced, and the sessions whose respawn it
//! asked for and never verified; the next `apply` rolls what is still
//! drifted and clears it. Short ids, a pid and a time: never a value.

use crate::bounded_read::{Limit, Links};
use crate::fsutil::owner::Rule;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// A roll of the host in progress, or cut short.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct HostRollJournal {
    /// When the roll wrote its first intent (`YYYY-MM-DDTHH:MM:SSZ`).
    pub since: String,
    /// The daemon the roll stopped (its workers kept), while its
    /// replacement is not yet proved to hold the policy's environment.
    pub daemon_stopped: Option<i32>,
    /// Short ids whose respawn the roll asked the host for and has not yet
    /// verified.
    pub respawning: Vec<String>,
}

impl HostRollJournal {
    /// Nothing begun and not seen through: no file is kept.
    pub fn is_settled(&self) -> bool {
        self.daemon_stopped.is_none() && self.respawning.is_empty()
    }
}

/// A few ids and a pid.
const JOURNAL: Limit = Limit {
    what: "the background host's roll journal",
    cap: 64 * 1024,
    links: Links::Refuse,
    owner: Some(Rule::Unwritable),
};

pub fn path(state_root: &Path) -> PathBuf {
    super::background::dir(state_root).join("roll.json")
}

/// The journal a roll left, if any; an unreadable one reads as none (it can
/// only ever make something be reported, never acted on).
pub fn load(state_root: &Path) -> Option<HostRollJournal> {
    let bytes = crate::bounded_read::read(&path(state_root), &JOURNAL).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Writes the journal before the step it names is taken, or removes it
/// once nothing is left unsettled. An error means the step must not be
/// taken.
pub fn save(state_root: &Path, journal: &HostRollJournal) -> std::io::Result<()> {
    if journal.is_settled() {
        return crate::fsutil::remove_regular(&path(state_root));
    }
    let dir = super::background::dir(state_root);
    crate::fsutil::create_private_dir(&dir)?;
    let bytes = serde_json::to_vec_pretty(journal).map_err(std::io::Error::other)?;
    crate::fsutil::write_atomic(&path(state_root), &bytes, 0o600)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_journal_is_kept_while_unsettled_and_removed_once_settled() {
        let root = tempfile::tempdir().unwrap();
        assert_eq!(load(root.path()), None);
        let mut journal = HostRollJournal {
            since: "2026-12-06T10:00:00Z".into(),
            daemon_stopped: Some(41),
            respawning: vec!["c83395a6".into()],
        };
        save(root.path(), &journal).unwrap();
        assert_eq!(load(root.path()).as_ref(), Some(&journal));
        journal.daemon_stopped = None;
        journal.respawning.clear();
        save(root.path(), &journal).unwrap();
        assert!(!path(root.path()).exists());
        // A record's loader does not take the journal for a record.
        save(
            root.path(),
            &HostRollJournal {
                daemon_stopped: Some(1),
                ..Default::default()
            },
        )
        .unwrap();
        let (records, bad) = super::super::background::load_all(root.path());
        assert!(records.is_empty() && bad.is_empty(), "{bad:?}");
    }
}
