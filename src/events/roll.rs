//! The roll's vocabulary: which verb rolled, what became of each session,
//! what differed, and how a harness ended. These are the words the event
//! log writes (`schemas/events.schema.json`), so they are defined here, at
//! the bottom, and the roll, the plan and `watch` speak them; each keeps its
//! behaviour (`impl` blocks) beside the code that decides them.

use crate::secret::Shown;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Which verb runs the roll: its name goes into the apply lock and into
/// the `apply.*` events, where `watch`'s rolls are told apart by it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum RollCommand {
    #[serde(rename = "apply")]
    Apply,
    #[serde(rename = "sessions restart")]
    SessionsRestart,
    #[serde(rename = "standing restart")]
    StandingRestart,
    #[serde(rename = "watch")]
    Watch,
    // A delivery relaunching a session whose launch arguments drifted.
    #[serde(rename = "sessions deliver")]
    Deliver,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Respawned, resumed, and the new process holds the desired environment.
    Restarted,
    /// Respawned and resumed; its environment could not be read.
    RestartedUnverified,
    /// Respawned, but the new process does not hold the desired environment.
    Mismatch,
    /// Respawned, but the harness did not stay up: the conversation did not resume.
    ResumeFailed,
    /// Not touched: its conversation cannot be resumed, its new launch could
    /// not start (so its harness was never signalled), or it changed under us.
    LeftAlone,
    /// Registered but not running (or not observable); never started.
    Skipped,
    /// Already holds the desired environment.
    UpToDate,
    /// Not reached, and never touched: the canary failed, an earlier session
    /// failed its verification (the roll stops at the first failure), or the
    /// run was interrupted. `detail` says which.
    NotAttempted,
    /// Dry run: this session would be respawned.
    WouldRestart,
    /// Not touched, and still stale: its turn was still running at the end
    /// of `--drain-timeout`, or a client is attached (without
    /// `--include-attached`). `detail` says which, and since when.
    Deferred,
    /// Respawned, but the new harness stopped at a known blocking screen (a
    /// dialog waiting for a person); `detail` names the screen.
    Blocked,
    /// The env file was rewritten under the roll, so what the plan read is
    /// no longer the value to roll onto. Either respawned meanwhile: the new
    /// process holds a value the plan did not read (the file's current one,
    /// or one it held in between; `detail` says which; `new_pid` is set).
    /// Or not reached, and never touched: the roll stopped before it for
    /// the newer value (`detail` says "the env file changed during the
    /// roll"; no `new_pid`). Not a failure of the session: the next plan,
    /// on the newer value, says what is left.
    Superseded,
}

/// Whether the respawned harness itself reported resuming the recorded
/// conversation (its `SessionStart` hook with source `resume` and that id).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Conversation {
    /// The new process reported resuming the recorded conversation id
    /// within the probe window.
    Confirmed,
    /// The pane is live, but no such report came (a harness without hooks,
    /// or one that resumed something else). Distinct, not a failure.
    Unconfirmed,
}

/// One name in one clearable layer.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, JsonSchema)]
pub struct ScrubTarget {
    pub layer: Layer,
    pub session: Option<String>,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum Decision {
    /// Roll it now: first seen for this desired state, or retried after a change.
    Roll { retry: bool },
    /// Already respawned for this desired state; never again for it.
    AlreadyRolled { outcome: Outcome },
    /// Its last attempt failed and nothing about it has changed since.
    Unchanged {
        outcome: Outcome,
        detail: Option<String>,
    },
    /// It changed since its last attempt failed; retried once the backoff ends.
    Backoff { until: u64, outcome: Outcome },
}

/// One differing name: fingerprints only; `None` means absent, and
/// `withheld` a guessable value whose fingerprint the mode does not show.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Change {
    pub name: String,
    pub have: Option<Shown>,
    pub want: Option<Shown>,
    pub case: ChangeCase,
}

/// One launch argument that differs. `have` and `want` are argv words
/// (`[]`: absent). Arguments are never secret: no value reaches an argv.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ArgsChange {
    pub name: ArgsField,
    pub have: Vec<String>,
    pub want: Vec<String>,
    /// Set when the record asks for something the config no longer allows,
    /// which is why `want` lacks it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dropped: Option<String>,
}

/// How the harness ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Ending {
    /// Exited within the grace period after SIGTERM.
    Terminated,
    /// Needed SIGKILL.
    Killed,
    /// Was already gone.
    AlreadyGone,
    /// Still there even after SIGKILL.
    Survived,
}

/// How one pane's harness ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct PaneEnding {
    pub pane_id: String,
    pub pid: i32,
    pub ending: Ending,
}

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Layer {
    /// `tmux show-environment -g`: inherited by every new pane.
    TmuxGlobal,
    /// `tmux show-environment -t =SESSION`: inherited by that session's new panes.
    TmuxSession,
    /// `/proc/<tmux server pid>/environ`.
    ServerEnviron,
    /// `/proc/<tmux server pid>/cmdline`: the argv of the client that started the server.
    ServerArgv,
}

/// Why a name is in a plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ChangeCase {
    /// A withheld name holds a value that is not the file's current one
    /// (the reporter's case), or a delivered name holds an old value.
    Stale,
    /// A withheld name holds exactly the file's current value.
    Exposed,
    /// A delivered name is absent.
    Missing,
    /// One of the-loop's own identifiers is absent or wrong.
    Identifier,
}

/// Which launch argument differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ArgsField {
    /// `--model M`
    Model,
    /// `--effort E`
    Effort,
    /// The harness arguments before them.
    HarnessArgs,
    /// Claude Code's `apiKeyHelper`, set in the settings layer the launcher
    /// writes: a harness launched before the env file delivered its key
    /// through the helper has none, and only a relaunch gives it one.
    KeyHelper,
}
