//! Ending the harness in a session that is being closed, and killing a
//! session outright.
//!
//! Only a `loop-*` session is ever touched, and only the pids tmux reports
//! for that session's own panes are signalled. A target that is not a
//! `loop-` name (or that carries tmux's `:`/`.` target grammar) is refused
//! before tmux is even asked for its panes.

use super::signal::{end_gracefully, Ending, ProcessHandle};
use super::spawn::{kill_session, session_panes, SpawnError};
pub use crate::events::roll::PaneEnding;
use crate::observed::fleet::SESSION_PREFIX;
use crate::observed::harness_pane;
use crate::tmux::Tmux;
use std::time::Duration;

#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum CloseError {
    #[error("{0} is not a loop-* tmux session name; the-loop only ends its own sessions")]
    #[diagnostic(code(the_loop::close::not_ours))]
    NotOurs(String),
    #[error("no pane of {target} was signalled: {why}")]
    #[diagnostic(code(the_loop::close::no_harness_pane))]
    NoHarnessPane {
        target: String,
        why: crate::observed::fleet::NoHarnessPane,
    },
    #[error("tmux session {0:?} cannot be named exactly; nothing was signalled")]
    #[diagnostic(code(the_loop::close::unaddressable))]
    Unaddressable(String),
    /// The harness pane's process is not the one the caller proved to be
    /// the record's (it was restarted, or started, in between).
    #[error("the harness in {target} changed since it was checked; nothing was signalled, run the command again")]
    #[diagnostic(code(the_loop::close::changed))]
    Changed { target: String },
    #[error(transparent)]
    Tmux(#[from] SpawnError),
}

/// The one harness process a caller proved to be the record's, by pid and
/// start time (`None`: no live harness was there when it looked).
pub type ProvenHarness = Option<(i32, Option<u64>)>;

/// Refuses anything but an exact `loop-*` session name.
pub fn guard(target: &str) -> Result<(), CloseError> {
    // Slug-derived names hold only these bytes; `:` and `.` would be read by
    // tmux as window and pane grammar, `=` as a match prefix.
    let plain = target
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if target.len() > SESSION_PREFIX.len() && target.starts_with(SESSION_PREFIX) && plain {
        Ok(())
    } else {
        Err(CloseError::NotOurs(target.to_owned()))
    }
}

/// Ends the harness in `target`'s harness pane (found by what runs in it,
/// so an operator's shell in a split of the window is never signalled nor
/// reported as the harness): remain-on-exit first so the pane and its
/// scrollback outlive the process, then SIGTERM, and SIGKILL after `grace`.
/// An absent session yields no endings; a session whose harness pane cannot
/// be told apart is refused, with nothing signalled.
pub fn end_harness(
    tmux: &Tmux,
    target: &str,
    grace: Duration,
    proven: ProvenHarness,
) -> Result<Vec<PaneEnding>, CloseError> {
    guard(target)?;
    let panes = session_panes(tmux, target)?;
    if panes.is_empty() {
        return Ok(Vec::new());
    }
    let harness = harness_pane::find(&panes).map_err(|why| CloseError::NoHarnessPane {
        target: target.to_owned(),
        why,
    })?;
    end_in(tmux, target, harness, grace, proven)
}

/// [`end_harness`] for a harness a person moved: pane `pane_id` of
/// `session`, a session whose name is theirs (renamed, or one their own
/// panes share), which the caller proved to be the record's by its
/// process ([`crate::lifecycle::owner`]). Only that pane is looked at and
/// only its proven process is signalled; a pane gone from the session is
/// `Changed`, with nothing signalled.
pub fn end_moved_harness(
    tmux: &Tmux,
    session: &str,
    pane_id: &str,
    grace: Duration,
    proven: ProvenHarness,
) -> Result<Vec<PaneEnding>, CloseError> {
    plain_name(session)?;
    let panes = session_panes(tmux, session)?;
    let harness =
        panes
            .iter()
            .find(|p| p.pane_id == pane_id)
            .ok_or_else(|| CloseError::Changed {
                target: session.to_owned(),
            })?;
    end_in(tmux, session, harness, grace, proven)
}

/// Kills pane `pane_id` of `session` (a moved harness's, after it was
/// ended), leaving the session's other panes; `true` when the session went
/// with it (it was its last pane).
pub fn kill_moved_pane(tmux: &Tmux, session: &str, pane_id: &str) -> Result<bool, CloseError> {
    plain_name(session)?;
    let pane = format!("{}.{pane_id}", super::spawn::exact_window(session));
    let out = tmux
        .run(["kill-pane", "-t", &pane])
        .map_err(SpawnError::from)?;
    let panes = session_panes(tmux, session)?;
    if panes.iter().any(|p| p.pane_id == pane_id) {
        return Err(SpawnError::Refused(out.stderr).into());
    }
    Ok(panes.is_empty())
}

/// A session name tmux cannot read as window or pane grammar (tmux itself
/// never names a session with `:` or `.`).
fn plain_name(session: &str) -> Result<(), CloseError> {
    let plain = !session.is_empty()
        && !session.starts_with('=')
        && !session
            .chars()
            .any(|c| c == ':' || c == '.' || c.is_control());
    if plain {
        Ok(())
    } else {
        Err(CloseError::Unaddressable(session.to_owned()))
    }
}

/// Ends the harness in `harness`, a pane of `target`: remain-on-exit
/// first, then SIGTERM to the proven process, SIGKILL after `grace`.
fn end_in(
    tmux: &Tmux,
    target: &str,
    harness: &crate::observed::fleet::Pane,
    grace: Duration,
    proven: ProvenHarness,
) -> Result<Vec<PaneEnding>, CloseError> {
    if let Err(err) = super::remain_on_exit::ensure(tmux, target, &harness.pane_id, None) {
        // Best-effort: an older tmux may refuse the option; the close goes on.
        tracing::warn!(session = target, error = %err, "could not re-set remain-on-exit");
    }
    // Handles are taken before tmux is asked again, so a pid that exits and
    // is reused in between is never the one signalled.
    let handles: Vec<(String, ProcessHandle)> = std::iter::once(harness)
        .filter(|p| !p.dead && p.pid > 0)
        .filter_map(|p| Some((p.pane_id.clone(), ProcessHandle::open(p.pid).ok()?)))
        .collect();
    // Checked through the handles: the process each names is the one whose
    // start time is read here, and the only one a signal can reach.
    let found = handles.first().map(|(_, handle)| {
        let start = crate::proc_env::ProcStat::read(std::path::Path::new("/proc"), handle.pid())
            .map(|stat| stat.start);
        (handle.pid(), start)
    });
    let same = match (found, proven) {
        (None, _) => true,
        (Some((pid, start)), Some((proven_pid, proven_start))) => {
            pid == proven_pid && (proven_start.is_none() || start == proven_start)
        }
        (Some(_), None) => false,
    };
    if !same {
        return Err(CloseError::Changed {
            target: target.to_owned(),
        });
    }
    let confirmed = session_panes(tmux, target)?;
    let mut endings = Vec::new();
    for (pane_id, handle) in handles {
        let still_ours = confirmed
            .iter()
            .any(|p| p.pane_id == pane_id && p.pid == handle.pid() && !p.dead);
        let ending = if still_ours {
            end_gracefully(&handle, grace)
        } else {
            Ending::AlreadyGone
        };
        endings.push(PaneEnding {
            pane_id,
            pid: handle.pid(),
            ending,
        });
    }
    Ok(endings)
}

/// Kills the session; succeeds when it is gone afterwards.
pub fn kill(tmux: &Tmux, target: &str) -> Result<(), CloseError> {
    guard(target)?;
    Ok(kill_session(tmux, target)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_loop_names_pass_the_guard() {
        for ok in ["loop-github-octo-repo-1", "loop-standing-ops"] {
            assert!(guard(ok).is_ok(), "{ok}");
        }
        for refused in [
            "",
            "loop-",
            "work",
            "my-loop-x",
            "loop-x:1",
            "loop-x.1",
            "loop-a:0.1",
            "=loop-x",
        ] {
            assert!(guard(refused).is_err(), "{refused}");
        }
    }
}
