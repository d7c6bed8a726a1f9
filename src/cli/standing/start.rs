//! `the-loop standing start`

use super::{key, not_registered};
use crate::cli::output::print_json;
use crate::lifecycle::key::{self as records, fields};
use crate::lifecycle::probe::probe;
use crate::lifecycle::queue;
use crate::lifecycle::respawn::{respawn, RespawnOutcome};
use crate::observed::Probe;
use crate::ops::Context;
use crate::registry::Status;
use clap::Args;
use serde_json::json;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct StartArgs {
    /// The standing session to start (or resume), as named at `standing create`.
    #[arg(value_name = "NAME")]
    name: String,
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(ctx: &Context, args: StartArgs) -> miette::Result<ExitCode> {
    let key = key(&args.name)?;
    let _turn = queue::wait_turn(
        &ctx.config.state_root,
        &key.tmux_name(),
        queue::DEFAULT_WAIT,
    )?;
    let Some(mut record) = records::load(&ctx.registry, &key)? else {
        return Err(not_registered(&args.name));
    };
    let name = records::target_of(&key, Some(&record));
    let (state, _) = probe(&ctx.tmux, &name);
    if state == Probe::Unknown {
        miette::bail!(
            code = "the_loop::standing::unknown",
            help = "check that the tmux server is responsive (`tmux ls`) and retry",
            "tmux did not answer, so whether {name} is running is unknown; not starting anything"
        );
    }
    let (started, resumed, session_id) = match respawn(ctx, &key, &record, &name, state, None) {
        RespawnOutcome::Spawned {
            resumed,
            session_id,
            ..
        } => (true, Some(resumed), Some(session_id)),
        // Already running: nothing to start, and nothing killed.
        RespawnOutcome::DeliverInto => (false, None, None),
        RespawnOutcome::Occupied => miette::bail!(
            code = "the_loop::standing::occupied",
            help = format!("end it with `tmux kill-session -t {name}` and start again"),
            "a dead tmux session holds {name} and could not be cleared"
        ),
        RespawnOutcome::Failed(reason) => miette::bail!(
            code = "the_loop::standing::spawn",
            "cannot start {}: {reason}",
            args.name
        ),
    };
    if let Some(id) = &session_id {
        record.set_harness_session_id(id);
        record.set_tmux_target(&name);
        ctx.events.emit(
            "session.respawned",
            fields(&key, json!({"tmux_target": name, "resumed": resumed, "harness_session_id": id, "boot_prompt": false})),
        );
    }
    record.set_status(Status::Active);
    record.touch();
    records::save(&ctx.registry, &record)?;
    if args.json {
        print_json(
            &json!({"standing": args.name, "tmux_target": name, "started": started, "resumed": resumed, "harness_session_id": session_id}),
        );
    } else if !started {
        crate::outln!("{} is already running in {name}.", args.name);
    } else if resumed == Some(true) {
        crate::outln!(
            "Started {} in {name}, resuming its conversation.",
            args.name
        );
    } else {
        crate::outln!(
            "Started {} in {name} in a fresh conversation (the recorded one could not be resumed).",
            args.name
        );
    }
    Ok(ExitCode::SUCCESS)
}
