//! `the-loop standing list`

use crate::ops::standing::list::list;
use crate::ops::Context;
use crate::views::{standing, Format};
use clap::Args;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(ctx: &Context, args: ListArgs) -> miette::Result<ExitCode> {
    standing::list(&list(ctx)?, Format::json_if(args.json));
    Ok(ExitCode::SUCCESS)
}
