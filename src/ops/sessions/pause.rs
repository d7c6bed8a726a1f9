//! `sessions pause` and `sessions resume`: deliveries are suppressed while a
//! session is paused. The tmux session and the harness in it are not
//! touched, so the conversation is intact on resume, and attaching
//! (read-write included) works as before.

use crate::lifecycle::key;
use crate::lifecycle::queue;
use crate::ops::resolve::resolve;
use crate::ops::Context;
use crate::registry::Status;
use serde::Serialize;

#[derive(Debug)]
pub struct PauseOptions {
    /// A work-item ref, or a short form or tmux name that matches one.
    pub reference: String,
}

/// What `pause` or `resume` did (its `--json` document).
#[derive(Debug, Serialize)]
pub struct StatusChange {
    pub format_version: &'static str,
    #[serde(rename = "ref")]
    pub reference: String,
    /// The status asked for, which the record now has.
    pub status: Status,
    /// False when the record already had it.
    pub changed: bool,
}

pub fn pause(ctx: &Context, options: &PauseOptions) -> miette::Result<StatusChange> {
    set_status(ctx, &options.reference, Status::Paused)
}

pub fn resume(ctx: &Context, options: &PauseOptions) -> miette::Result<StatusChange> {
    set_status(ctx, &options.reference, Status::Active)
}

fn set_status(ctx: &Context, typed: &str, want: Status) -> miette::Result<StatusChange> {
    let key = resolve(&ctx.registry, typed)?;
    if key.as_work_item().is_none() {
        miette::bail!(
            code = "the_loop::pause::standing",
            help =
                "standing sessions take no deliveries from events, so there is nothing to suppress",
            "pause and resume are for work-item sessions"
        );
    }
    let _turn = queue::wait_turn(
        &ctx.config.state_root,
        &key.tmux_name(),
        queue::DEFAULT_WAIT,
    )?;
    let Some(mut record) = key::load(&ctx.registry, &key)? else {
        miette::bail!(
            code = "the_loop::pause::not_registered",
            help = "`the-loop sessions list` shows the registered sessions",
            "no session is registered for {}",
            key.label()
        );
    };
    if record.status() == Status::Closed {
        let verb = if want == Status::Paused {
            "pause"
        } else {
            "resume"
        };
        miette::bail!(
            code = "the_loop::pause::closed",
            help = "a closed session takes no deliveries anyway; `the-loop sessions start` begins it again",
            "{} is closed, so there is nothing to {verb}",
            key.label()
        );
    }
    let changed = record.status() != want;
    if changed {
        record.set_status(want);
        record.touch();
        key::save(&ctx.registry, &record)?;
        let subject = key.subject().target(&key::target_of(&key, Some(&record)));
        ctx.events.emit(if want == Status::Paused {
            crate::events::Event::SessionPaused { subject }
        } else {
            crate::events::Event::SessionResumed { subject }
        });
    }
    Ok(StatusChange {
        format_version: "1",
        reference: key.label(),
        status: want,
        changed,
    })
}
