//! The session lifecycle's vocabulary, as the event log writes it: how a
//! text got in, what became of a tmux session and a checkout, why a
//! cleanup waited, and what a launch dropped. Defined here, below the verbs
//! that decide them, so the event log depends on none of them.

use serde::Serialize;

/// Why a closure did not clean up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Deferral {
    NoActor,
    UnauthorizedActor,
}

/// How a delivered text got in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Route {
    /// Pasted into the running harness.
    Pasted,
    /// The harness was respawned with the text as its boot prompt.
    Respawned,
    /// A respawn was due but a live occupant held the name: pasted into it.
    RespawnAverted,
}

/// What became of the tmux session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TmuxResult {
    /// Kept, with its pane and scrollback.
    Retained,
    /// Killed.
    Killed,
    /// The harness's own pane was killed, and the session it had been
    /// moved into, which holds a person's panes too, was kept.
    PaneKilled,
    /// There was no such session.
    Absent,
    /// Refused or not confirmed; see `problems`.
    Untouched,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CheckoutAction {
    Removed,
    Kept,
    Failed,
}

/// Whether a checkout may be deleted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    Remove,
    /// No `routing.workspace.root` is configured: nothing is ever deleted.
    KeepNoWorkspaceRoot,
    /// Outside the workspace root (after resolving symlinks).
    KeepOutsideWorkspaceRoot,
    /// The workspace root itself.
    KeepIsWorkspaceRoot,
    /// A symlink: following it could delete what it points at.
    KeepSymlink,
}

/// A model or effort level that was asked for and will not be passed on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Dropped {
    /// `model` or `effort`.
    pub what: &'static str,
    pub value: String,
    pub why: String,
}
