//! `the-loop standing stop`

use crate::cli::sessions::close::TmuxArgs;
use crate::ops::standing::stop::{stop, StopOptions};
use crate::ops::Context;
use crate::views::{close as view, Format};
use clap::Args;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct StopArgs {
    /// The standing session to stop, as named at `standing create`.
    #[arg(value_name = "NAME", add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::standing_names))]
    name: String,
    #[command(flatten)]
    tmux: TmuxArgs,
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(ctx: &Context, args: StopArgs) -> miette::Result<ExitCode> {
    let options = StopOptions {
        name: args.name,
        tmux: args.tmux.into(),
    };
    let stopped = stop(ctx, &options)?;
    view::stopped(&stopped, Format::json_if(args.json));
    Ok(ExitCode::SUCCESS)
}
