//! `the-loop standing create`

use super::key;
use crate::cli::output::print_json;
use crate::cli::sessions::start::{check_spawnable, clear_occupant, LaunchOptions};
use crate::harness::LaunchArgs;
use crate::lifecycle::key::fields;
use crate::lifecycle::queue;
use crate::lifecycle::spawn::first_spawn;
use crate::ops::Context;
use crate::registry::{StandingRecord, Status};
use clap::Args;
use serde_json::json;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct CreateArgs {
    /// The session's name: hosted in tmux session loop-standing-<NAME>.
    #[arg(value_name = "NAME")]
    name: String,
    #[command(flatten)]
    launch: LaunchOptions,
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(ctx: &Context, args: CreateArgs) -> miette::Result<ExitCode> {
    let key = key(&args.name)?;
    let harness = ctx.config.routing.default_harness.clone();
    let cwd = check_spawnable(ctx, &harness, &args.launch.cwd)?;
    let name = key.tmux_name();
    let _turn = queue::wait_turn(&ctx.config.state_root, &name, queue::DEFAULT_WAIT)?;
    if ctx.registry.load_standing(&args.name)?.is_some() {
        miette::bail!(
            code = "the_loop::standing::exists",
            help = format!("start it with `the-loop standing start {}`", args.name),
            "a standing session named {} already exists",
            args.name
        );
    }
    clear_occupant(ctx, &name)?;
    let launch_args = LaunchArgs {
        harness_args: ctx.config.routing.harness_args_claude.clone(),
        model: args.launch.model.clone(),
        effort: args.launch.effort.clone(),
    };
    // Recorded before anything is spawned: a session the registry could not
    // record would run as nobody's, its conversation never resumable.
    let session_id = crate::harness::new_session_id();
    let now = crate::clock::now_utc();
    let mut record = StandingRecord::new(&args.name, &harness, Status::Active);
    record.harness_session_id = Some(session_id.clone());
    record.cwd = Some(cwd.clone());
    record.tmux_target = Some(name.clone());
    record.created_at = Some(now.clone());
    record.last_event_at = Some(now);
    record.harness_args = Some(launch_args.harness_args.clone()).filter(|a| !a.is_empty());
    record.model = launch_args.model.clone();
    record.effort = launch_args.effort.clone();
    ctx.registry.save_standing(&record).map_err(|e| {
        miette::miette!(
            code = "the_loop::start::registry_unwritable",
            help = "make the state root's local/standing/ directory writable, with space free; nothing was started",
            "{e}"
        )
    })?;
    let prompt = args.launch.prompt.as_deref();
    if let Err(e) = first_spawn(ctx, &key, &name, &cwd, &launch_args, prompt, &session_id) {
        if let Err(undo) = ctx.registry.delete_standing(&args.name) {
            tracing::warn!(error = %undo, "could not remove the record of a spawn that failed");
        }
        return Err(e);
    }
    ctx.events.emit(
        "session.spawned",
        fields(
            &key,
            json!({"tmux_target": name, "harness_session_id": session_id, "resumed": false}),
        ),
    );
    if args.json {
        print_json(
            &json!({"standing": args.name, "tmux_target": name, "harness_session_id": session_id, "cwd": cwd}),
        );
    } else {
        crate::outln!(
            "Created standing session {} in tmux session {name} (conversation {session_id}).",
            args.name
        );
        crate::outln!("Attach with: tmux attach -t {name}");
    }
    Ok(ExitCode::SUCCESS)
}
