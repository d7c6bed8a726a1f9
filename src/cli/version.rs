//! `the-loop version`: this binary's build facts → `views::version`.

use crate::views::Format;
use clap::Args;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct VersionArgs {
    /// Print them as one JSON object (schemas/version.schema.json).
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: VersionArgs) -> miette::Result<ExitCode> {
    crate::views::version::show(&crate::build_info::current(), Format::json_if(args.json));
    Ok(ExitCode::SUCCESS)
}
