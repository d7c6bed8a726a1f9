//! `the-loop sessions restart`

use crate::apply::fleet::DEFAULT_PARALLELISM;
use crate::apply::Mode;
use crate::cli::apply::{roll, Roll};
use crate::ops::apply::RollCommand;
use crate::ops::Context;
use crate::plan::Targets;
use clap::Args;
use std::path::Path;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct RestartArgs {
    /// Restart every live managed session.
    #[arg(long, conflicts_with = "reference")]
    all: bool,
    /// The work-item ref (or standing name) to restart.
    #[arg(value_name = "REF", add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::session_refs))]
    reference: Option<String>,
    /// Report what would be relaunched, and why, without touching anything.
    #[arg(long)]
    dry_run: bool,
    /// Print the report as one JSON object (the `apply --json` format).
    #[arg(long, conflicts_with = "json_stream")]
    json: bool,
    /// Print the roll as JSON lines as it happens (the `apply --json-stream` format).
    #[arg(long)]
    json_stream: bool,
    /// How many sessions may be ended and respawned at once after the canary.
    ///
    /// The wait of resumeProbeSeconds and the verification that follow a
    /// respawn take no slot, so the waits of many sessions overlap. From 1
    /// to 65535.
    #[arg(long, default_value_t = DEFAULT_PARALLELISM, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    parallelism: u16,
    /// Wait up to this long (30s, 5m, 1h; at most 24h) for a running apply
    /// or restart to release the apply lock, instead of refusing at once.
    #[arg(long, value_name = "DURATION", default_value = "0s", value_parser = crate::cli::duration::lock_timeout)]
    lock_timeout: std::time::Duration,
    #[command(flatten)]
    drain: crate::cli::apply::DrainArgs,
}

pub fn run(config: Option<&Path>, args: RestartArgs) -> miette::Result<ExitCode> {
    if !args.all && args.reference.is_none() {
        miette::bail!(
            code = "the_loop::restart::no_target",
            help = "pass --all to restart every live session, or a work-item ref such as github:octo/repo#15",
            "sessions restart needs --all or a work-item ref; it will not guess at a fleet-wide relaunch"
        );
    }
    let ctx = Context::load(config)?;
    let targets = match &args.reference {
        Some(r) => crate::cli::plan::resolve_pane_targets(&ctx, std::slice::from_ref(r))?,
        None => Targets::all(),
    };
    roll(
        &ctx,
        Roll {
            command: RollCommand::SessionsRestart,
            mode: Mode::Restart,
            targets,
            saved_plan: None,
            dry_run: args.dry_run,
            json: args.json,
            json_stream: args.json_stream,
            input: false,
            parallelism: args.parallelism.into(),
            ask: false,
            scrub_tmux_env: false,
            lock_timeout: args.lock_timeout,
            drain: args.drain.into(),
        },
    )
}
