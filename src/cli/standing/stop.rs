//! `the-loop standing stop`

use super::{key, not_registered};
use crate::cli::output::print_json;
use crate::cli::sessions::close::print_close;
use crate::lifecycle::close::{close, CloseOptions};
use crate::lifecycle::key as records;
use crate::lifecycle::queue;
use crate::ops::Context;
use clap::Args;
use serde_json::json;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct StopArgs {
    /// The standing session to stop, as named at `standing create`.
    #[arg(value_name = "NAME")]
    name: String,
    /// Keep the tmux session, whatever routing.tmux.keepSessionOnClose says.
    #[arg(long, conflicts_with = "kill_tmux")]
    keep_tmux: bool,
    /// Kill the tmux session, whatever routing.tmux.keepSessionOnClose says.
    #[arg(long)]
    kill_tmux: bool,
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(ctx: &Context, args: StopArgs) -> miette::Result<ExitCode> {
    let key = key(&args.name)?;
    let options = CloseOptions::from_config(ctx, args.keep_tmux, args.kill_tmux);
    let _turn = queue::wait_turn(
        &ctx.config.state_root,
        &key.tmux_name(),
        queue::DEFAULT_WAIT,
    )?;
    let Some(mut record) = records::load(&ctx.registry, &key)? else {
        return Err(not_registered(&args.name));
    };
    let report = close(ctx, &key, Some(&mut record), options, true);
    if args.json {
        print_json(&json!({"standing": args.name, "close": report}));
    } else {
        print_close(&key, &report);
    }
    Ok(ExitCode::SUCCESS)
}
