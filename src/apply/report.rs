//! The apply report: one line per session, and the same as JSON.

use crate::desired::envfile::Reading;
pub use crate::events::roll::Conversation;
pub use crate::events::roll::Outcome;
use crate::plan::change::Change;
use crate::plan::SessionPlan;
use schemars::JsonSchema;
use serde::Serialize;

impl Outcome {
    /// Outcomes that leave a live session stale and make the command exit 1.
    pub fn is_failure(self) -> bool {
        matches!(
            self,
            Outcome::Mismatch | Outcome::ResumeFailed | Outcome::LeftAlone | Outcome::Blocked
        )
    }

    pub fn respawned(self) -> bool {
        matches!(
            self,
            Outcome::Restarted
                | Outcome::RestartedUnverified
                | Outcome::Superseded
                | Outcome::Mismatch
                | Outcome::ResumeFailed
                | Outcome::Blocked
        )
    }
}

/// Why a session was not attempted: the roll stopped before it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop {
    /// A signal (Ctrl-C, SIGTERM, SIGHUP) stopped new respawns.
    Interrupted,
    /// The canary (this label) failed, so nothing else was touched.
    CanaryFailed(String),
    /// An earlier session (this label) failed its verification.
    AfterFailure(String),
    /// The env file changed since the plan read it: what the plan says a
    /// session must hold is no longer what the file declares.
    EnvFileChanged,
    /// These sessions' harnesses exited at once when earlier rolls resumed
    /// them ([`super::failures::STOP_AFTER`] or more): no canary is taken.
    ResumesFailed(Vec<String>),
}

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stop::Interrupted => f.write_str("interrupted"),
            Stop::CanaryFailed(label) => write!(f, "canary {label} failed"),
            Stop::AfterFailure(label) => write!(f, "stopped after {label} failed"),
            Stop::EnvFileChanged => f.write_str("the env file changed during the roll"),
            Stop::ResumesFailed(labels) => write!(
                f,
                "the harnesses of {} exited at once when resumed, which looks like a cause of the fleet's own; no other harness is ended until one of them is retried by name and resumes",
                labels.join(", ")
            ),
        }
    }
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SessionReport {
    #[serde(rename = "ref")]
    pub reference: Option<String>,
    pub standing: Option<String>,
    pub tmux_target: String,
    pub pane_id: Option<String>,
    /// The harness the record names (`claude`, `codex`).
    pub harness: Option<String>,
    pub outcome: Outcome,
    /// Why, in words (never a value).
    pub detail: Option<String>,
    pub old_pid: Option<i32>,
    pub new_pid: Option<i32>,
    /// The conversation that was (or would be) resumed.
    pub harness_session_id: Option<String>,
    /// The drift that motivated the respawn.
    pub planned_changes: Vec<Change>,
    /// After a mismatch: what the new process still holds wrong.
    pub mismatches: Vec<Change>,
    /// Contract (docs/contracts.md, "Readiness"): `confirmed` or `unconfirmed` for a
    /// respawned session whose pane is live; null when not respawned.
    pub conversation: Option<Conversation>,
    /// For `not_attempted`: why, as a type (`detail` has it in words).
    #[serde(skip)]
    #[schemars(skip)]
    pub stop: Option<Stop>,
    /// The reading of the env file whose environment the new process was
    /// verified to hold; `None` when it was not verified on any reading.
    #[serde(skip)]
    #[schemars(skip)]
    pub env_reading: Option<Reading>,
    /// The conversation had never begun: the harness was relaunched on
    /// the same pre-assigned id rather than resumed (`detail` says so).
    #[serde(skip)]
    #[schemars(skip)]
    pub fresh_start: bool,
    /// The harness the roll started in the pane exited before the probe:
    /// it could not resume the conversation. Remembered
    /// ([`super::failures::settle`]), so later rolls leave it alone.
    #[serde(skip)]
    #[schemars(skip)]
    pub harness_exited: bool,
}

/// A session the roll did not reach; `detail` says why in words, `stop` in a
/// type. One not reached because a newer env value superseded the roll is
/// `superseded`, not `not_attempted`: nothing went wrong with it, and a
/// storm of rotations must not read as a storm of sessions left stale.
pub fn not_attempted(plan: &SessionPlan, why: Stop) -> SessionReport {
    let outcome = match why {
        Stop::EnvFileChanged => Outcome::Superseded,
        _ => Outcome::NotAttempted,
    };
    let mut report = SessionReport::from_plan(plan, outcome, Some(why.to_string()));
    report.stop = Some(why);
    report
}

impl SessionReport {
    pub fn from_plan(plan: &SessionPlan, outcome: Outcome, detail: Option<String>) -> Self {
        SessionReport {
            reference: plan.reference.clone(),
            standing: plan.standing.clone(),
            tmux_target: plan.tmux_target.clone(),
            pane_id: plan.pane_id.clone(),
            harness: plan.record.as_ref().map(|r| r.harness.clone()),
            outcome,
            detail,
            old_pid: plan.pane_pid,
            new_pid: None,
            harness_session_id: None,
            planned_changes: plan.changes.clone(),
            mismatches: Vec::new(),
            conversation: None,
            stop: None,
            env_reading: None,
            fresh_start: false,
            harness_exited: false,
        }
    }

    /// Whether the roll ended this session's harness and started another:
    /// its outcome is one a respawn ends in, and the roll reached it (a
    /// session the roll stopped before, `stop`, was never touched, even
    /// when its outcome is `superseded`).
    pub fn respawned(&self) -> bool {
        self.stop.is_none() && self.outcome.respawned()
    }

    pub fn label(&self) -> &str {
        self.reference
            .as_deref()
            .or(self.standing.as_deref())
            .unwrap_or(&self.tmux_target)
    }

    /// The stop this finished session calls for: after a respawned session
    /// failed, nothing more is ended; once the env file changed under the
    /// roll, nothing more is started on what its plan read.
    pub fn stop_after(&self) -> Option<Stop> {
        if self.respawned() && self.outcome.is_failure() {
            Some(Stop::AfterFailure(self.label().to_owned()))
        } else if self.outcome == Outcome::Superseded || self.stop == Some(Stop::EnvFileChanged) {
            Some(Stop::EnvFileChanged)
        } else {
            None
        }
    }

    /// `restarted (verified)`, `left alone (unresumable: …)`, …
    pub fn verdict(&self) -> String {
        let detail = self.detail.as_deref().unwrap_or("");
        match self.outcome {
            Outcome::Restarted if self.fresh_start => {
                "restarted (verified; no conversation yet)".into()
            }
            Outcome::Restarted => "restarted (verified)".into(),
            Outcome::RestartedUnverified => format!("restarted (unverified: {detail})"),
            Outcome::Mismatch => format!(
                "mismatch ({})",
                self.mismatches
                    .iter()
                    .map(|c| c.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Outcome::ResumeFailed => format!("resume failed ({detail})"),
            Outcome::LeftAlone => format!("left alone ({detail})"),
            Outcome::Skipped => format!("skipped ({detail})"),
            Outcome::UpToDate => "up to date".into(),
            Outcome::NotAttempted => format!("not attempted ({detail})"),
            Outcome::WouldRestart => format!("would restart ({detail})"),
            Outcome::Deferred => format!("deferred ({detail})"),
            Outcome::Blocked => format!("blocked ({detail})"),
            Outcome::Superseded => format!("superseded ({detail})"),
        }
    }
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Report {
    pub format_version: String,
    pub dry_run: bool,
    /// True when Ctrl-C stopped new respawns from starting.
    pub interrupted: bool,
    pub sessions: Vec<SessionReport>,
    /// `apply --scrub-tmux-env`: what was unset from tmux's environments.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tmux_env_scrub: Option<super::scrub::ScrubReport>,
    /// After the roll: processes a harness detached from its pane (outside
    /// every pane, launched under this config) that still hold what no
    /// session may hold. Never signalled; names and fingerprints only.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub detached_residue: Vec<crate::plan::detached::DetachedEntry>,
    /// The env file changed while the roll ran, so the roll did not end on
    /// one value: run it again. Absent when the file did not change.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub env_file_changed: Option<EnvFileChanged>,
    /// The plan's `observation_failed`: tmux failed or did not answer for
    /// these targeted sessions, so the roll could not see them and rolled
    /// none of them. The command exits 1. Null when every one was seen.
    pub observation_failed: Option<crate::plan::ObservationFailure>,
    /// Each host beside tmux the roll rolled (`routing.hosts`,
    /// `docs/hosts.md`): its layer and sessions; absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub hosts: Vec<crate::events::host::HostRollReport>,
}

/// What a rewrite of the env file during a roll left behind.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct EnvFileChanged {
    /// Sessions this roll respawned that hold a value the env file no
    /// longer declares (the one the plan read, or one in between).
    pub superseded_sessions: usize,
}

impl Report {
    pub fn failed(&self) -> bool {
        // A session not attempted (the canary failed, or Ctrl-C) or deferred
        // (still busy, or attached) is left as it was, stale: the command
        // did not do what it was asked for it.
        self.sessions.iter().any(|s| {
            s.outcome.is_failure() || matches!(s.outcome, Outcome::NotAttempted | Outcome::Deferred)
        }) || self.tmux_env_scrub.as_ref().is_some_and(|s| s.failed())
            || self.env_file_changed.is_some()
            // Not seeing is not success: a roll that could not look rolled nothing.
            || self.observation_failed.is_some()
            || self.hosts.iter().any(|h| h.failed())
    }
}

impl From<&SessionReport> for crate::events::SessionOutcome {
    fn from(s: &SessionReport) -> Self {
        crate::events::SessionOutcome {
            reference: s.reference.clone(),
            standing: s.standing.clone(),
            tmux_target: s.tmux_target.clone(),
            outcome: s.outcome,
            detail: s.detail.clone(),
            conversation: s.conversation,
        }
    }
}
