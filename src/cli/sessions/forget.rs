//! `the-loop sessions forget`

use crate::ops::sessions::forget::forget;
use crate::ops::Context;
use crate::views::{uninstall as view, Format};
use clap::Args;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct ForgetArgs {
    /// Work-item ref (github:octo/repo#15), a short form that matches one
    /// registered session (#15, repo#15), a standing name or the tmux name.
    #[arg(value_name = "REF", add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::session_refs))]
    reference: String,
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(ctx: &Context, args: ForgetArgs) -> miette::Result<ExitCode> {
    let report = forget(ctx, &args.reference)?;
    view::forgotten(&report, Format::json_if(args.json));
    Ok(ExitCode::SUCCESS)
}
