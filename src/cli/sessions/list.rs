//! `the-loop sessions list`

use crate::ops::sessions::list::{list, ListOptions};
use crate::ops::Context;
use crate::registry::Status;
use crate::views::{sessions_list, Format};
use clap::{Args, ValueEnum};
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Print every field of every session as one JSON document (see
    /// schemas/sessions-list.schema.json).
    #[arg(long)]
    json: bool,
    /// Only sessions whose record has this status (unmanaged sessions have none).
    #[arg(long, value_enum)]
    status: Option<StatusFilter>,
    /// Only standing sessions; with a NAME, only that one.
    #[arg(long, value_name = "NAME", num_args = 0..=1, conflicts_with = "work_item", add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::standing_names))]
    standing: Option<Option<String>>,
    /// Only work-item sessions; with a REF, only those it names (a full ref,
    /// #15, repo#15 or owner/repo#15).
    #[arg(long, value_name = "REF", num_args = 0..=1, add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::work_item_refs))]
    work_item: Option<Option<String>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum StatusFilter {
    Active,
    Paused,
    Closed,
}

impl From<StatusFilter> for Status {
    fn from(filter: StatusFilter) -> Status {
        match filter {
            StatusFilter::Active => Status::Active,
            StatusFilter::Paused => Status::Paused,
            StatusFilter::Closed => Status::Closed,
        }
    }
}

pub fn run(ctx: &Context, args: ListArgs) -> miette::Result<ExitCode> {
    let options = ListOptions {
        status: args.status.map(Status::from),
        standing: args.standing,
        work_item: args.work_item,
    };
    let report = list(ctx, &options)?;
    sessions_list::render(&report, Format::json_if(args.json));
    Ok(ExitCode::SUCCESS)
}
