//! `the-loop sessions cleanup`

use crate::ops::resolve::resolve_ref;
use crate::ops::sessions::cleanup::{cleanup, CleanupOptions};
use crate::ops::Context;
use crate::views::{close as view, Format};
use clap::Args;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct CleanupArgs {
    /// Work-item ref, e.g. github:octo/repo#15. Works with or without a record.
    #[arg(value_name = "REF", add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::work_item_refs))]
    reference: String,
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(ctx: &Context, args: CleanupArgs) -> miette::Result<ExitCode> {
    let options = CleanupOptions {
        reference: resolve_ref(&ctx.registry, &args.reference)?,
    };
    let report = cleanup(ctx, &options, &crate::cli::output::StderrNotes)?;
    view::cleaned(&report, Format::json_if(args.json));
    Ok(super::exit_code(report.complete()))
}
