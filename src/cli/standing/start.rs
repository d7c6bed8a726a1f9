//! `the-loop standing start`

use crate::ops::standing::start::{start, StartOptions};
use crate::ops::Context;
use crate::views::{standing, Format};
use clap::Args;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct StartArgs {
    /// The standing session to start (or resume), as named at `standing create`.
    #[arg(value_name = "NAME", add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::standing_names))]
    name: String,
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(ctx: &Context, args: StartArgs) -> miette::Result<ExitCode> {
    let started = start(ctx, &StartOptions { name: args.name })?;
    standing::started(&started, Format::json_if(args.json));
    Ok(ExitCode::SUCCESS)
}
