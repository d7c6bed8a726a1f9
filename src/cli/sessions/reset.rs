//! `the-loop sessions reset`: the close path, then the record is deleted,
//! so the work item starts over. A tmux session kept by policy outlives the
//! record and is read back with `tmux attach -r -t loop-<slug>`.

use super::close::print_close;
use super::deliver::resolve_ref;
use crate::cli::output::print_json;
use crate::lifecycle::close::{close, CloseOptions, CloseReport, Disposition};
use crate::lifecycle::key::{self, fields};
use crate::lifecycle::probe::probe;
use crate::lifecycle::{queue, SessionKey};
use crate::observed::Probe;
use crate::ops::Context;
use clap::Args;
use serde::Serialize;
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct ResetArgs {
    /// Work-item refs to reset.
    #[arg(
        value_name = "REF",
        required_unless_present = "all",
        conflicts_with = "all"
    )]
    references: Vec<String>,
    /// Reset every registered work item.
    #[arg(long)]
    all: bool,
    /// Say what would be ended and deleted, and change nothing.
    #[arg(long)]
    dry_run: bool,
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Serialize)]
struct Reset {
    #[serde(rename = "ref")]
    reference: String,
    tmux_target: String,
    dry_run: bool,
    /// The probe before anything was done.
    probe: Probe,
    /// Whether a running harness was (or, with --dry-run, would be) ended.
    ended_live_session: bool,
    tmux: Disposition,
    close: Option<CloseReport>,
    record_deleted: bool,
    /// A reset never deletes a checkout; it is named so nobody assumes it did.
    checkout: Option<PathBuf>,
    checkout_removed: bool,
    problem: Option<String>,
}

pub fn run(ctx: &Context, args: ResetArgs) -> miette::Result<ExitCode> {
    let keys: Vec<SessionKey> = if args.all {
        let listing = ctx.registry.work_items();
        for c in &listing.corrupt {
            crate::errln!(
                "warning: registry record {} cannot be read ({}); not reset",
                c.path.display(),
                c.reason
            );
        }
        listing
            .records
            .iter()
            .filter_map(|(_, r)| r.work_item_ref().ok())
            .map(SessionKey::WorkItem)
            .collect()
    } else {
        args.references
            .iter()
            .map(|r| resolve_ref(ctx, r).map(SessionKey::WorkItem))
            .collect::<miette::Result<_>>()?
    };
    let options = CloseOptions::from_config(ctx, false, false);
    let mut results = Vec::new();
    for key in &keys {
        results.push(reset_one(ctx, key, options, args.dry_run)?);
    }
    let failed = results.iter().any(|r| r.problem.is_some());
    if args.json {
        print_json(&json!({"dry_run": args.dry_run, "sessions": results}));
    } else if results.is_empty() {
        crate::outln!("No sessions are registered.");
    } else {
        for r in &results {
            print_reset(&key_of(r), r);
        }
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn key_of(r: &Reset) -> SessionKey {
    SessionKey::work_item(&r.reference).expect("a ref we parsed")
}

fn reset_one(
    ctx: &Context,
    key: &SessionKey,
    options: CloseOptions,
    dry_run: bool,
) -> miette::Result<Reset> {
    let _turn = queue::wait_turn(
        &ctx.config.state_root,
        &key.tmux_name(),
        queue::DEFAULT_WAIT,
    )?;
    let record = key::load(&ctx.registry, key)?;
    let target = key::target_of(key, record.as_ref());
    let mut reset = Reset {
        reference: key.label(),
        tmux_target: target.clone(),
        dry_run,
        probe: Probe::Unknown,
        ended_live_session: false,
        tmux: options.disposition,
        close: None,
        record_deleted: false,
        checkout: record.as_ref().and_then(|r| r.cwd()).map(PathBuf::from),
        checkout_removed: false,
        problem: None,
    };
    let Some(mut record) = record else {
        reset.problem = Some(format!("no session is registered for {}", key.label()));
        return Ok(reset);
    };
    if dry_run {
        reset.probe = probe(&ctx.tmux, &target).0;
        reset.ended_live_session = reset.probe == Probe::Live
            && (options.end_harness || options.disposition == Disposition::Kill);
        return Ok(reset);
    }
    // The record is deleted right after, so it is not rewritten as closed first.
    let closed = close(ctx, key, Some(&mut record), options, false);
    reset.probe = closed.probe;
    reset.ended_live_session = closed.ended_live_session();
    reset.close = Some(closed);
    match key::delete(&ctx.registry, key) {
        Ok(deleted) => reset.record_deleted = deleted,
        Err(err) => reset.problem = Some(format!("the record was not deleted: {err}")),
    }
    ctx.events.emit(
        "session.reset",
        fields(
            key,
            json!({"tmux_target": target, "ended_live_session": reset.ended_live_session, "record_deleted": reset.record_deleted}),
        ),
    );
    Ok(reset)
}

fn print_reset(key: &SessionKey, r: &Reset) {
    let target = &r.tmux_target;
    if let Some(problem) = &r.problem {
        crate::errln!("{}: {problem}", key.label());
        return;
    }
    if r.dry_run {
        let live = if r.ended_live_session {
            format!("would end the live session in {target}")
        } else {
            format!(
                "would find no running harness in {target} ({})",
                r.probe.as_str()
            )
        };
        let tmux = match r.tmux {
            Disposition::Keep => "keep the tmux session",
            Disposition::Kill => "kill the tmux session",
        };
        crate::outln!("{}: {live}, {tmux}, and delete the record.", key.label());
        return;
    }
    if let Some(closed) = &r.close {
        print_close(key, closed);
    }
    if r.ended_live_session {
        crate::outln!("Reset {}: ended its live session in {target}.", key.label());
    } else if r.probe == Probe::Live {
        crate::outln!(
            "Reset {}: its harness in {target} was left running (routing.tmux.killHarnessOnClose is off).",
            key.label()
        );
    } else {
        crate::outln!(
            "Reset {}: no harness was running in {target} ({}).",
            key.label(),
            r.probe.as_str()
        );
    }
    if r.record_deleted {
        crate::outln!("Deleted the registry record; the work item starts over on its next start.");
    }
    if let Some(checkout) = &r.checkout {
        crate::outln!(
            "Kept the checkout {} (a reset never removes one; `the-loop sessions cleanup` does).",
            checkout.display()
        );
    }
}
