//! `the-loop sessions deliver`

use crate::ops::resolve::resolve_ref;
use crate::ops::sessions::deliver::{deliver, DeliverOptions, Message};
use crate::ops::Context;
use crate::views::{delivery, Format};
use clap::Args;
use std::io::ErrorKind;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct DeliverArgs {
    /// Work-item ref, e.g. github:octo/repo#15. A pull request linked to a
    /// work item (`sessions link-pr`) is delivered into that item's session.
    #[arg(value_name = "REF", add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::work_item_refs))]
    reference: String,
    #[command(flatten)]
    pub message: MessageArgs,
}

/// The text to deliver and its delivery id (shared with `standing say`).
#[derive(Debug, Args)]
pub struct MessageArgs {
    /// The text to deliver.
    #[arg(
        long,
        value_name = "TEXT",
        conflicts_with = "file",
        required_unless_present = "file"
    )]
    message: Option<String>,
    /// Read the text from FILE (`-` for stdin).
    #[arg(long, value_name = "FILE")]
    file: Option<PathBuf>,
    /// An id for this delivery (a webhook delivery GUID, say). An id the
    /// session already processed makes this a no-op, so redelivery is safe.
    #[arg(long, value_name = "ID")]
    pub delivery_id: Option<String>,
    /// How long to wait for the harness to be ready to take input (launched
    /// and drawn) before pasting: `30s`, `2m`, `0` (look once); at most 10m.
    /// Not ready by then: nothing is pasted and the delivery fails (exit 1),
    /// so a redelivery retries it.
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = crate::cli::duration::ready_timeout)]
    pub ready_timeout: std::time::Duration,
    /// Print the result as one JSON object.
    #[arg(long)]
    pub json: bool,
}

impl MessageArgs {
    /// The message to deliver, its text read from where the arguments say.
    pub fn message(&self) -> miette::Result<Message> {
        Ok(Message {
            text: self.text()?,
            delivery_id: self.delivery_id.clone(),
            ready_timeout: self.ready_timeout,
        })
    }

    /// The text, without the trailing newlines a file usually ends with
    /// (the submit is a separate keystroke).
    fn text(&self) -> miette::Result<String> {
        let raw = match (&self.message, &self.file) {
            (Some(text), _) => text.clone(),
            (None, Some(path)) if path.as_os_str() == "-" => {
                let limit = &crate::bounded_read::MESSAGE;
                crate::bounded_read::read_stream(std::io::stdin().lock(), limit)
                    .and_then(|b| String::from_utf8(b).map_err(|_| ErrorKind::InvalidData.into()))
                    .map_err(|e| {
                        miette::miette!(
                            code = "the_loop::deliver::stdin",
                            "cannot read the message from stdin: {}",
                            crate::bounded_read::describe(&e)
                        )
                    })?
            }
            (None, Some(path)) => {
                crate::bounded_read::read_string(path, &crate::bounded_read::MESSAGE).map_err(
                    |e| {
                        miette::miette!(
                            code = "the_loop::deliver::file",
                            help = "the file must be a regular file of UTF-8 text, at most 1 MiB",
                            "cannot read the message file {}: {}",
                            path.display(),
                            crate::bounded_read::describe(&e)
                        )
                    },
                )?
            }
            (None, None) => unreachable!("clap requires one"),
        };
        let text = raw.trim_end_matches(['\n', '\r']).to_owned();
        if text.trim().is_empty() {
            miette::bail!(
                code = "the_loop::deliver::empty",
                help = "pass the text with --message TEXT or --file FILE",
                "the message is empty; nothing to deliver"
            );
        }
        Ok(text)
    }
}

pub fn run(ctx: &Context, args: DeliverArgs) -> miette::Result<ExitCode> {
    // The ref is checked before any message is read.
    let reference = resolve_ref(&ctx.registry, &args.reference)?;
    let options = DeliverOptions {
        reference,
        message: args.message.message()?,
    };
    let report = deliver(ctx, &options)?;
    delivery::render(&report, Format::json_if(args.message.json));
    Ok(ExitCode::from(report.outcome.exit_code()))
}
