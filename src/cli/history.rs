//! `the-loop history`: arguments → [`crate::ops::history`] → `views::history`.

use super::output::stdout_style;
use crate::ops::Context;
use crate::views::Format;
use clap::Args;
use std::path::Path;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct HistoryArgs {
    /// Print the rolls as one JSON object (schemas/history.schema.json).
    #[arg(long)]
    pub json: bool,
}

pub fn run(config: Option<&Path>, args: HistoryArgs) -> miette::Result<ExitCode> {
    // The log is a file under the state root: no tmux is needed to read it,
    // and a history is most wanted when tmux is in trouble.
    let ctx = Context::load_without_tmux(config)?;
    let history = crate::ops::history::history(&ctx)?;
    crate::views::history::show(&history, Format::json_if(args.json), stdout_style());
    Ok(ExitCode::SUCCESS)
}
