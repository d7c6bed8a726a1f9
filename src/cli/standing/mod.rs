//! `the-loop standing …`: sessions that belong to no work item, addressed by
//! name and hosted in tmux session `loop-standing-<name>`. They share the
//! runner with work-item sessions (spawn, paste, close, respawn) and take
//! part in `plan` and `apply`.

mod create;
mod list;
mod restart;
mod say;
mod start;
mod stop;

use crate::ops::standing::key;
use crate::ops::Context;
use clap::Subcommand;
use std::path::Path;
use std::process::ExitCode;

#[derive(Debug, Subcommand)]
pub enum StandingCommand {
    /// Register a standing session and start its harness in a fresh conversation.
    ///
    /// Names are 1-40 characters of a-z, 0-9 and '-', starting with a letter or digit.
    #[command(after_help = crate::cli::help::STANDING_CREATE, after_long_help = crate::cli::help::STANDING_CREATE_LONG)]
    Create(create::CreateArgs),
    /// Start a stopped standing session again, resuming its conversation when it can.
    #[command(after_help = crate::cli::help::STANDING_START, after_long_help = crate::cli::help::STANDING_START_LONG)]
    Start(start::StartArgs),
    /// Stop a standing session through the close path (its tmux session kept by default).
    #[command(after_help = crate::cli::help::STANDING_STOP, after_long_help = crate::cli::help::STANDING_STOP_LONG)]
    Stop(stop::StopArgs),
    /// Respawn a running standing session in place on the env file as it is now.
    #[command(after_help = crate::cli::help::STANDING_RESTART, after_long_help = crate::cli::help::STANDING_RESTART_LONG)]
    Restart(restart::RestartArgs),
    /// List standing sessions with their tmux session and live state.
    #[command(after_help = crate::cli::help::STANDING_LIST, after_long_help = crate::cli::help::STANDING_LIST_LONG)]
    List(list::ListArgs),
    /// Deliver text into a standing session (respawning it when it is gone).
    #[command(after_help = crate::cli::help::STANDING_SAY, after_long_help = crate::cli::help::STANDING_SAY_LONG)]
    Say(say::SayArgs),
}

pub fn run(config: Option<&Path>, command: StandingCommand) -> miette::Result<ExitCode> {
    match command {
        StandingCommand::Create(args) => create::run(&Context::load(config)?, args),
        StandingCommand::Start(args) => start::run(&Context::load(config)?, args),
        StandingCommand::Stop(args) => stop::run(&Context::load(config)?, args),
        StandingCommand::Restart(args) => restart::run(config, args),
        StandingCommand::List(args) => list::run(&Context::load(config)?, args),
        StandingCommand::Say(args) => say::run(&Context::load(config)?, args),
    }
}
