//! A host's intent journal: what a roll of a host beside tmux has begun
//! and not yet seen through, in `<state root>/hosts/<host>/roll.json`
//! (mode 0600).
//!
//! Nothing of a conversation lives only in the-loop's memory there (Claude
//! Code's stopped daemon keeps its workers, and the host's own `respawn`
//! brings a session back by itself), so the journal is not needed to
//! resume anything. It is there so a roll cut short (`kill -9`, a closed
//! terminal) is said, not guessed: the next `plan` names the layer the
//! roll stopped and never replaced, and the sessions whose respawn it
//! asked for and never verified; the next `apply` rolls what is still
//! drifted and clears it. Short ids, a pid and a time: never a value.

use crate::bounded_read::{Limit, Links};
use crate::fsutil::owner::Rule;
use crate::host_kind::Host;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// A roll of the host in progress, or cut short.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct HostRollJournal {
    /// When the roll wrote its first intent (`YYYY-MM-DDTHH:MM:SSZ`).
    pub since: String,
    /// The host's layer the roll stopped (Claude Code's daemon, its
    /// workers kept), while its replacement is not yet proved to hold the
    /// policy's environment. (Read from `daemon_stopped` too, its name
    /// before hosts shared one journal.)
    #[serde(alias = "daemon_stopped")]
    pub layer_stopped: Option<i32>,
    /// Short ids whose respawn the roll asked the host for and has not yet
    /// verified.
    pub respawning: Vec<String>,
}

impl HostRollJournal {
    /// Nothing begun and not seen through: no file is kept.
    pub fn is_settled(&self) -> bool {
        self.layer_stopped.is_none() && self.respawning.is_empty()
    }
}

/// A few ids and a pid.
const JOURNAL: Limit = Limit {
    what: "a host's roll journal",
    cap: 64 * 1024,
    links: Links::Refuse,
    owner: Some(Rule::Unwritable),
};

/// The directory of `host`'s records and journal (by the name
/// `routing.hosts` gives it).
pub fn dir(state_root: &Path, host: Host) -> PathBuf {
    state_root.join("hosts").join(host.name())
}

pub fn path(state_root: &Path, host: Host) -> PathBuf {
    dir(state_root, host).join("roll.json")
}

/// The journal a roll left, if any; an unreadable one reads as none (it can
/// only ever make something be reported, never acted on).
pub fn load(state_root: &Path, host: Host) -> Option<HostRollJournal> {
    let bytes = crate::bounded_read::read(&path(state_root, host), &JOURNAL).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Writes the journal before the step it names is taken, or removes it
/// once nothing is left unsettled. An error means the step must not be
/// taken.
pub fn save(state_root: &Path, host: Host, journal: &HostRollJournal) -> std::io::Result<()> {
    if journal.is_settled() {
        return crate::fsutil::remove_regular(&path(state_root, host));
    }
    crate::fsutil::create_private_dir(&dir(state_root, host))?;
    let bytes = serde_json::to_vec_pretty(journal).map_err(std::io::Error::other)?;
    crate::fsutil::write_atomic(&path(state_root, host), &bytes, 0o600)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_journal_is_kept_while_unsettled_and_removed_once_settled() {
        let root = tempfile::tempdir().unwrap();
        const HOST: Host = Host::ClaudeBackground;
        assert_eq!(load(root.path(), HOST), None);
        let mut journal = HostRollJournal {
            since: "2026-12-06T10:00:00Z".into(),
            layer_stopped: Some(41),
            respawning: vec!["c83395a6".into()],
        };
        save(root.path(), HOST, &journal).unwrap();
        assert_eq!(load(root.path(), HOST).as_ref(), Some(&journal));
        journal.layer_stopped = None;
        journal.respawning.clear();
        save(root.path(), HOST, &journal).unwrap();
        assert!(!path(root.path(), HOST).exists());
        // A record's loader does not take the journal for a record.
        save(
            root.path(),
            HOST,
            &HostRollJournal {
                layer_stopped: Some(1),
                ..Default::default()
            },
        )
        .unwrap();
        let (records, bad) = super::super::background::load_all(root.path());
        assert!(records.is_empty() && bad.is_empty(), "{bad:?}");
    }

    #[test]
    fn a_journal_written_before_hosts_shared_one_still_reads() {
        let old = r#"{"since":"2026-12-06T10:00:00Z","daemon_stopped":41,"respawning":[]}"#;
        let journal: HostRollJournal = serde_json::from_str(old).unwrap();
        assert_eq!(journal.layer_stopped, Some(41));
    }
}
