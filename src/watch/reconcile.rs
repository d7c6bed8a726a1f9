//! Plan, then apply, without printing: the library half of a `watch`
//! cycle, composed from the same pieces as `plan` and `apply`, so a roll by
//! `watch` is the same canaried, verified roll as the command's.

use crate::apply::lock::{ApplyLock, LockError};
use crate::apply::roll::Roller;
use crate::apply::{execute, ApplyOptions, Mode, Report, SessionReport};
use crate::desired::policy::Policy;
use crate::desired::DesiredError;
use crate::ops::Context;
use crate::plan::gather::{plan_now, Observed};
use crate::plan::{Plan, Targets};
use serde_json::json;
use std::collections::BTreeSet;

/// The desired state read now, and the fleet observed now.
pub struct Snapshot {
    pub policy: Policy,
    pub plan: Plan,
    pub observed: Observed,
}

/// Re-reads the env file and plans every managed session.
pub fn observe(ctx: &Context) -> Result<Snapshot, DesiredError> {
    let policy = crate::desired::load_policy(&ctx.config, true)?;
    let (plan, observed) = plan_now(&policy, &ctx.registry, &ctx.tmux, &Targets::all());
    Ok(Snapshot {
        policy,
        plan,
        observed,
    })
}

/// Rolls the drifted sessions named in `labels`, under the apply lock, with
/// the canary and verification of `apply`. `command` names the roller in
/// the lock and in the events.
pub fn roll(
    ctx: &Context,
    snapshot: &Snapshot,
    labels: &BTreeSet<String>,
    parallelism: usize,
    command: &str,
    progress: &(dyn Fn(&SessionReport) + Sync),
) -> Result<Report, LockError> {
    let _lock = ApplyLock::acquire(&ctx.config.state_root, command)?;
    let mut plan = snapshot.plan.clone();
    plan.sessions
        .retain(|s| s.action.acts() && labels.contains(s.label()));
    ctx.events.emit(
        "apply.started",
        json!({"command": command, "sessions": plan.sessions.len()}),
    );
    let roller = Roller {
        config: &ctx.config,
        policy: &snapshot.policy,
        tmux: &ctx.tmux,
        events: &ctx.events,
        respawning: None,
    };
    let options = ApplyOptions {
        mode: Mode::Apply,
        parallelism,
        dry_run: false,
    };
    let report = execute(
        &roller,
        &ctx.registry,
        &plan,
        &snapshot.observed,
        options,
        progress,
    );
    let outcomes: Vec<serde_json::Value> = report
        .sessions
        .iter()
        .map(|s| json!({"ref": s.reference, "standing": s.standing, "tmux_target": s.tmux_target, "outcome": s.outcome, "detail": s.detail}))
        .collect();
    ctx.events.emit(
        "apply.finished",
        json!({"command": command, "failed": report.failed(), "interrupted": report.interrupted, "sessions": outcomes}),
    );
    Ok(report)
}
