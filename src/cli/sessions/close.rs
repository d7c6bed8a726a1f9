//! `the-loop sessions stop` and `the-loop sessions close`

use crate::ops::resolve::resolve_ref;
use crate::ops::sessions::close::{close, stop, CloseItemOptions, StopOptions, TmuxChoice};
use crate::ops::Context;
use crate::views::{close as view, Format};
use clap::Args;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct StopArgs {
    /// Work-item ref, e.g. github:octo/repo#15.
    #[arg(value_name = "REF", add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::work_item_refs))]
    reference: String,
    #[command(flatten)]
    tmux: TmuxArgs,
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
pub struct CloseArgs {
    /// Work-item ref, e.g. github:octo/repo#15.
    #[arg(value_name = "REF", add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::work_item_refs))]
    reference: String,
    #[command(flatten)]
    tmux: TmuxArgs,
    /// Who closed the work item. When routing.authorizedUsers holds this
    /// login, a cleanup follows the close; otherwise it is deferred.
    #[arg(long, value_name = "LOGIN")]
    actor: Option<String>,
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
}

/// `--keep-tmux` / `--kill-tmux` (shared with `standing stop`).
#[derive(Debug, Args)]
pub struct TmuxArgs {
    /// Keep the tmux session, whatever routing.tmux.keepSessionOnClose says.
    #[arg(long, conflicts_with = "kill_tmux")]
    keep_tmux: bool,
    /// Kill the tmux session, whatever routing.tmux.keepSessionOnClose says.
    #[arg(long)]
    kill_tmux: bool,
}

impl From<TmuxArgs> for TmuxChoice {
    fn from(args: TmuxArgs) -> TmuxChoice {
        TmuxChoice {
            keep: args.keep_tmux,
            kill: args.kill_tmux,
        }
    }
}

pub fn stop_cmd(ctx: &Context, args: StopArgs) -> miette::Result<ExitCode> {
    let options = StopOptions {
        reference: resolve_ref(&ctx.registry, &args.reference)?,
        tmux: args.tmux.into(),
    };
    let stopped = stop(ctx, &options)?;
    view::stopped(&stopped, Format::json_if(args.json));
    Ok(ExitCode::SUCCESS)
}

pub fn close_cmd(ctx: &Context, args: CloseArgs) -> miette::Result<ExitCode> {
    let options = CloseItemOptions {
        reference: resolve_ref(&ctx.registry, &args.reference)?,
        tmux: args.tmux.into(),
        actor: args.actor,
    };
    let closed = close(ctx, &options)?;
    view::closed(&closed, Format::json_if(args.json));
    Ok(super::exit_code(closed.complete()))
}
