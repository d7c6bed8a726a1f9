//! Whether a harness is ready to take a delivery. Text pasted while the
//! launcher is still running, or while the harness is starting, is lost:
//! a TUI that takes over the terminal drops what was typed before. So a
//! paste waits, bounded, until the harness pane shows that it is ready:
//!
//! - the pane is alive and its process is no longer the-loop's launcher
//!   (`<the-loop> exec … --work-item|--standing …`): the launcher has
//!   exec'd the harness;
//! - the pane shows something other than blanks: the harness has drawn its
//!   screen, which it does once it reads input.
//!
//! The screen is only tested for non-blank characters; it is never kept,
//! logged or printed (it can show anything).

use crate::observed::Pane;
use crate::tmux::Tmux;
use std::time::{Duration, Instant};

/// `--ready-timeout`'s default: Claude Code is usually drawn within seconds.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// How often the pane is looked at while waiting.
const POLL: Duration = Duration::from_millis(100);

/// Why a harness was not found ready.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotReady {
    /// The pane still runs the-loop's launcher.
    Launcher,
    /// The pane's process is gone or its command line cannot be read.
    NoProcess,
    /// The harness has not drawn anything yet.
    BlankScreen,
    /// tmux did not show the pane's screen.
    NoScreen,
}

impl NotReady {
    pub fn describe(self) -> &'static str {
        match self {
            NotReady::Launcher => "the pane still runs the-loop's launcher",
            NotReady::NoProcess => "the pane's process cannot be read",
            NotReady::BlankScreen => "the harness has not drawn its screen",
            NotReady::NoScreen => "tmux did not show the pane's screen",
        }
    }
}

/// Waits until the harness in `pane` is ready, for at most `timeout`
/// (zero: look once). Returns the last reason it was not ready.
pub fn wait(tmux: &Tmux, pane: &Pane, timeout: Duration) -> Result<(), NotReady> {
    // A timeout too large to add to now is waited as "until ready": the
    // flag's range makes that unreachable, but never panic on it.
    let deadline = Instant::now().checked_add(timeout);
    loop {
        let why = match check(tmux, pane) {
            Ok(()) => return Ok(()),
            Err(why) => why,
        };
        let now = Instant::now();
        let left = match deadline {
            Some(d) => d.checked_duration_since(now).unwrap_or(Duration::ZERO),
            None => POLL,
        };
        if left.is_zero() {
            return Err(why);
        }
        std::thread::sleep(left.min(POLL));
    }
}

fn check(tmux: &Tmux, pane: &Pane) -> Result<(), NotReady> {
    let argv = cmdline(pane.pid).ok_or(NotReady::NoProcess)?;
    if runs_launcher(&argv) {
        return Err(NotReady::Launcher);
    }
    let out = tmux
        .run(["capture-pane", "-p", "-t", pane.pane_id.as_str()])
        .map_err(|_| NotReady::NoScreen)?;
    if !out.success {
        return Err(NotReady::NoScreen);
    }
    if out.stdout.chars().all(char::is_whitespace) {
        return Err(NotReady::BlankScreen);
    }
    Ok(())
}

fn cmdline(pid: i32) -> Option<Vec<String>> {
    let raw = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    let argv: Vec<String> = raw
        .split(|b| *b == 0)
        .filter(|a| !a.is_empty())
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    (!argv.is_empty()).then_some(argv)
}

/// The launcher's argv: `<bin> exec [options naming the identity] -- …`.
fn runs_launcher(argv: &[String]) -> bool {
    argv.get(1).map(String::as_str) == Some(crate::runner::launch::LAUNCHER_SUBCOMMAND)
        && argv
            .iter()
            .skip(2)
            .take_while(|a| a.as_str() != "--")
            .any(|a| a == "--work-item" || a == "--standing")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split(' ').map(String::from).collect()
    }

    #[test]
    fn the_launcher_is_told_from_the_harness() {
        assert!(runs_launcher(&words(
            "/bin/the-loop exec --work-item github:o/r#1 -- claude --session-id x"
        )));
        assert!(!runs_launcher(&words("claude --session-id x")));
        // "exec" and "--work-item" only after "--" belong to the harness.
        assert!(!runs_launcher(&words(
            "/bin/the-loop exec -- claude --work-item"
        )));
        assert!(!runs_launcher(&[]));
    }
}
