//! `the-loop standing restart`: the same in-place roll as `sessions restart`.

use super::key;
use crate::apply::fleet::DEFAULT_PARALLELISM;
use crate::apply::Mode;
use crate::cli::apply::{roll, Roll};
use crate::ops::apply::RollCommand;
use crate::ops::Context;
use clap::Args;
use std::path::Path;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct RestartArgs {
    /// The standing session to restart in place, as named at `standing create`.
    #[arg(value_name = "NAME", add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::standing_names))]
    name: String,
    /// Report what would be relaunched, and why, without touching anything.
    #[arg(long)]
    dry_run: bool,
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
    /// Wait up to this long (30s, 5m, 1h; at most 24h) for a running apply
    /// or restart to release the apply lock, instead of refusing at once.
    #[arg(long, value_name = "DURATION", default_value = "0s", value_parser = crate::cli::duration::lock_timeout)]
    lock_timeout: std::time::Duration,
    #[command(flatten)]
    drain: crate::cli::apply::DrainArgs,
}

pub fn run(config: Option<&Path>, args: RestartArgs) -> miette::Result<ExitCode> {
    key(&args.name)?;
    let ctx = Context::load(config)?;
    let targets = crate::cli::plan::resolve_pane_targets(&ctx, std::slice::from_ref(&args.name))?;
    roll(
        &ctx,
        Roll {
            command: RollCommand::StandingRestart,
            mode: Mode::Restart,
            targets,
            saved_plan: None,
            dry_run: args.dry_run,
            json: args.json,
            json_stream: false,
            input: false,
            parallelism: DEFAULT_PARALLELISM.into(),
            ask: false,
            scrub_tmux_env: false,
            lock_timeout: args.lock_timeout,
            drain: args.drain.into(),
        },
    )
}
