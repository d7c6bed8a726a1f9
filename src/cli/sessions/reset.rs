//! `the-loop sessions reset`

use crate::ops::sessions::reset::{reset, ResetOptions};
use crate::ops::Context;
use crate::views::{close as view, Format};
use clap::Args;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct ResetArgs {
    /// Work-item refs to reset.
    #[arg(
        value_name = "REF",
        required_unless_present = "all",
        conflicts_with = "all",
        add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::work_item_refs)
    )]
    references: Vec<String>,
    /// Reset every registered work item.
    #[arg(long)]
    all: bool,
    /// Say what would be ended and deleted, and change nothing.
    #[arg(long)]
    dry_run: bool,
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(ctx: &Context, args: ResetArgs) -> miette::Result<ExitCode> {
    let options = ResetOptions {
        references: args.references,
        all: args.all,
        dry_run: args.dry_run,
    };
    let report = reset(ctx, &options, &crate::cli::output::StderrNotes)?;
    view::reset(&report, Format::json_if(args.json));
    Ok(super::exit_code(report.complete()))
}
