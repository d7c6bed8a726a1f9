//! Giving the pane of a harness a person started the record's own tmux
//! session name (`the-loop import`). Only session names change, and a pane
//! moves to a session of its own when it shares one: the pane itself, its
//! id, its process and its scrollback are never touched here.

use super::spawn::{exact, exact_window, session_panes, SpawnError};
use crate::tmux::Tmux;
use serde::Serialize;

/// How the pane came to be in a session with the record's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Naming {
    /// Its session had the name already.
    Kept,
    /// It was its session's only pane: the session was renamed, with its
    /// window and pane as they were.
    Renamed,
    /// Its session holds other panes too: it was moved to a new session of
    /// that name, as the one window there; the other panes stay where they
    /// were.
    Moved,
}

impl Naming {
    /// The word the JSON and the event log use.
    pub fn as_str(self) -> &'static str {
        match self {
            Naming::Kept => "kept",
            Naming::Renamed => "renamed",
            Naming::Moved => "moved",
        }
    }
}

/// Puts `pane_id`, now in `session` (where `alone` says it is the only
/// pane), in a session named `name`, which must not exist unless it is
/// `session` itself.
pub fn take(
    tmux: &Tmux,
    pane_id: &str,
    session: &str,
    alone: bool,
    name: &str,
) -> Result<Naming, SpawnError> {
    if session == name {
        return Ok(Naming::Kept);
    }
    if alone {
        // A pane id names its session for tmux, whatever that session's
        // name holds (`:` and `.` would be read as window and pane).
        let out = tmux.run(["rename-session", "-t", pane_id, name])?;
        return if out.success {
            Ok(Naming::Renamed)
        } else {
            Err(SpawnError::Refused(out.stderr))
        };
    }
    // A new session whose first window is a placeholder, the pane broken
    // out into a window of its own there, then the placeholder gone: one
    // tmux call, which stops at the first command that fails.
    let window = exact_window(name);
    let first_window = format!("{}^", exact_window(name));
    let out = tmux.run([
        "new-session",
        "-d",
        "-s",
        name,
        "--",
        "sleep",
        "60",
        ";",
        "break-pane",
        "-d",
        "-s",
        pane_id,
        "-t",
        &window,
        ";",
        "kill-window",
        "-t",
        &first_window,
    ])?;
    if out.success {
        return Ok(Naming::Moved);
    }
    // The pane did not move: the placeholder session is not left behind.
    let moved = session_panes(tmux, name)?
        .iter()
        .any(|p| p.pane_id == pane_id);
    if !moved {
        let _ = tmux.run(["kill-session", "-t", &exact(name)]);
        return Err(SpawnError::Refused(out.stderr));
    }
    // Moved, and only the placeholder window is left over.
    kill_placeholder(tmux, name, pane_id)?;
    Ok(Naming::Moved)
}

/// Kills every pane of the new session `name` other than `pane_id`: the
/// placeholder, which no one has used.
fn kill_placeholder(tmux: &Tmux, name: &str, pane_id: &str) -> Result<(), SpawnError> {
    for pane in session_panes(tmux, name)?
        .iter()
        .filter(|p| p.pane_id != pane_id)
    {
        let _ = tmux.run(["kill-pane", "-t", &pane.pane_id]);
    }
    Ok(())
}

/// Undoes [`take`] as far as it can, for an import that failed after it:
/// a renamed session gets its name back; a moved pane stays in its new
/// session (its old window cannot be put back), which is said.
pub fn undo(tmux: &Tmux, naming: Naming, pane_id: &str, session: &str) -> Result<(), String> {
    match naming {
        Naming::Kept | Naming::Moved => Ok(()),
        Naming::Renamed => {
            let out = tmux
                .run(["rename-session", "-t", pane_id, session])
                .map_err(|e| e.to_string())?;
            if out.success {
                Ok(())
            } else {
                Err(out.stderr)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_first_window_target_is_exact() {
        assert_eq!(format!("{}^", super::exact_window("loop-x")), "=loop-x:^");
    }
}
