//! `the-loop status`: arguments → [`crate::ops::status`] → `views::status`.

use crate::ops::Context;
use crate::views::Format;
use clap::Args;
use std::path::Path;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct StatusArgs {
    /// Print services and per-session facts as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(config: Option<&Path>, args: StatusArgs) -> miette::Result<ExitCode> {
    let ctx = Context::load(config)?;
    let report = crate::ops::status::status(&ctx);
    crate::views::status::show(&report, Format::json_if(args.json));
    Ok(if report.all_running() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
