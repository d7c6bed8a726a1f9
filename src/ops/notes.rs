//! What an operation has to tell the operator while it runs, before its
//! report exists (or when it never will: a failed start, an attach that
//! execs tmux). The op hands each [`Note`] to a [`Notes`] sink the command
//! line provides; `views::notes` words it. Ops themselves never print.

use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    /// `sessions start` of a pull request linked to a work item starts the item.
    LinkedTo { reference: String, owner: String },
    /// The ref is recorded with other letter case; the recorded one starts.
    RecordedAs {
        reference: String,
        canonical: String,
    },
    /// `--fresh` replaces the recorded conversation (its transcript stays).
    FreshConversation { recorded: String },
    /// A launch argument the config no longer allows is left out.
    LaunchArgDropped { dropped: String },
    /// A failed start could not put the record back as it was.
    RecordNotRestored { error: String },
    /// `sessions cleanup` could not read the record and goes by the ref.
    CleanupWithoutRecord { error: String },
    /// `sessions reset --all` skips a record it cannot read.
    CorruptNotReset { path: PathBuf, reason: String },
    /// A closed session is attached read-only.
    ClosedReadOnly { label: String },
}

/// Where an operation's notes go; the command line implements it.
pub trait Notes {
    fn note(&self, note: Note);
}
