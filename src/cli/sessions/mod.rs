//! `the-loop sessions …`: one file per verb.

mod list;
mod restart;
mod start;

use super::context::Context;
use clap::Subcommand;
use std::path::Path;
use std::process::ExitCode;

#[derive(Debug, Subcommand)]
pub enum SessionsCommand {
    /// Start a harness session for a work item, detached in tmux session loop-<slug>.
    ///
    /// The pane runs the-loop's launcher, which reads the env file itself and
    /// starts the harness with the desired environment: withheld names absent
    /// (even when the tmux server holds them), delivered names set, identifiers set.
    Start(start::StartArgs),
    /// List registered sessions with their tmux target and live state.
    List(list::ListArgs),
    /// Respawn running sessions in place on the env file as it is now.
    ///
    /// Every targeted live session is relaunched with its conversation resumed,
    /// then verified. A session whose conversation cannot be resumed is left
    /// alone; one that is not running is skipped, never started.
    #[command(
        after_help = "Exit codes: 0 every targeted live session respawned and verified (or unverified); 1 otherwise."
    )]
    Restart(restart::RestartArgs),
}

pub fn run(config: Option<&Path>, command: SessionsCommand) -> miette::Result<ExitCode> {
    match command {
        SessionsCommand::Start(args) => start::run(&Context::load(config)?, args),
        SessionsCommand::List(args) => list::run(&Context::load(config)?, args),
        SessionsCommand::Restart(args) => restart::run(config, args),
    }
}
