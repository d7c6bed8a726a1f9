//! `the-loop sessions pause` and `the-loop sessions resume`

use crate::ops::sessions::pause::{PauseOptions, StatusChange};
use crate::ops::Context;
use crate::views::{sessions, Format};
use clap::Args;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct PauseArgs {
    /// Work-item ref (github:octo/repo#15), or a short form that matches one
    /// registered work item (#15, repo#15, owner/repo#15) or its tmux name.
    #[arg(value_name = "REF", add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::session_refs))]
    reference: String,
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
}

/// `pause` and `resume` differ only in the op they call.
pub fn run(
    ctx: &Context,
    args: PauseArgs,
    op: fn(&Context, &PauseOptions) -> miette::Result<StatusChange>,
) -> miette::Result<ExitCode> {
    let report = op(
        ctx,
        &PauseOptions {
            reference: args.reference,
        },
    )?;
    sessions::status_change(&report, Format::json_if(args.json));
    Ok(ExitCode::SUCCESS)
}
