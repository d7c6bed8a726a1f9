//! `the-loop sessions start`

use crate::cli::context::Context;
use crate::cli::output::print_json;
use crate::harness::models::resolve;
use crate::harness::{check_supported, LaunchArgs};
use crate::lifecycle::spawn::first_spawn;
use crate::lifecycle::{queue, SessionKey};
use crate::observed::{fleet, Probe};
use crate::registry::{Status, WorkItemRecord, WorkItemRef};
use crate::runner::spawn::kill_session;
use clap::Args;
use serde::Serialize;
use std::path::PathBuf;
use std::process::ExitCode;

/// How a first spawn launches the harness (shared by `sessions start` and
/// `standing create`).
#[derive(Debug, Args)]
pub struct LaunchOptions {
    /// Directory the harness runs in.
    #[arg(long, value_name = "DIR")]
    pub cwd: PathBuf,
    /// First prompt for the new conversation.
    #[arg(long, value_name = "TEXT")]
    pub prompt: Option<String>,
    /// Model to launch with (`--model`).
    #[arg(long)]
    pub model: Option<String>,
    /// Effort level to launch with (`--effort`).
    #[arg(long)]
    pub effort: Option<String>,
}

#[derive(Debug, Args)]
pub struct StartArgs {
    /// Work-item ref, e.g. github:octo/repo#15.
    #[arg(value_name = "REF")]
    reference: String,
    #[command(flatten)]
    launch: LaunchOptions,
    /// Harness to host (defaults to routing.defaultHarness).
    #[arg(long)]
    harness: Option<String>,
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Serialize)]
struct Started {
    #[serde(rename = "ref")]
    reference: String,
    tmux_target: String,
    harness_session_id: String,
    cwd: PathBuf,
}

pub fn run(ctx: &Context, args: StartArgs) -> miette::Result<ExitCode> {
    let reference: WorkItemRef = super::deliver::parse_ref(&args.reference)?;
    // One tmux session per work item: a pull request linked to an item is
    // started as that item.
    let reference = match crate::lifecycle::links::owner_of(&ctx.registry, &reference) {
        Some(owner) => {
            eprintln!("note: {reference} is linked to {owner}; starting {owner}'s session.");
            owner
        }
        None => reference,
    };
    let harness = args
        .harness
        .clone()
        .unwrap_or_else(|| ctx.config.routing.default_harness.clone());
    let cwd = check_spawnable(ctx, &harness, &args.launch.cwd)?;
    // A session the registry cannot record would run as nobody's: its
    // conversation could never be resumed by the-loop. Refuse first.
    ctx.registry.check_writable().map_err(|e| {
        miette::miette!(
            code = "the_loop::start::registry_unwritable",
            help = "make the state root's local/ directory writable, then start again; nothing was started",
            "{e}"
        )
    })?;
    let name = reference.tmux_name();
    let key = SessionKey::WorkItem(reference.clone());
    let _turn = queue::wait_turn(&ctx.config.state_root, &name, queue::DEFAULT_WAIT)?;
    clear_occupant(ctx, &name)?;

    let requested = LaunchArgs {
        harness_args: ctx.config.routing.harness_args_claude.clone(),
        model: args.launch.model.clone(),
        effort: args.launch.effort.clone(),
    };
    let resolved = resolve(&requested, &ctx.config.routing.models);
    for dropped in &resolved.dropped {
        eprintln!("warning: {dropped}; starting without it");
    }
    let subject = serde_json::json!({"ref": reference.to_string(), "tmux_target": name});
    let launch_args = resolved.args;
    // Trust the directory as given too, which may differ from its real path
    // (the spawn itself prepares the real path).
    let given_cwd = std::path::absolute(&args.launch.cwd).unwrap_or_else(|_| cwd.clone());
    if given_cwd != cwd {
        crate::harness::prepare::before_spawn(&ctx.config, &given_cwd, &launch_args, &ctx.events);
    }
    let session_id = first_spawn(
        ctx,
        &key,
        &name,
        &cwd,
        &launch_args,
        args.launch.prompt.as_deref(),
    )?;

    let prior = ctx.registry.load_work_item(&reference).ok().flatten();
    // A session under this name was announced before; its comment still holds.
    let first_spawn = prior
        .as_ref()
        .is_none_or(|r| r.tmux_target().as_deref() != Some(name.as_str()));
    let mut record =
        prior.unwrap_or_else(|| WorkItemRecord::new(&reference, &harness, Status::Active));
    let now = crate::clock::now_utc();
    record.harness = harness;
    record.status = Status::Active;
    record.harness_session_id = Some(session_id.clone());
    record.cwd = Some(cwd.clone());
    record.tmux_target = Some(name.clone());
    record.created_at = Some(now.clone());
    record.last_event_at = Some(now);
    record.harness_args = Some(launch_args.harness_args).filter(|a| !a.is_empty());
    record.model = launch_args.model;
    record.effort = launch_args.effort;
    ctx.registry.save_work_item(&record)?;
    // An explicit start begins the item again after a cleanup.
    crate::lifecycle::control::clear(&ctx.registry, &reference);
    ctx.events.emit(
        "session.spawned",
        serde_json::json!({"ref": reference.to_string(), "tmux_target": name, "harness_session_id": session_id, "resumed": false}),
    );
    crate::harness::models::report_dropped_events(&ctx.events, &subject, &resolved.dropped);
    if first_spawn {
        crate::announce::announce(ctx.config.routing.announce, &reference, &name, &ctx.events);
    }
    let started = Started {
        reference: reference.to_string(),
        tmux_target: name.clone(),
        harness_session_id: session_id,
        cwd,
    };
    if args.json {
        print_json(&started);
    } else {
        println!(
            "Started {} in tmux session {} (conversation {}).",
            started.reference, name, started.harness_session_id
        );
        println!("Attach with: tmux attach -t {name}");
    }
    Ok(ExitCode::SUCCESS)
}

/// What every first spawn checks before touching tmux: a harness that can
/// be hosted, a working directory that exists (returned canonical), and an
/// env file that parses, so a broken one is reported here rather than by a
/// pane that dies at launch.
pub(crate) fn check_spawnable(
    ctx: &Context,
    harness: &str,
    cwd: &std::path::Path,
) -> miette::Result<PathBuf> {
    check_supported(harness)
        .map_err(|e| miette::miette!(code = "the_loop::harness::unsupported", "{e}"))?;
    let canonical = std::fs::canonicalize(cwd).map_err(|e| {
        miette::miette!(
            code = "the_loop::spawn::cwd",
            "working directory {}: {}",
            cwd.display(),
            e.kind()
        )
    })?;
    crate::desired::load_policy(&ctx.config, false)?;
    Ok(canonical)
}

/// A live occupant is never killed; a dead one is cleared and the clear verified.
pub(crate) fn clear_occupant(ctx: &Context, name: &str) -> miette::Result<()> {
    match fleet::observe(&ctx.tmux).probe(name) {
        Probe::Absent => Ok(()),
        Probe::Live => miette::bail!(
            code = "the_loop::start::occupied",
            help = format!("attach with `tmux attach -t {name}`; to replace it, end it first with `tmux kill-session -t {name}` or `the-loop sessions reset`"),
            "tmux session {name} is live; the-loop never kills or spawns over a running session"
        ),
        Probe::Unknown => miette::bail!(
            code = "the_loop::start::unknown",
            help = "check that the tmux server is responsive (`tmux ls`) and retry",
            "tmux did not answer, so whether {name} is running is unknown; not spawning over it"
        ),
        Probe::Dead => {
            kill_session(&ctx.tmux, name)?;
            if !crate::runner::spawn::confirm_absent(&ctx.tmux, name) {
                miette::bail!(code = "the_loop::start::occupied", "the dead tmux session {name} could not be cleared");
            }
            ctx.events.emit("session.occupant_cleared", serde_json::json!({"tmux_target": name}));
            Ok(())
        }
    }
}
