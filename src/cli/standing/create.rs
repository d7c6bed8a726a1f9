//! `the-loop standing create`

use crate::cli::sessions::start::LaunchOptions;
use crate::ops::standing::create::{create, CreateOptions};
use crate::ops::Context;
use crate::views::{standing, Format};
use clap::Args;
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
    let options = CreateOptions {
        name: args.name,
        launch: args.launch.into(),
    };
    let created = create(ctx, &options)?;
    standing::created(&created, Format::json_if(args.json));
    Ok(ExitCode::SUCCESS)
}
