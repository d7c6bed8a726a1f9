//! Plan, then apply, without printing: the library half of a `watch`
//! cycle, composed from the same pieces as `plan` and `apply`, so a roll by
//! `watch` is the same canaried, verified roll as the command's.

use crate::apply::{Mode, Report, SessionReport};
use crate::desired::policy::Policy;
use crate::desired::DesiredError;
use crate::ops::apply::{ApplyError, ApplyOptions, ApplySink, RollCommand, Source};
use crate::ops::Context;
use crate::plan::gather::{plan_now, Looks, Observed};
use crate::plan::{Plan, Targets};
use std::collections::BTreeSet;
use std::time::Duration;

/// The desired state read now, and the fleet observed now.
pub struct Snapshot {
    pub policy: Policy,
    pub plan: Plan,
    pub observed: Observed,
}

/// Re-reads the env file and plans every managed session.
pub fn observe(ctx: &Context) -> Result<Snapshot, DesiredError> {
    let policy = crate::desired::load_policy_with_key(&ctx.config)?;
    let (mut plan, observed) = plan_now(
        &policy,
        &ctx.registry,
        &ctx.tmux,
        &Targets::all(),
        Looks::Roll(crate::plan::safe_point::Mode::Apply),
    );
    crate::hosts::annotate(&mut plan, &ctx.config, &policy, &Targets::all());
    Ok(Snapshot {
        policy,
        plan,
        observed,
    })
}

/// Rolls the drifted sessions named in `labels` through the one roll
/// engine, under the apply lock (never waiting for it: watch tries again
/// later), with the canary and verification of `apply`.
pub fn roll(
    ctx: &Context,
    snapshot: &Snapshot,
    labels: &BTreeSet<String>,
    parallelism: usize,
    progress: &(dyn Fn(&SessionReport) + Sync),
) -> Result<Report, ApplyError> {
    let options = ApplyOptions {
        command: RollCommand::Watch,
        mode: Mode::Apply,
        source: Source::Given {
            policy: &snapshot.policy,
            plan: &snapshot.plan,
            observed: &snapshot.observed,
            labels,
        },
        dry_run: false,
        parallelism,
        scrub_tmux_env: false,
        lock_timeout: Duration::ZERO,
        // A busy session is not waited for here: watch's own loop rolls it
        // when its turn ends (see `watch::run`), and meanwhile it is deferred.
        drain: crate::plan::safe_point::Drain {
            timeout: Duration::ZERO,
            ..Default::default()
        },
    };
    crate::ops::apply::apply(ctx, &options, &Log(progress))
}

/// Watch's sink: each session's outcome goes to the log.
struct Log<'a>(&'a (dyn Fn(&SessionReport) + Sync));

impl ApplySink for Log<'_> {
    fn session(&self, report: &SessionReport) {
        (self.0)(report)
    }
}
