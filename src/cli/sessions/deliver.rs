//! `the-loop sessions deliver`

use crate::cli::output::print_json;
use crate::lifecycle::deliver::{deliver, Delivery, DeliveryReport, Outcome, Route};
use crate::lifecycle::links::owner_of;
use crate::lifecycle::SessionKey;
use crate::ops::Context;
use crate::registry::WorkItemRef;
use clap::Args;
use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct DeliverArgs {
    /// Work-item ref, e.g. github:octo/repo#15. A pull request linked to a
    /// work item (`sessions link-pr`) is delivered into that item's session.
    #[arg(value_name = "REF")]
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
    /// The text, without the trailing newlines a file usually ends with
    /// (the submit is a separate keystroke).
    pub fn text(&self) -> miette::Result<String> {
        let raw = match (&self.message, &self.file) {
            (Some(text), _) => text.clone(),
            (None, Some(path)) if path.as_os_str() == "-" => {
                let mut text = String::new();
                std::io::stdin().read_to_string(&mut text).map_err(|e| {
                    miette::miette!(
                        code = "the_loop::deliver::stdin",
                        "cannot read the message from stdin: {}",
                        e.kind()
                    )
                })?;
                text
            }
            (None, Some(path)) => std::fs::read_to_string(path).map_err(|e| {
                miette::miette!(
                    code = "the_loop::deliver::file",
                    help = "the file must exist and hold UTF-8 text",
                    "cannot read the message file {}: {}",
                    path.display(),
                    e.kind()
                )
            })?,
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

/// A ref as the registry records it (see [`crate::ops::resolve::resolve_ref`]).
pub fn resolve_ref(ctx: &Context, text: &str) -> miette::Result<WorkItemRef> {
    crate::ops::resolve::resolve_ref(&ctx.registry, text)
}

pub fn run(ctx: &Context, args: DeliverArgs) -> miette::Result<ExitCode> {
    let reference = resolve_ref(ctx, &args.reference)?;
    let text = args.message.text()?;
    // One tmux session per work item: a linked pull request's events go into
    // the item's session.
    let (key, via) = match owner_of(&ctx.registry, &reference) {
        Some(owner) => (SessionKey::WorkItem(owner), Some(reference.to_string())),
        None => (SessionKey::WorkItem(reference), None),
    };
    let report = deliver(
        ctx,
        &Delivery {
            key,
            text: &text,
            delivery_id: args.message.delivery_id.as_deref(),
            ready_timeout: args.message.ready_timeout,
            via_pull_request: via,
        },
    )?;
    Ok(print_delivery(&report, args.message.json))
}

/// Prints the report and returns the exit code its outcome maps to.
pub fn print_delivery(report: &DeliveryReport, json: bool) -> ExitCode {
    if json {
        print_json(report);
    } else {
        let who = report
            .reference
            .as_deref()
            .or(report.standing.as_deref())
            .unwrap_or("");
        let via = report
            .via_pull_request
            .as_deref()
            .map(|pr| format!(" (for linked pull request {pr})"))
            .unwrap_or_default();
        let target = &report.tmux_target;
        let reason = report.reason.as_deref().unwrap_or("");
        match (report.outcome, report.route) {
            (Outcome::Delivered, Some(Route::Pasted)) => {
                crate::outln!("Delivered to {who}{via} in tmux session {target}.")
            }
            (Outcome::Delivered, Some(Route::Respawned)) => {
                let how = if report.resumed == Some(true) {
                    "resuming its conversation".to_owned()
                } else {
                    format!("in a fresh conversation ({reason})")
                };
                crate::outln!(
                    "Respawned {who}{via} in tmux session {target}, {how}; the message was its first prompt."
                )
            }
            (Outcome::Delivered, _) => crate::outln!(
                "Delivered to {who}{via} into the live session already holding {target} (respawn averted)."
            ),
            (Outcome::Duplicate, _) => crate::outln!("Already delivered: {reason}; nothing to do."),
            (Outcome::Failed, _) => crate::errln!(
                "Delivery to {who}{via} failed: {reason}. The delivery id was not recorded, so redelivering retries it."
            ),
            (outcome, _) => crate::errln!(
                "Not delivered to {who}{via} ({}): {reason}.",
                serde_json::to_value(outcome)
                    .ok()
                    .and_then(|v| v.as_str().map(String::from))
                    .unwrap_or_default()
            ),
        }
    }
    ExitCode::from(report.outcome.exit_code())
}
