//! A person's own tmux session, as the tests of harnesses the-loop did not
//! start need one (`tests/it/unmanaged.rs`, `tests/it/real_claude_import.rs`).

use super::{Pane, World};
use std::path::Path;

impl World {
    /// Starts the person's own session `name` in `cwd`, its environment
    /// given `setting` (`NAME=VALUE`, as their profile would), and types
    /// `command` at its shell. Returns the session's pane.
    pub fn typed_in_own_session(
        &self,
        name: &str,
        cwd: &Path,
        setting: &str,
        command: &str,
    ) -> Pane {
        self.tmux_ok(&[
            "new-session",
            "-d",
            "-s",
            name,
            "-c",
            cwd.to_str().unwrap(),
            "-e",
            setting,
        ]);
        let target = format!("={name}:");
        self.tmux_ok(&["send-keys", "-t", &target, "-l", command]);
        self.tmux_ok(&["send-keys", "-t", &target, "Enter"]);
        self.pane(name).expect("the person's pane")
    }
}
