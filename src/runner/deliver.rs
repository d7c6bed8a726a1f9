//! Putting text into a pane: a bracketed paste of the text, then a
//! separate, unbracketed paste of a carriage return that submits it.
//!
//! The text is outside input: it goes through [`TypedText::from_outside`]
//! here, the one way into a pane, so no byte of it can submit, interrupt,
//! change a mode or run anything. tmux brackets a paste only when the
//! pane's visible screen asked for it, and a pane an operator put in copy
//! mode shows copy mode's screen: there the paste would arrive unbracketed,
//! each line a submitted prompt. So each paste is refused, inside the same
//! tmux command, while the pane is in a mode; nothing is pasted, and the
//! delivery is retried later like any other that may pass.
//!
//! Both halves are `load-buffer` (the text arrives on tmux's stdin, never in
//! an argv) followed by `paste-buffer` on a named buffer that is deleted as
//! it is pasted. No command here resolves a client: `send-keys` would take
//! the session's current client as its target client, and an operator
//! attached read-only would then make tmux refuse the delivery.

use crate::tmux::{means_no_session, Tmux, TmuxError};
use crate::typed_text::TypedText;

/// Why a paste did not happen.
#[derive(Debug, thiserror::Error)]
pub enum PasteError {
    /// tmux answered that the session or pane does not exist.
    #[error("tmux has no such session or pane")]
    Gone,
    /// The pane is in a mode (an operator's copy mode): nothing was pasted.
    #[error("the pane is in copy mode (or another tmux mode); nothing was pasted, so a redelivery retries it")]
    InMode,
    /// tmux answered with an error.
    #[error("tmux refused the paste: {0}")]
    Refused(String),
    /// tmux did not answer, or could not be run.
    #[error(transparent)]
    Tmux(#[from] TmuxError),
}

/// What the refusal prints, for this module to recognise.
const IN_MODE: &str = "the-loop-pane-in-mode";

/// The submit keystroke: what Enter sends.
const SUBMIT: &[u8] = b"\r";

/// Pastes `text` into `target` (a pane id such as `%3`, or `=session:`),
/// then submits it.
pub fn paste_and_submit(tmux: &Tmux, target: &str, text: &str) -> Result<(), PasteError> {
    paste_text(tmux, target, text)?;
    submit(tmux, target)
}

/// The first half of [`paste_and_submit`]: the text, bracketed, not submitted.
pub fn paste_text(tmux: &Tmux, target: &str, text: &str) -> Result<(), PasteError> {
    let typed = TypedText::from_outside(text);
    paste(tmux, target, typed.as_str().as_bytes(), true)
}

/// The second half of [`paste_and_submit`]: the submit keystroke alone.
pub fn submit(tmux: &Tmux, target: &str) -> Result<(), PasteError> {
    paste(tmux, target, SUBMIT, false)
}

fn paste(tmux: &Tmux, target: &str, bytes: &[u8], bracketed: bool) -> Result<(), PasteError> {
    // A buffer of our own per paste: concurrent deliveries to other sessions
    // never paste each other's text, and an operator's buffers are untouched.
    let buffer = format!("the-loop-{}", uuid::Uuid::new_v4().simple());
    // Targets are pane ids (`%3`) or `=name:` of names the-loop built; a
    // quote would end the word below early.
    if target.contains(['\'', '\\', ';']) {
        return Err(PasteError::Refused(format!("unsafe target {target:?}")));
    }
    let paste = format!(
        "paste-buffer -d -b {buffer} -t '{target}'{}",
        if bracketed { " -p" } else { "" }
    );
    let refuse = format!("delete-buffer -b {buffer} ; display-message -p {IN_MODE}");
    let args = [
        "load-buffer",
        "-b",
        &buffer,
        "-",
        ";",
        "if-shell",
        "-F",
        "-t",
        target,
        "#{pane_in_mode}",
        &refuse,
        &paste,
    ];
    let out = tmux.run_with_input(args, Some(bytes))?;
    if out.success && out.stdout.contains(IN_MODE) {
        return Err(PasteError::InMode);
    }
    if out.success {
        return Ok(());
    }
    // The paste failed after the load: do not leave the text in tmux.
    let _ = tmux.run(["delete-buffer", "-b", &buffer]);
    if means_no_session(&out.stderr) {
        Err(PasteError::Gone)
    } else {
        Err(PasteError::Refused(out.stderr))
    }
}
