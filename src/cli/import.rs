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
    /// runs a harness. With `--host claude-background`: the background
    /// session's short id, as `claude agents` lists it.
    #[arg(value_name = "PANE|ID")]
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
    /// Where the session lives: a tmux pane (default), or one of Claude
    /// Code's background sessions (`routing.hosts` must name
    /// `claude-background`; docs/hosts.md).
    #[arg(long, value_enum, default_value = "tmux")]
    host: crate::host_kind::Host,
}

pub fn run(config: Option<&Path>, args: ImportArgs) -> miette::Result<ExitCode> {
    let ctx = Context::load(config)?;
    if args.host != crate::host_kind::Host::Tmux {
        let report = crate::ops::on_host::import(
            &ctx,
            args.host,
            &args.pane,
            &args.reference,
            args.dry_run,
        )?;
        crate::views::import::imported_on_host(&report, Format::json_if(args.json));
        return Ok(ExitCode::SUCCESS);
    }
    let options = ImportOptions {
        pane: args.pane,
        reference: args.reference,
        dry_run: args.dry_run,
    };
    let report = import(&ctx, &options)?;
    imported(&report, Format::json_if(args.json), stdout_style());
    Ok(ExitCode::SUCCESS)
}
