//! The words of an operation's running notes (`ops::notes::Note`), as they
//! appear on stderr.

use crate::ops::notes::Note;

pub fn render(note: &Note) -> String {
    match note {
        Note::LinkedTo { reference, owner } => {
            format!("note: {reference} is linked to {owner}; starting {owner}'s session.")
        }
        Note::RecordedAs {
            reference,
            canonical,
        } => format!(
            "note: {reference} is recorded as {canonical} (owner and repository match without regard to case); starting {canonical}'s session."
        ),
        Note::FreshConversation { recorded } => format!(
            "note: starting a fresh conversation (--fresh); the recorded conversation {recorded} is no longer the session's, its transcript is kept."
        ),
        Note::LaunchArgDropped { dropped } => format!("warning: {dropped}; starting without it"),
        Note::RecordNotRestored { error } => {
            format!("warning: the record could not be put back as it was: {error}")
        }
        Note::CleanupWithoutRecord { error } => {
            format!("warning: {error}; cleaning up from the ref alone")
        }
        Note::CorruptNotReset { path, reason } => format!(
            "warning: registry record {} cannot be read ({reason}); not reset",
            path.display()
        ),
        Note::ClosedReadOnly { label } => format!(
            "note: {label} is closed; attaching read-only so its retained transcript cannot be typed into."
        ),
    }
}
