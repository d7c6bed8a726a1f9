//! remain-on-exit on the harness's own pane, made sure of before a harness
//! is ended: it is what keeps the pane (and so the session, its scrollback
//! and the place a respawn runs in) when the process exits.
//!
//! Two things shape this module:
//!
//! - tmux 3 keeps the option per pane, and a pane's own value wins over its
//!   window's: `set-option -w … on` leaves a pane set `off` with `-p` still
//!   off, and its session then vanishes with the harness. So the value is
//!   read where it acts, the pane (`show-options -pvA`: its own, else its
//!   window's, else the global one), and set there when it is not `on`.
//! - Setting any option makes tmux 3.3 walk every session and window
//!   (`options_push_changes`: each session's status cache, every window's
//!   size): about 0.5 ms of the server's one thread per set at 500 sessions.
//!   A roll that set it on every session spent O(N²) there; reading costs
//!   what any command costs, and the-loop's own sessions are born with it on.
//!
//! Panes are addressed as `=session:.%N`: the exact session, then the pane
//! by id within it, so a session renamed away (or a pane moved out of it)
//! is refused, never read or changed under another name.

use super::batch::{Answer, Run};
use super::spawn::{command, exact_window, on_window, SpawnError};
use std::ffi::OsString;

/// The query [`ensure`] reads, for a caller that batches it with others:
/// prints the value that holds for the pane (`on`, `off` or `failed`).
pub fn query(session: &str, pane_id: &str) -> Vec<OsString> {
    command([
        "show-options",
        "-pvA",
        "-t",
        &exact_pane(session, pane_id),
        "remain-on-exit",
    ])
}

/// Makes sure remain-on-exit is `on` for `pane_id` in `session`. `asked` is
/// the answer to [`query`] when the caller sent it already; otherwise it is
/// asked here. Only `on` is enough: `failed` drops a pane whose process
/// exits 0, as a harness may on SIGTERM. When it is not `on`, or tmux
/// refused the question, it is set on the pane; a tmux that has no pane
/// options (`-p` refused) has it set on the window instead, as before. The
/// error is the last refusal; a tmux that did not answer is not asked again.
pub fn ensure(
    tmux: &dyn Run,
    session: &str,
    pane_id: &str,
    asked: Option<Answer>,
) -> Result<(), SpawnError> {
    let asked = asked.unwrap_or_else(|| tmux.run_command(query(session, pane_id)))?;
    if asked.success && asked.stdout.trim_end() == "on" {
        return Ok(());
    }
    let on_pane = set(tmux.run_command(command([
        "set-option",
        "-p",
        "-t",
        &exact_pane(session, pane_id),
        "remain-on-exit",
        "on",
    ])));
    match on_pane {
        Err(SpawnError::Refused(_)) => set(tmux.run_command(on_window(session))),
        done => done,
    }
}

/// Reads the answer to a `set-option`.
fn set(answer: Answer) -> Result<(), SpawnError> {
    let out = answer?;
    if out.success {
        Ok(())
    } else {
        Err(SpawnError::Refused(out.stderr))
    }
}

/// `=session:.%N`: the pane `%N`, only if it is in exactly `session`.
fn exact_pane(session: &str, pane_id: &str) -> String {
    format!("{}.{pane_id}", exact_window(session))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tmux::{TmuxError, TmuxOutput};
    use std::sync::Mutex;

    /// Answers each command from `answers` in turn and records what it was asked.
    struct Scripted {
        answers: Mutex<Vec<Answer>>,
        asked: Mutex<Vec<Vec<String>>>,
    }

    impl Scripted {
        fn new(answers: Vec<Answer>) -> Self {
            Scripted {
                answers: Mutex::new(answers.into_iter().rev().collect()),
                asked: Mutex::new(Vec::new()),
            }
        }
        fn asked(&self) -> Vec<String> {
            self.asked
                .lock()
                .unwrap()
                .iter()
                .map(|c| c.join(" "))
                .collect()
        }
    }

    impl Run for Scripted {
        fn run_command(&self, args: Vec<OsString>) -> Answer {
            let words = args
                .iter()
                .map(|w| w.to_string_lossy().into_owned())
                .collect();
            self.asked.lock().unwrap().push(words);
            self.answers.lock().unwrap().pop().expect("no more answers")
        }
    }

    fn said(stdout: &str) -> Answer {
        Ok(TmuxOutput {
            success: true,
            stdout: stdout.into(),
            stderr: String::new(),
        })
    }

    fn refused(stderr: &str) -> Answer {
        Ok(TmuxOutput {
            success: false,
            stdout: String::new(),
            stderr: stderr.into(),
        })
    }

    #[test]
    fn on_already_sets_nothing() {
        let tmux = Scripted::new(vec![]);
        assert!(ensure(&tmux, "loop-a", "%3", Some(said("on\n"))).is_ok());
        assert!(tmux.asked().is_empty());
    }

    #[test]
    fn asks_when_the_caller_did_not() {
        let tmux = Scripted::new(vec![said("on\n")]);
        assert!(ensure(&tmux, "loop-a", "%3", None).is_ok());
        assert_eq!(
            tmux.asked(),
            ["show-options -pvA -t =loop-a:.%3 remain-on-exit"]
        );
    }

    #[test]
    fn off_or_failed_is_set_on_the_pane() {
        for value in ["off\n", "failed\n", ""] {
            let tmux = Scripted::new(vec![said("")]);
            assert!(ensure(&tmux, "loop-a", "%3", Some(said(value))).is_ok());
            assert_eq!(
                tmux.asked(),
                ["set-option -p -t =loop-a:.%3 remain-on-exit on"]
            );
        }
    }

    #[test]
    fn a_tmux_without_pane_options_has_it_set_on_the_window() {
        let tmux = Scripted::new(vec![refused("unknown flag -p"), said("")]);
        let asked = Some(refused("unknown flag -p"));
        assert!(ensure(&tmux, "loop-a", "%3", asked).is_ok());
        assert_eq!(
            tmux.asked(),
            [
                "set-option -p -t =loop-a:.%3 remain-on-exit on",
                "set-option -w -t =loop-a: remain-on-exit on"
            ]
        );
    }

    #[test]
    fn the_last_refusal_is_the_error() {
        let tmux = Scripted::new(vec![
            refused("no such pane"),
            refused("no such window: =loop-a:"),
        ]);
        let err = ensure(&tmux, "loop-a", "%3", Some(refused("no such pane"))).unwrap_err();
        assert!(err.to_string().contains("no such window"), "{err}");
    }

    #[test]
    fn an_unanswered_question_is_not_followed_by_a_set() {
        let tmux = Scripted::new(vec![]);
        let silent = Some(Err(TmuxError::TimedOut(std::time::Duration::from_secs(1))));
        let err = ensure(&tmux, "loop-a", "%3", silent).unwrap_err();
        assert!(matches!(err, SpawnError::Tmux(_)), "{err}");
        assert!(tmux.asked().is_empty());
    }

    #[test]
    fn a_silent_tmux_is_not_asked_again() {
        let tmux = Scripted::new(vec![Err(TmuxError::TimedOut(
            std::time::Duration::from_secs(1),
        ))]);
        let err = ensure(&tmux, "loop-a", "%3", Some(said("off"))).unwrap_err();
        assert!(matches!(err, SpawnError::Tmux(_)), "{err}");
        assert_eq!(tmux.asked().len(), 1);
    }
}
