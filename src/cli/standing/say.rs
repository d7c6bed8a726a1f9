//! `the-loop standing say`: a delivery into a standing session.

use super::key;
use crate::cli::sessions::deliver::{print_delivery, MessageArgs};
use crate::lifecycle::deliver::{deliver, Delivery};
use crate::ops::Context;
use clap::Args;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct SayArgs {
    /// The standing session to send the message to, as named at `standing create`.
    #[arg(value_name = "NAME")]
    name: String,
    #[command(flatten)]
    message: MessageArgs,
}

pub fn run(ctx: &Context, args: SayArgs) -> miette::Result<ExitCode> {
    let key = key(&args.name)?;
    let text = args.message.text()?;
    let report = deliver(
        ctx,
        &Delivery {
            key,
            text: &text,
            delivery_id: args.message.delivery_id.as_deref(),
            ready_timeout: args.message.ready_timeout,
            via_pull_request: None,
        },
    )?;
    Ok(print_delivery(&report, args.message.json))
}
