//! What each harness is doing, as its own hooks report it.
//!
//! The harness calls `the-loop hook` on each lifecycle event (see
//! [`hook`]); the hook appends one line to a small file per harness process
//! under `<state root>/activity/` ([`store`]). This module turns those
//! lines into an [`Activity`] without any I/O, so the observation can read
//! the whole directory once and the plan stays pure.
//!
//! Only the event name, the time, the conversation id, the `source` of a
//! `SessionStart` and the harness pid are kept. A prompt, a tool input or a
//! message never is: the hook's stdin can hold anything the agent saw.

pub mod hook;
pub mod lineage;
pub mod store;
pub mod waker;

use serde::{Deserialize, Serialize};

/// The hook events the-loop subscribes to, named as Claude Code names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum HookEvent {
    SessionStart,
    UserPromptSubmit,
    PreToolUse,
    PostToolUse,
    PermissionRequest,
    Notification,
    Stop,
    StopFailure,
    SessionEnd,
}

impl HookEvent {
    pub const ALL: [HookEvent; 9] = [
        HookEvent::SessionStart,
        HookEvent::UserPromptSubmit,
        HookEvent::PreToolUse,
        HookEvent::PostToolUse,
        HookEvent::PermissionRequest,
        HookEvent::Notification,
        HookEvent::Stop,
        HookEvent::StopFailure,
        HookEvent::SessionEnd,
    ];

    pub fn name(self) -> &'static str {
        match self {
            HookEvent::SessionStart => "SessionStart",
            HookEvent::UserPromptSubmit => "UserPromptSubmit",
            HookEvent::PreToolUse => "PreToolUse",
            HookEvent::PostToolUse => "PostToolUse",
            HookEvent::PermissionRequest => "PermissionRequest",
            HookEvent::Notification => "Notification",
            HookEvent::Stop => "Stop",
            HookEvent::StopFailure => "StopFailure",
            HookEvent::SessionEnd => "SessionEnd",
        }
    }

    pub fn from_name(name: &str) -> Option<HookEvent> {
        HookEvent::ALL.into_iter().find(|e| e.name() == name)
    }
}

/// Why a `SessionStart` fired. Anything else Claude Code may add later is
/// `Other`, so a new source never makes a line unreadable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StartSource {
    Startup,
    Resume,
    Clear,
    Compact,
    #[serde(other)]
    Other,
}

impl StartSource {
    pub fn from_name(name: &str) -> StartSource {
        match name {
            "startup" => StartSource::Startup,
            "resume" => StartSource::Resume,
            "clear" => StartSource::Clear,
            "compact" => StartSource::Compact,
            _ => StartSource::Other,
        }
    }
}

/// Why a `SessionEnd` fired: Claude Code sends one of a closed set. `/clear`
/// and an in-app `/resume` end one conversation and start another in the
/// same process; `prompt_input_exit` (the person typed `/exit`, or pressed
/// Ctrl-C twice) and `logout` are the person ending the harness; `other` is
/// what a signal gives. A word outside the set is `Other`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    Clear,
    Resume,
    Logout,
    PromptInputExit,
    #[serde(other)]
    Other,
}

impl EndReason {
    pub fn from_name(name: &str) -> EndReason {
        match name {
            "clear" => EndReason::Clear,
            "resume" => EndReason::Resume,
            "logout" => EndReason::Logout,
            "prompt_input_exit" => EndReason::PromptInputExit,
            _ => EndReason::Other,
        }
    }

    /// The person ended the harness on purpose: no roll may bring it back.
    pub fn by_the_person(self) -> bool {
        matches!(self, EndReason::PromptInputExit | EndReason::Logout)
    }
}

/// One recorded hook call: one line of an activity file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HookRecord {
    pub event: HookEvent,
    /// Milliseconds since the epoch when the hook ran.
    pub at_ms: u64,
    /// The harness's conversation id (checked against the session id rule
    /// before it is written, so the file never holds arbitrary text).
    pub session_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<StartSource>,
    /// A `SessionEnd`'s reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<EndReason>,
    /// The harness process that called the hook.
    pub pid: i32,
    /// That process's start time (clock ticks after boot, `/proc/<pid>/stat`
    /// field 22), so a reused pid is never taken for the old process.
    pub start: u64,
}

/// What a harness is doing, for deciding whether it can be interrupted.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
    Default,
)]
#[serde(rename_all = "lowercase")]
pub enum Activity {
    /// Started, or its last turn ended: a safe point.
    Idle,
    /// A turn is running (a prompt was submitted, or a tool is running).
    Busy,
    /// A turn is stopped on a person: a permission request or notification.
    Waiting,
    /// No hook data: a harness started before hooks were added, or one that
    /// does not call them. (Also what a plan saved before activity was
    /// observed reads as.)
    #[default]
    Unknown,
    /// The person ended the harness (`/exit`, Ctrl-C twice, logout): its
    /// exit is their decision, and no roll respawns it.
    Ended,
    /// The hooks say a turn runs, but the screen shows none: it was
    /// interrupted (Escape, Ctrl-C, No on a dialog fire no hook). Between
    /// turns, so a safe point. Never derived from the hooks alone: the
    /// plan sets it after looking (`plan::gather`).
    Interrupted,
}

impl Activity {
    /// A turn is running: ending the harness now would interrupt it.
    pub fn in_turn(self) -> bool {
        matches!(self, Activity::Busy | Activity::Waiting)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Activity::Idle => "idle",
            Activity::Busy => "busy",
            Activity::Waiting => "waiting",
            Activity::Unknown => "unknown",
            Activity::Ended => "ended",
            Activity::Interrupted => "interrupted",
        }
    }
}

impl std::fmt::Display for Activity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The activity of one harness process, derived from its records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HarnessActivity {
    pub pid: i32,
    /// The process's start time, as recorded (see [`HookRecord::start`]).
    pub start: u64,
    pub activity: Activity,
    /// When the running turn began (the event that left idle), for
    /// "busy since"; `None` when idle or unknown.
    pub since_ms: Option<u64>,
    /// The last conversation id the harness reported.
    pub session_id: Option<String>,
    /// Every conversation id this process reported resuming at its start.
    pub resumed: Vec<String>,
    /// The conversation the person is in: the id of this process's last
    /// `SessionStart` (at its start, or after `/clear` or an in-app
    /// `/resume`, which start another conversation in the same process).
    pub conversation: Option<String>,
    /// The time of the last recorded event.
    pub last_ms: Option<u64>,
    /// The source of this process's latest `SessionStart`.
    pub last_start: Option<StartSource>,
    /// Whether this process reported anything of a turn (a prompt, a tool,
    /// a question, a turn's end) since its latest `SessionStart`: what a
    /// conversation that never began has none of.
    pub had_a_turn: bool,
}

/// Folds one process's records, oldest first, into its activity.
///
/// A `Notification` only counts as waiting during a turn: Claude Code also
/// notifies when its prompt has sat idle for a while, and that must not
/// make an idle harness look as if it needed a person. `SessionEnd` means
/// the conversation is over, which no turn survives: the harness is
/// `ended` when the person ended it ([`EndReason::by_the_person`]), idle
/// otherwise (a `/clear`, an in-app `/resume`, a signal).
pub fn derive(pid: i32, start: u64, records: &[HookRecord]) -> HarnessActivity {
    let mut state = Activity::Unknown;
    let mut since_ms = None;
    let mut session_id = None;
    let mut resumed: Vec<String> = Vec::new();
    let mut conversation = None;
    let mut last_ms = None;
    let mut last_start = None;
    let mut had_a_turn = false;
    for record in records.iter().filter(|r| r.pid == pid && r.start == start) {
        last_ms = Some(record.at_ms);
        match record.event {
            HookEvent::SessionStart => {
                last_start = Some(record.source.unwrap_or(StartSource::Other));
                had_a_turn = false;
            }
            HookEvent::SessionEnd | HookEvent::Notification => {}
            _ => had_a_turn = true,
        }
        session_id = Some(record.session_id.clone());
        let next = match record.event {
            HookEvent::SessionStart => {
                conversation = Some(record.session_id.clone());
                if record.source == Some(StartSource::Resume)
                    && !resumed.contains(&record.session_id)
                {
                    resumed.push(record.session_id.clone());
                }
                Activity::Idle
            }
            HookEvent::SessionEnd if record.reason.is_some_and(EndReason::by_the_person) => {
                Activity::Ended
            }
            HookEvent::Stop | HookEvent::StopFailure | HookEvent::SessionEnd => Activity::Idle,
            HookEvent::UserPromptSubmit | HookEvent::PreToolUse | HookEvent::PostToolUse => {
                Activity::Busy
            }
            HookEvent::PermissionRequest => Activity::Waiting,
            HookEvent::Notification => match state {
                Activity::Busy | Activity::Waiting => Activity::Waiting,
                Activity::Idle | Activity::Unknown | Activity::Ended | Activity::Interrupted => {
                    Activity::Idle
                }
            },
        };
        let in_turn = |a: Activity| matches!(a, Activity::Busy | Activity::Waiting);
        if in_turn(next) && !in_turn(state) {
            since_ms = Some(record.at_ms);
        } else if !in_turn(next) {
            since_ms = None;
        }
        state = next;
    }
    HarnessActivity {
        pid,
        start,
        activity: state,
        since_ms,
        session_id,
        resumed,
        conversation,
        last_ms,
        last_start,
        had_a_turn,
    }
}

impl HarnessActivity {
    /// No records at all for a process: what a harness without hooks gets.
    pub fn unknown(pid: i32) -> HarnessActivity {
        HarnessActivity {
            pid,
            start: 0,
            activity: Activity::Unknown,
            since_ms: None,
            session_id: None,
            resumed: Vec::new(),
            conversation: None,
            last_ms: None,
            last_start: None,
            had_a_turn: false,
        }
    }

    /// The readiness check: this process reported, through its harness,
    /// that it resumed conversation `session_id`.
    pub fn confirmed_resume(&self, session_id: &str) -> bool {
        self.resumed.iter().any(|id| id == session_id)
    }

    /// This process started conversation `session_id` new at its start
    /// (`SessionStart` source `startup`, not `clear` or `resume`), is still
    /// in it, and has reported no turn in it: nothing was ever typed into it.
    pub fn never_prompted(&self, session_id: &str) -> bool {
        self.last_start == Some(StartSource::Startup)
            && self.conversation.as_deref() == Some(session_id)
            && !self.had_a_turn
            && self.activity != Activity::Ended
    }

    /// When the running turn began, if one is running.
    pub fn busy_since_ms(&self) -> Option<u64> {
        match self.activity {
            Activity::Busy | Activity::Waiting => self.since_ms,
            Activity::Idle | Activity::Unknown | Activity::Ended | Activity::Interrupted => None,
        }
    }
}

#[cfg(test)]
mod tests;
