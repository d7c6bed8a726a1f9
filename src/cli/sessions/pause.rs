//! `the-loop sessions pause` and `the-loop sessions resume`: deliveries are
//! suppressed while a session is paused. The tmux session and the harness
//! in it are not touched, so the conversation is intact on resume, and
//! attaching (read-write included) works as before.

use crate::cli::output::print_json;
use crate::lifecycle::key::{self, fields};
use crate::lifecycle::queue;
use crate::ops::resolve::resolve;
use crate::ops::Context;
use crate::registry::Status;
use clap::Args;
use serde_json::json;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct PauseArgs {
    /// Work-item ref (github:octo/repo#15), or a short form that matches one
    /// registered work item (#15, repo#15, owner/repo#15) or its tmux name.
    #[arg(value_name = "REF", add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::session_refs))]
    reference: String,
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn pause(ctx: &Context, args: PauseArgs) -> miette::Result<ExitCode> {
    set_status(ctx, args, Status::Paused)
}

pub fn resume(ctx: &Context, args: PauseArgs) -> miette::Result<ExitCode> {
    set_status(ctx, args, Status::Active)
}

fn set_status(ctx: &Context, args: PauseArgs, want: Status) -> miette::Result<ExitCode> {
    let key = resolve(&ctx.registry, &args.reference)?;
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
    let verb = if want == Status::Paused {
        "pause"
    } else {
        "resume"
    };
    if record.status() == Status::Closed {
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
        let event = if want == Status::Paused {
            "session.paused"
        } else {
            "session.resumed"
        };
        ctx.events.emit(
            event,
            fields(
                &key,
                json!({"tmux_target": key::target_of(&key, Some(&record))}),
            ),
        );
    }
    if args.json {
        print_json(&json!({"ref": key.label(), "status": want, "changed": changed}));
    } else if changed && want == Status::Paused {
        crate::outln!(
            "Paused {}: deliveries are suppressed until `the-loop sessions resume {}`. The tmux session is untouched.",
            key.label(),
            key.label()
        );
    } else if changed {
        crate::outln!("Resumed {}: deliveries go through again.", key.label());
    } else {
        crate::outln!(
            "{} is already {}.",
            key.label(),
            if want == Status::Paused {
                "paused"
            } else {
                "active"
            }
        );
    }
    Ok(ExitCode::SUCCESS)
}
