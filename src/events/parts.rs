//! The parts [`super::Event`] variants are made of: which session an event
//! is about, and the payload shapes several variants share. Like the events,
//! they hold names, labels, pids and fingerprints: never a value.

use super::roll::Outcome;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Which session an event is about. A roll names both `ref` and `standing`
/// (one of them null), as its plan does; a lifecycle verb names the one its
/// key has. `Some(None)` writes a null, `None` leaves the field out.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct Subject {
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    pub reference: Option<Option<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub standing: Option<Option<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tmux_target: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pane_id: Option<String>,
}

impl Subject {
    /// A session as a plan names it: both fields, one null.
    pub fn planned(reference: Option<String>, standing: Option<String>) -> Self {
        Subject {
            reference: Some(reference),
            standing: Some(standing),
            ..Subject::default()
        }
    }

    pub fn work_item(reference: String) -> Self {
        Subject {
            reference: Some(Some(reference)),
            ..Subject::default()
        }
    }

    pub fn standing(name: String) -> Self {
        Subject {
            standing: Some(Some(name)),
            ..Subject::default()
        }
    }

    /// Only the tmux session, for events about a name nothing is registered under.
    pub fn tmux(target: &str) -> Self {
        Subject::default().target(target)
    }

    pub fn target(mut self, target: &str) -> Self {
        self.tmux_target = Some(target.to_owned());
        self
    }

    pub fn pane(mut self, pane_id: &str) -> Self {
        self.pane_id = Some(pane_id.to_owned());
        self
    }
}

/// The delivery a `dispatch.*` event is about.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Dispatch {
    pub delivery_id: Option<String>,
    pub via_pull_request: Option<String>,
}

/// How loud a dropped delivery is in the log.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    Warn,
    Error,
}

/// How a respawned process's environment was checked.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Verification {
    Verified,
    Unverified,
    /// The env file changed while the roll ran, and the new process holds a
    /// value its plan did not read (`reason` says which: the file's current
    /// one, or one it held in between). Not a mismatch.
    Superseded,
}

/// Why `session.harness_terminated` ended without endings.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TerminateResult {
    /// The name is not a `loop-*` session; nothing was signalled.
    Refused,
    /// Ending the harness failed.
    Failed,
}

/// A drifted session in `env.drift`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DriftedSession {
    #[serde(rename = "ref")]
    pub reference: Option<String>,
    pub standing: Option<String>,
    pub tmux_target: String,
    pub changes: Vec<super::roll::Change>,
    pub args_changes: Vec<super::roll::ArgsChange>,
}

/// A session in `env.unverified`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct UnverifiedSession {
    #[serde(rename = "ref")]
    pub reference: Option<String>,
    pub standing: Option<String>,
    pub tmux_target: String,
    pub reason: Option<String>,
}

/// An endpoint in `session.cleaned`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CleanedEndpoint {
    pub tmux_target: String,
    #[schemars(with = "serde_json::Value")]
    pub tmux: super::session::TmuxResult,
}

/// A checkout in `session.cleaned`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CleanedCheckout {
    #[schemars(with = "serde_json::Value")]
    pub action: super::session::CheckoutAction,
    #[schemars(with = "serde_json::Value")]
    pub verdict: super::session::Verdict,
}

/// A session's outcome in `apply.finished`; read back by `the-loop history`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SessionOutcome {
    #[serde(rename = "ref")]
    pub reference: Option<String>,
    pub standing: Option<String>,
    pub tmux_target: String,
    pub outcome: Outcome,
    /// Why, in words (never a value).
    pub detail: Option<String>,
    /// Whether the respawned harness reported resuming the recorded
    /// conversation; absent when it was not respawned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation: Option<super::roll::Conversation>,
}
