//! `the-loop web-terminal`

use crate::ops::web_terminal::web_terminal;
use crate::ops::Context;
use crate::views;
use clap::Args;
use std::path::Path;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct WebTerminalArgs {}

pub fn run(config: Option<&Path>, _args: WebTerminalArgs) -> miette::Result<ExitCode> {
    let ctx = Context::load(config)?;
    web_terminal(&ctx, views::web_terminal::serving)?;
    views::web_terminal::stopped();
    Ok(ExitCode::SUCCESS)
}
