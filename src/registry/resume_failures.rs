//! Rolls whose harness exited at once when it was resumed, remembered.
//!
//! A harness that cannot resume its conversation (one it refuses, whatever
//! the reason) leaves its pane dead and journaled after the roll. Planned
//! as an interrupted respawn to complete, it went first in every later roll
//! as the canary, failed again, and kept the rest of the fleet `not
//! attempted` for good. What is kept here says which session failed, on
//! which conversation, and when: while that still holds, a roll leaves the
//! session alone and takes another canary (`apply/fleet.rs`). It is
//! forgotten when the session next rolls well or is found up to date, and
//! it no longer holds once the session is on another conversation.
//!
//! One file per tmux session, `<root>/resume-failures/<tmux name>.json`,
//! 0600 in a 0700 directory, names and ids only. Beside the registry, as
//! the journal is: a read-only registry does not stop a roll from
//! remembering.

use super::target_file::{Kind, TargetFile};
use serde::{Deserialize, Serialize};
use std::io;
use std::path::{Path, PathBuf};

/// One session whose harness exited when its conversation was resumed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
    #[serde(rename = "ref")]
    pub reference: Option<String>,
    pub standing: Option<String>,
    pub tmux_target: String,
    /// The conversation the harness was resuming.
    pub harness_session_id: String,
    /// `YYYY-MM-DDTHH:MM:SSZ`, when the roll found the harness gone.
    pub at: String,
}

impl Failure {
    /// Whether this is the failure of the session named so, on this
    /// conversation: a record since re-pointed at another conversation, or
    /// another record now holding the tmux name, is not what failed.
    pub fn holds_for(
        &self,
        reference: Option<&str>,
        standing: Option<&str>,
        conversation: &str,
    ) -> bool {
        self.reference.as_deref() == reference
            && self.standing.as_deref() == standing
            && self.harness_session_id == conversation
    }
}

/// Where the failures are kept, and what their warnings call one.
const KIND: Kind = Kind {
    folder: "resume-failures",
    limit: &crate::bounded_read::RESUME_FAILURE,
    unreadable: "unreadable remembered failed resume",
    unparsed: "it does not parse as a remembered failure",
    unremovable: "cannot forget the failed resume",
};

pub struct ResumeFailures {
    files: TargetFile,
}

impl ResumeFailures {
    pub fn under(state_root: &Path) -> Self {
        ResumeFailures {
            files: TargetFile::under(state_root, &KIND),
        }
    }

    /// Where the failure of `tmux_target` is kept; `None` for a name that
    /// could climb out of the directory (a record's `tmuxTarget` is input).
    pub fn path(&self, tmux_target: &str) -> Option<PathBuf> {
        self.files.path(tmux_target)
    }

    /// Remembers `failure`, replacing what was kept for its session.
    pub fn record(&self, failure: &Failure) -> io::Result<()> {
        self.files.write(&failure.tmux_target, failure)
    }

    /// The failure kept for `tmux_target`; `None` when there is none, or
    /// (with a warning naming the file and why) when it cannot be read:
    /// a failure that cannot be read only lets the session be tried again.
    pub fn load(&self, tmux_target: &str) -> Option<Failure> {
        self.files.load(tmux_target)
    }

    /// Forgets the failure of `tmux_target`. Only a regular file is
    /// removed: anything else in its place is not the-loop's.
    pub fn clear(&self, tmux_target: &str) {
        self.files.remove(tmux_target)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure() -> Failure {
        Failure {
            reference: Some("github:octo/repo#1".into()),
            standing: None,
            tmux_target: "loop-github-octo-repo-1".into(),
            harness_session_id: "c-1".into(),
            at: "2026-12-06T04:00:00Z".into(),
        }
    }

    #[test]
    fn a_failure_is_kept_until_cleared_and_holds_only_for_its_conversation() {
        let root = tempfile::tempdir().unwrap();
        let store = ResumeFailures::under(root.path());
        assert_eq!(store.load("loop-github-octo-repo-1"), None);
        store.record(&failure()).unwrap();
        let kept = store.load("loop-github-octo-repo-1").unwrap();
        assert_eq!(kept, failure());
        assert!(kept.holds_for(Some("github:octo/repo#1"), None, "c-1"));
        assert!(!kept.holds_for(Some("github:octo/repo#1"), None, "c-2"));
        assert!(!kept.holds_for(None, Some("ops"), "c-1"));
        store.clear("loop-github-octo-repo-1");
        assert_eq!(store.load("loop-github-octo-repo-1"), None);
    }

    #[test]
    fn a_fifo_in_its_place_is_neither_read_nor_removed() {
        let root = tempfile::tempdir().unwrap();
        let store = ResumeFailures::under(root.path());
        let path = store.path("loop-x").unwrap();
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        nix::unistd::mkfifo(&path, nix::sys::stat::Mode::S_IRWXU).unwrap();
        assert_eq!(store.load("loop-x"), None);
        store.clear("loop-x");
        let kind = std::fs::symlink_metadata(&path).unwrap().file_type();
        assert!(std::os::unix::fs::FileTypeExt::is_fifo(&kind));
        assert!(store.path("../up").is_none() && store.path(".hidden").is_none());
    }
}
