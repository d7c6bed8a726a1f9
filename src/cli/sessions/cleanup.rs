//! `the-loop sessions cleanup`

use super::deliver::resolve_ref;
use crate::cli::output::print_json;
use crate::lifecycle::cleanup::{cleanup, CheckoutAction, CleanupReport};
use crate::lifecycle::close::TmuxResult;
use crate::lifecycle::key;
use crate::lifecycle::{queue, SessionKey};
use crate::ops::Context;
use clap::Args;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct CleanupArgs {
    /// Work-item ref, e.g. github:octo/repo#15. Works with or without a record.
    #[arg(value_name = "REF")]
    reference: String,
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(ctx: &Context, args: CleanupArgs) -> miette::Result<ExitCode> {
    let reference = resolve_ref(ctx, &args.reference)?;
    let key = SessionKey::WorkItem(reference.clone());
    let _turn = queue::wait_turn(
        &ctx.config.state_root,
        &key.tmux_name(),
        queue::DEFAULT_WAIT,
    )?;
    let record = match key::load(&ctx.registry, &key) {
        Ok(record) => record,
        Err(err) => {
            // A record that cannot be read does not stop a cleanup: the
            // sessions and checkout are found from the ref alone.
            crate::errln!("warning: {err}; cleaning up from the ref alone");
            None
        }
    };
    let report = cleanup(ctx, &reference, record.as_ref());
    if args.json {
        print_json(&report);
    } else {
        print_cleanup(&report);
    }
    Ok(if report.complete() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

pub fn print_cleanup(report: &CleanupReport) {
    for e in &report.endpoints {
        let what = match e.tmux {
            TmuxResult::Killed if !e.harness.is_empty() => {
                "ended its harness and killed the session"
            }
            TmuxResult::Killed => "killed the session",
            TmuxResult::Absent => "no such session",
            TmuxResult::Retained | TmuxResult::Untouched => "NOT killed",
        };
        crate::outln!("{} ({}): {what}.", e.tmux_target, e.reference);
        for p in &e.problems {
            crate::errln!("warning: {}: {p}", e.tmux_target);
        }
    }
    for c in &report.checkouts {
        match c.action {
            CheckoutAction::Removed => crate::outln!("Removed the checkout {}.", c.path.display()),
            CheckoutAction::Kept | CheckoutAction::Failed => crate::outln!(
                "Did not remove {}: {}.",
                c.path.display(),
                c.detail.as_deref().unwrap_or("")
            ),
        }
    }
    if report.record_deleted {
        crate::outln!("Deleted the registry record of {}.", report.reference);
    } else {
        crate::outln!("There was no registry record for {}.", report.reference);
    }
    if report.last_control.is_some() {
        crate::outln!(
            "Recorded `cleanup` as its last control command: later events will not start it again (`the-loop sessions start` will)."
        );
    }
    for p in &report.problems {
        crate::errln!("warning: {p}");
    }
}
