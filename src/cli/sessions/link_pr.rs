//! `the-loop sessions link-pr`

use crate::ops::sessions::link_pr::{link_pr, LinkOptions};
use crate::ops::Context;
use crate::views::{sessions, Format};
use clap::Args;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct LinkPrArgs {
    /// The work item, e.g. github:octo/repo#15.
    #[arg(value_name = "REF", add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::work_item_refs))]
    reference: String,
    /// The pull request delivering it, e.g. github:octo/repo#16.
    #[arg(long, value_name = "REF")]
    pull_request: String,
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(ctx: &Context, args: LinkPrArgs) -> miette::Result<ExitCode> {
    let options = LinkOptions {
        reference: args.reference,
        pull_request: args.pull_request,
    };
    let linked = link_pr(ctx, &options)?;
    sessions::linked(&linked, Format::json_if(args.json));
    Ok(ExitCode::SUCCESS)
}
