//! `the-loop import`

use super::output::stdout_style;
use crate::ops::import::{import, ImportOptions};
use crate::ops::Context;
use crate::views::{import::imported, Format};
use clap::Args;
use std::path::Path;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The tmux pane the harness runs in: its id (`%3`, as `the-loop plan`
    /// lists it), or the name of a tmux session where exactly one pane
    /// runs a harness.
    #[arg(value_name = "TMUX-PANE")]
    pane: String,
    /// The work item the session is for, e.g. github:octo/repo#15.
    #[arg(value_name = "REF")]
    reference: String,
    /// Say what would be done: check everything, change nothing.
    #[arg(long)]
    dry_run: bool,
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(config: Option<&Path>, args: ImportArgs) -> miette::Result<ExitCode> {
    let ctx = Context::load(config)?;
    let options = ImportOptions {
        pane: args.pane,
        reference: args.reference,
        dry_run: args.dry_run,
    };
    let report = import(&ctx, &options)?;
    imported(&report, Format::json_if(args.json), stdout_style());
    Ok(ExitCode::SUCCESS)
}
