//! What `watch` does about each drifted session: the pure core.
//!
//! The rules, from the issue:
//! - a drifted session is rolled at most once per desired state (the env
//!   file's fingerprint set and the env policy), even across restarts of
//!   `watch`, because the memory is kept on disk;
//! - a session whose roll failed before it was respawned (its conversation
//!   cannot be resumed, the pane changed, a canary failed) is not retried in
//!   a loop: it is retried only when something about it changes, and then
//!   no sooner than an exponential backoff allows;
//! - every hold is reported once per change, never every interval.
//!
//! Unverified sessions never reach this module: the plan skips them.

use super::memory::{Entry, Memory};
use crate::apply::Outcome;
use crate::desired::config::Config;
pub use crate::events::roll::Decision;
use crate::plan::SessionPlan;
use crate::secret::Fingerprint;
use serde::Serialize;
use serde_json::json;
use std::collections::BTreeMap;

/// The longest wait between retries of a failed session, in seconds.
pub const MAX_BACKOFF_SECS: u64 = 3600;

/// A session with observed drift, and whether its conversation can be resumed.
#[derive(Debug, Clone)]
pub struct Drifted<'a> {
    pub session: &'a SessionPlan,
    /// The pre-roll resumability check: `Err(reason)` when it would be left alone.
    pub verdict: Result<(), String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Assessment {
    pub label: String,
    /// The desired state for this session (see [`session_desired`]): the key
    /// its memory entry is kept under.
    pub desired: Fingerprint,
    pub signature: Fingerprint,
    #[serde(flatten)]
    pub decision: Decision,
    /// Say so now: this hold has not been reported for this observation.
    pub report: bool,
}

/// The desired state as one fingerprint: what the env file holds, name by
/// name ([`crate::desired::policy::Policy::file_state`], which does not
/// depend on `env.fingerprint`, so a change of mode or key alone is not a
/// new desired state and rolls nothing again), and the parts of the config
/// that decide what a session must hold.
pub fn desired_fingerprint(config: &Config, env_state: &BTreeMap<String, String>) -> Fingerprint {
    let mut credentials = config.env.credentials.clone();
    credentials.sort();
    let mut deliver = config.env.deliver.clone();
    deliver.sort();
    let mut passthrough = config.env.session_passthrough.clone();
    passthrough.sort();
    let canonical = json!({
        "env": env_state,
        "credentials": credentials,
        "deliver": deliver,
        "passthrough": passthrough,
        "instance": config.instance,
        "config": config.path,
    });
    Fingerprint::of(canonical.to_string().as_bytes())
}

/// The desired state for one session: the fleet's, plus the launch
/// arguments its record and the config ask for when they differ from what it
/// runs with (argv drift is rolled like env drift). With no argv drift it is
/// the fleet's desired state itself.
pub fn session_desired(desired: Fingerprint, session: &SessionPlan) -> Fingerprint {
    if session.args_changes.is_empty() {
        return desired;
    }
    let wants: Vec<_> = session
        .args_changes
        .iter()
        .map(|c| json!([c.name, c.want]))
        .collect();
    Fingerprint::of(json!([desired, wants]).to_string().as_bytes())
}

/// What was observed of one drifted session, as one fingerprint: a change in
/// its pane, its record, its drift or its resumability is "something changed".
/// Its drift is taken by name and case, without fingerprints: what a process
/// holds is fixed with its pid, and what it should hold is `desired`, so the
/// fingerprints add nothing but a dependence on `env.fingerprint`.
pub fn signature(desired: Fingerprint, drifted: &Drifted) -> Fingerprint {
    let s = drifted.session;
    let changes: Vec<_> = s
        .changes
        .iter()
        .map(|c| json!([c.name, c.case, c.have.is_some(), c.want.is_some()]))
        .collect();
    let canonical = json!({
        "desired": desired,
        "pane": s.pane_id,
        "pid": s.pane_pid,
        "record": s.record_fingerprint,
        "changes": changes,
        "args_changes": s.args_changes,
        "unresumable": drifted.verdict.as_ref().err(),
    });
    Fingerprint::of(canonical.to_string().as_bytes())
}

/// Seconds to wait after the `failures`-th consecutive failure.
pub fn backoff(interval_secs: u64, failures: u32) -> u64 {
    if failures == 0 {
        return 0;
    }
    let doubled = interval_secs
        .max(1)
        .saturating_mul(1u64 << (failures - 1).min(20));
    doubled.min(MAX_BACKOFF_SECS.max(interval_secs))
}

pub fn assess(
    memory: &Memory,
    desired: Fingerprint,
    drifted: &[Drifted],
    now: u64,
) -> Vec<Assessment> {
    drifted
        .iter()
        .map(|d| {
            let label = d.session.label().to_owned();
            let desired = session_desired(desired, d.session);
            let signature = signature(desired, d);
            let entry = memory.current(&label, desired);
            let decision = decide(entry, signature, now);
            let report = !matches!(decision, Decision::Roll { .. })
                && entry
                    .and_then(|e| e.reported)
                    .is_none_or(|reported| reported != signature);
            Assessment {
                label,
                desired,
                signature,
                decision,
                report,
            }
        })
        .collect()
}

fn decide(entry: Option<&Entry>, signature: Fingerprint, now: u64) -> Decision {
    let Some(entry) = entry else {
        return Decision::Roll { retry: false };
    };
    if entry.respawned {
        return Decision::AlreadyRolled {
            outcome: entry.outcome,
        };
    }
    if entry.signature == signature {
        return Decision::Unchanged {
            outcome: entry.outcome,
            detail: entry.detail.clone(),
        };
    }
    // A wall clock now earlier than the attempt was set back (an NTP step,
    // a VM restored): it cannot measure the wait, which would otherwise
    // last as long as the clock went back. The backoff counts as over, and
    // the attempt's record starts again on this clock.
    if (entry.attempted_at..entry.retry_after).contains(&now) {
        return Decision::Backoff {
            until: entry.retry_after,
            outcome: entry.outcome,
        };
    }
    Decision::Roll { retry: true }
}

/// Records the outcome of a roll (or of a pre-roll refusal) for one session.
#[allow(
    clippy::too_many_arguments,
    reason = "each argument is one fact of the outcome being recorded"
)]
pub fn record(
    memory: &mut Memory,
    label: &str,
    desired: Fingerprint,
    signature: Fingerprint,
    outcome: Outcome,
    detail: Option<String>,
    now: u64,
    interval_secs: u64,
) {
    let succeeded = matches!(outcome, Outcome::Restarted | Outcome::RestartedUnverified);
    let failures = if succeeded {
        0
    } else {
        memory
            .current(label, desired)
            .map_or(0, |e| e.failures)
            .saturating_add(1)
    };
    memory.sessions.insert(
        label.to_owned(),
        Entry {
            desired,
            signature,
            outcome,
            detail,
            respawned: outcome.respawned(),
            failures,
            attempted_at: now,
            retry_after: now.saturating_add(backoff(interval_secs, failures)),
            // The roll's own report is the report of this observation.
            reported: Some(signature),
        },
    );
}

/// Remembers that a hold was reported for this observation.
pub fn mark_reported(memory: &mut Memory, label: &str, signature: Fingerprint) {
    if let Some(entry) = memory.sessions.get_mut(label) {
        entry.reported = Some(signature);
    }
}

#[cfg(test)]
#[path = "decide_tests.rs"]
mod tests;
