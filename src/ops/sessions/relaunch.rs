//! A delivery into a session whose launch arguments drifted (its record
//! asks for `--effort max`, the process runs `--effort high`) relaunches
//! it first, and the text then goes into the new process: the next event
//! runs under the launch the record asks for, not the one it drifted from.
//! The relaunch is the one roll engine's ([`crate::ops::apply`]): the same
//! lock, safe points and ownership check, the conversation resumed and the
//! new process verified, exactly as `sessions restart` would do it.

use crate::apply::{Mode, Outcome};
use crate::events::roll::ArgsChange;
use crate::lifecycle::deliver::Relaunch;
use crate::lifecycle::SessionKey;
use crate::ops::apply::{apply, ApplyError, ApplyOptions, ApplySink, RollCommand, Source};
use crate::ops::Context;
use crate::plan::safe_point::Drain;
use crate::plan::{Action, Plan, SessionPlan, Targets};
use std::time::Duration;

/// Relaunches `key`'s session, whose running harness drifted from its
/// record's launch (`changes`, as the delivery saw them). `wait` bounds
/// the wait for another roll's lock and for a running turn to end.
pub fn relaunch(
    ctx: &Context,
    key: &SessionKey,
    changes: Vec<ArgsChange>,
    wait: Duration,
) -> Relaunch {
    let label = key.label();
    let not_relaunched = |detail: String, args_changes| Relaunch {
        outcome: Outcome::NotAttempted,
        detail: Some(detail),
        args_changes,
    };
    let sink = OnlyIfStillDrifted { label: &label };
    let options = ApplyOptions {
        command: RollCommand::Deliver,
        mode: Mode::Apply,
        source: Source::Plan {
            targets: Targets(vec![label.clone()]),
            saved: None,
        },
        dry_run: false,
        parallelism: 1,
        scrub_tmux_env: false,
        lock_timeout: wait,
        drain: Drain {
            timeout: wait,
            now: false,
            include_attached: false,
        },
    };
    match apply(ctx, &options, &sink) {
        Ok(report) => match report.sessions.into_iter().find(|s| s.label() == label) {
            Some(session) => Relaunch {
                outcome: session.outcome,
                detail: session.detail,
                args_changes: changes,
            },
            None => not_relaunched("the roll did not select the session".into(), changes),
        },
        Err(ApplyError::Cancelled) => not_relaunched(
            "the plan made under the apply lock no longer shows the drift".into(),
            changes,
        ),
        Err(err) => not_relaunched(err.to_string(), changes),
    }
}

/// The session's plan when it is to be respawned for drifted launch
/// arguments.
fn args_drifted<'a>(plan: &'a Plan, label: &str) -> Option<&'a SessionPlan> {
    plan.sessions
        .iter()
        .find(|s| s.label() == label)
        .filter(|s| s.action == Action::Respawn && !s.args_changes.is_empty())
}

/// Rolls only while the plan made under the lock still shows the drift:
/// another roll may have relaunched the session while this one waited.
struct OnlyIfStillDrifted<'a> {
    label: &'a str,
}

impl ApplySink for OnlyIfStillDrifted<'_> {
    fn planned(&self, plan: &Plan, _acts: bool) -> Result<(), ApplyError> {
        match args_drifted(plan, self.label) {
            Some(_) => Ok(()),
            None => Err(ApplyError::Cancelled),
        }
    }
}
