//! `the-loop standing say`

use crate::cli::sessions::deliver::MessageArgs;
use crate::ops::standing::key;
use crate::ops::standing::say::{say, SayOptions};
use crate::ops::Context;
use crate::views::{delivery, Format};
use clap::Args;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct SayArgs {
    /// The standing session to send the message to, as named at `standing create`.
    #[arg(value_name = "NAME", add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::standing_names))]
    name: String,
    #[command(flatten)]
    message: MessageArgs,
}

pub fn run(ctx: &Context, args: SayArgs) -> miette::Result<ExitCode> {
    // The name is checked before any message is read.
    key(&args.name)?;
    let options = SayOptions {
        name: args.name,
        message: args.message.message()?,
    };
    let report = say(ctx, &options)?;
    delivery::render(&report, Format::json_if(args.message.json));
    Ok(ExitCode::from(report.outcome.exit_code()))
}
