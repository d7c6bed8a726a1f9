//! `the-loop sessions …`

use super::apply::{roll, Roll};
use super::context::Context;
use super::output::print_json;
use crate::apply::fleet::DEFAULT_PARALLELISM;
use crate::apply::Mode;
use crate::desired::policy::Identity;
use crate::harness::{check_supported, new_session_id, Launch, LaunchArgs};
use crate::observed::{fleet, Probe};
use crate::plan::gather::managed_sessions;
use crate::plan::Targets;
use crate::registry::{Status, WorkItemRecord, WorkItemRef};
use crate::runner::spawn::{kill_session, new_session, SpawnError};
use crate::runner::LaunchSpec;
use clap::{Args, Subcommand};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Debug, Subcommand)]
pub enum SessionsCommand {
    /// Start a harness session for a work item, detached in tmux session loop-<slug>.
    ///
    /// The pane runs the-loop's launcher, which reads the env file itself and
    /// starts the harness with the desired environment: withheld names absent
    /// (even when the tmux server holds them), delivered names set, identifiers set.
    Start(StartArgs),
    /// List registered sessions with their tmux target and live state.
    List(ListArgs),
    /// Respawn running sessions in place on the env file as it is now.
    ///
    /// Every targeted live session is relaunched with its conversation resumed,
    /// then verified. A session whose conversation cannot be resumed is left
    /// alone; one that is not running is skipped, never started.
    #[command(
        after_help = "Exit codes: 0 every targeted live session respawned and verified (or unverified); 1 otherwise."
    )]
    Restart(RestartArgs),
}

#[derive(Debug, Args)]
pub struct StartArgs {
    /// Work-item ref, e.g. github:octo/repo#15.
    #[arg(value_name = "REF")]
    reference: String,
    /// Directory the harness runs in.
    #[arg(long, value_name = "DIR")]
    cwd: PathBuf,
    /// First prompt for the new conversation.
    #[arg(long, value_name = "TEXT")]
    prompt: Option<String>,
    /// Model to launch with (`--model`).
    #[arg(long)]
    model: Option<String>,
    /// Effort level to launch with (`--effort`).
    #[arg(long)]
    effort: Option<String>,
    /// Harness to host (defaults to routing.defaultHarness).
    #[arg(long)]
    harness: Option<String>,
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
pub struct RestartArgs {
    /// Restart every live managed session.
    #[arg(long, conflicts_with = "reference")]
    all: bool,
    /// The work-item ref (or standing name) to restart.
    #[arg(value_name = "REF")]
    reference: Option<String>,
    /// Report what would be relaunched, and why, without touching anything.
    #[arg(long)]
    dry_run: bool,
    #[arg(long)]
    json: bool,
    /// How many sessions to respawn at once after the canary.
    #[arg(long, default_value_t = DEFAULT_PARALLELISM, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    parallelism: u16,
}

pub fn run(config: Option<&Path>, command: SessionsCommand) -> miette::Result<ExitCode> {
    match command {
        SessionsCommand::Start(args) => start(&Context::load(config)?, args),
        SessionsCommand::List(args) => list(&Context::load(config)?, args),
        SessionsCommand::Restart(args) => restart(config, args),
    }
}

fn restart(config: Option<&Path>, args: RestartArgs) -> miette::Result<ExitCode> {
    if !args.all && args.reference.is_none() {
        miette::bail!(
            code = "the_loop::restart::no_target",
            help = "pass --all to restart every live session, or a work-item ref such as github:octo/repo#15",
            "sessions restart needs --all or a work-item ref; it will not guess at a fleet-wide relaunch"
        );
    }
    let ctx = Context::load(config)?;
    let targets = match &args.reference {
        Some(r) => super::plan::resolve_targets(&ctx, std::slice::from_ref(r))?,
        None => Targets::all(),
    };
    roll(
        &ctx,
        Roll {
            mode: Mode::Restart,
            targets,
            saved_plan: None,
            dry_run: args.dry_run,
            json: args.json,
            parallelism: args.parallelism.into(),
            ask: false,
            command: "sessions restart",
        },
    )
}

#[derive(Debug, Serialize)]
struct Started {
    #[serde(rename = "ref")]
    reference: String,
    tmux_target: String,
    harness_session_id: String,
    cwd: PathBuf,
}

fn start(ctx: &Context, args: StartArgs) -> miette::Result<ExitCode> {
    let reference: WorkItemRef =
        args.reference
            .parse()
            .map_err(|e: crate::registry::RefError| {
                miette::miette!(code = "the_loop::ref::invalid", "{e}")
            })?;
    let harness = args
        .harness
        .clone()
        .unwrap_or_else(|| ctx.config.routing.default_harness.clone());
    check_supported(&harness)
        .map_err(|e| miette::miette!(code = "the_loop::harness::unsupported", "{e}"))?;
    let cwd = std::fs::canonicalize(&args.cwd).map_err(|e| {
        miette::miette!(
            code = "the_loop::start::cwd",
            "working directory {}: {}",
            args.cwd.display(),
            e.kind()
        )
    })?;
    // Validate the env file now, so a broken file is reported here rather
    // than by a pane that dies at launch.
    crate::desired::load_policy(&ctx.config, false)?;
    let name = reference.tmux_name();
    clear_occupant(ctx, &name)?;

    let session_id = new_session_id();
    let launch_args = LaunchArgs {
        harness_args: ctx.config.routing.harness_args_claude.clone(),
        model: args.model.clone(),
        effort: args.effort.clone(),
    };
    let spec = LaunchSpec {
        identity: Identity::WorkItem(reference.to_string()),
        cwd: cwd.clone(),
        launch: Launch::Fresh {
            session_id: session_id.clone(),
            prompt: args.prompt.clone(),
        },
        args: launch_args.clone(),
        config_path: ctx.config.path.clone(),
        harness_binary: crate::apply::precheck::harness_binary(&ctx.config),
    };
    let passthrough: Vec<(String, String)> = ctx
        .config
        .env
        .session_passthrough
        .iter()
        .filter_map(|n| std::env::var(n).ok().map(|v| (n.clone(), v)))
        .collect();
    new_session(
        &ctx.tmux,
        &name,
        &spec,
        ctx.config.routing.tmux.remain_on_exit,
        &passthrough,
    )
    .map_err(|e| match e {
        SpawnError::Occupied(n) => miette::miette!(
            code = "the_loop::start::occupied",
            help = format!(
                "the session appeared while starting; inspect it with `tmux attach -r -t {n}`"
            ),
            "tmux session {n} already exists"
        ),
        other => miette::Report::new(other),
    })?;

    let mut record = ctx
        .registry
        .load_work_item(&reference)
        .ok()
        .flatten()
        .unwrap_or_else(|| WorkItemRecord::new(&reference, &harness, Status::Active));
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
    ctx.events.emit(
        "session.spawned",
        serde_json::json!({"ref": reference.to_string(), "tmux_target": name, "harness_session_id": session_id, "resumed": false}),
    );
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

/// A live occupant is never killed; a dead one is cleared and the clear verified.
fn clear_occupant(ctx: &Context, name: &str) -> miette::Result<()> {
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
            if fleet::observe(&ctx.tmux).probe(name) != Probe::Absent {
                miette::bail!(code = "the_loop::start::occupied", "the dead tmux session {name} could not be cleared");
            }
            ctx.events.emit("session.occupant_cleared", serde_json::json!({"tmux_target": name}));
            Ok(())
        }
    }
}

#[derive(Debug, Serialize)]
struct Listed {
    #[serde(rename = "ref")]
    reference: Option<String>,
    standing: Option<String>,
    harness: String,
    tmux_target: String,
    status: Status,
    live: Probe,
    model: Option<String>,
    effort: Option<String>,
}

fn list(ctx: &Context, args: ListArgs) -> miette::Result<ExitCode> {
    let view = fleet::observe(&ctx.tmux);
    let (sessions, corrupt) = managed_sessions(&ctx.registry);
    let mut rows = Vec::new();
    for session in &sessions {
        let facts = crate::apply::precheck::load_facts(&ctx.registry, &session.identity)
            .unwrap_or_default();
        let status = match &session.identity {
            Identity::WorkItem(r) => r
                .parse()
                .ok()
                .and_then(|r| ctx.registry.load_work_item(&r).ok().flatten())
                .map(|r| r.status),
            Identity::Standing(n) => ctx
                .registry
                .load_standing(n)
                .ok()
                .flatten()
                .map(|r| r.status),
        };
        let (reference, standing) = match &session.identity {
            Identity::WorkItem(r) => (Some(r.clone()), None),
            Identity::Standing(n) => (None, Some(n.clone())),
        };
        rows.push(Listed {
            reference,
            standing,
            harness: facts.harness,
            tmux_target: session.tmux_target.clone(),
            status: status.unwrap_or(Status::Closed),
            live: view.probe(&session.tmux_target),
            model: facts.args.model,
            effort: facts.args.effort,
        });
    }
    if args.json {
        print_json(&serde_json::json!({"sessions": rows, "corrupt_records": corrupt}));
        return Ok(ExitCode::SUCCESS);
    }
    if rows.is_empty() {
        println!("No sessions are registered.");
    } else {
        let width = rows
            .iter()
            .map(|r| {
                r.reference
                    .as_deref()
                    .or(r.standing.as_deref())
                    .unwrap_or("")
                    .len()
            })
            .max()
            .unwrap_or(3)
            .max(3);
        println!(
            "{:<width$}  {:<8}  {:<40}  {:<7}  {:<7}  MODEL",
            "REF", "HARNESS", "TMUX", "STATUS", "LIVE"
        );
        for r in &rows {
            let model = match (&r.model, &r.effort) {
                (Some(m), Some(e)) => format!("{m} ({e})"),
                (Some(m), None) => m.clone(),
                _ => "-".into(),
            };
            let status = serde_json::to_value(r.status)
                .ok()
                .and_then(|v| v.as_str().map(String::from))
                .unwrap_or_default();
            let label = r
                .reference
                .as_deref()
                .or(r.standing.as_deref())
                .unwrap_or("");
            println!(
                "{label:<width$}  {:<8}  {:<40}  {status:<7}  {:<7}  {model}",
                r.harness,
                r.tmux_target,
                r.live.as_str()
            );
        }
    }
    for c in &corrupt {
        eprintln!(
            "warning: registry record {} cannot be read: {}",
            c.path.display(),
            c.reason
        );
    }
    Ok(ExitCode::SUCCESS)
}
