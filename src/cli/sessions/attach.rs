//! `the-loop sessions attach`

use crate::ops::sessions::attach::{attach, AttachOptions};
use crate::ops::Context;
use crate::views::sessions;
use clap::Args;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct AttachArgs {
    /// The session: a work-item ref (github:octo/repo#15), a short form when
    /// it matches one registered session (#15, repo#15, owner/repo#15), a
    /// standing-session name, or the tmux name `sessions list` shows.
    #[arg(
        value_name = "REF",
        required_unless_present = "work_item",
        conflicts_with = "work_item"
    ,
        add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::session_refs)
    )]
    reference: Option<String>,
    /// The work item, in any form REF takes.
    #[arg(long, value_name = "REF", add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::session_refs))]
    work_item: Option<String>,
    /// Watch without being able to type (`tmux attach -r`). Deliveries are
    /// not affected by a read-only observer.
    #[arg(long)]
    read_only: bool,
}

pub fn run(ctx: &Context, args: AttachArgs) -> miette::Result<ExitCode> {
    let options = AttachOptions {
        work_item_only: args.work_item.is_some(),
        reference: args.reference.or(args.work_item).unwrap_or_default(),
        read_only: args.read_only,
        come_back: false,
    };
    let switched = attach(ctx, &options, &crate::cli::output::StderrNotes)?;
    sessions::switched(&switched);
    Ok(ExitCode::SUCCESS)
}
