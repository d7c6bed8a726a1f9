//! `the-loop sessions stop` and `the-loop sessions close`

use super::cleanup::print_cleanup;
use super::deliver::resolve_ref;
use crate::cli::output::print_json;
use crate::lifecycle::cleanup::{cleanup, closure_cleanup, CleanupReport, Deferral};
use crate::lifecycle::close::{close, CloseOptions, CloseReport, TmuxResult};
use crate::lifecycle::key::{self, fields};
use crate::lifecycle::links::owner_of;
use crate::lifecycle::{queue, SessionKey};
use crate::ops::Context;
use clap::Args;
use serde_json::json;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct StopArgs {
    /// Work-item ref, e.g. github:octo/repo#15.
    #[arg(value_name = "REF")]
    reference: String,
    #[command(flatten)]
    tmux: TmuxChoice,
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
pub struct CloseArgs {
    /// Work-item ref, e.g. github:octo/repo#15.
    #[arg(value_name = "REF")]
    reference: String,
    #[command(flatten)]
    tmux: TmuxChoice,
    /// Who closed the work item. When routing.authorizedUsers holds this
    /// login, a cleanup follows the close; otherwise it is deferred.
    #[arg(long, value_name = "LOGIN")]
    actor: Option<String>,
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
struct TmuxChoice {
    /// Keep the tmux session, whatever routing.tmux.keepSessionOnClose says.
    #[arg(long, conflicts_with = "kill_tmux")]
    keep_tmux: bool,
    /// Kill the tmux session, whatever routing.tmux.keepSessionOnClose says.
    #[arg(long)]
    kill_tmux: bool,
}

pub fn stop(ctx: &Context, args: StopArgs) -> miette::Result<ExitCode> {
    let key = SessionKey::WorkItem(resolve_ref(ctx, &args.reference)?);
    let options = CloseOptions::from_config(ctx, args.tmux.keep_tmux, args.tmux.kill_tmux);
    let _turn = queue::wait_turn(
        &ctx.config.state_root,
        &key.tmux_name(),
        queue::DEFAULT_WAIT,
    )?;
    let Some(mut record) = key::load(&ctx.registry, &key)? else {
        return Err(not_registered(&key));
    };
    let report = close(ctx, &key, Some(&mut record), options, true);
    if args.json {
        print_json(&json!({"ref": key.label(), "close": report}));
    } else {
        print_close(&key, &report);
    }
    Ok(ExitCode::SUCCESS)
}

pub fn close_cmd(ctx: &Context, args: CloseArgs) -> miette::Result<ExitCode> {
    let reference = resolve_ref(ctx, &args.reference)?;
    // A linked pull request closing does not end the work item it delivers.
    if let Some(owner) = owner_of(&ctx.registry, &reference) {
        if args.json {
            print_json(
                &json!({"ref": reference.to_string(), "linked_to": owner.to_string(), "close": null, "cleanup": null}),
            );
        } else {
            crate::outln!("{reference} is a pull request linked to {owner}; closing it does not end {owner}'s session.");
        }
        return Ok(ExitCode::SUCCESS);
    }
    let key = SessionKey::WorkItem(reference.clone());
    let options = CloseOptions::from_config(ctx, args.tmux.keep_tmux, args.tmux.kill_tmux);
    let _turn = queue::wait_turn(
        &ctx.config.state_root,
        &key.tmux_name(),
        queue::DEFAULT_WAIT,
    )?;
    let mut record = key::load(&ctx.registry, &key)?;
    let report = close(ctx, &key, record.as_mut(), options, true);
    let decision = closure_cleanup(args.actor.as_deref(), &ctx.config.routing.authorized_users);
    let (cleaned, deferred): (Option<CleanupReport>, Option<Deferral>) = match decision {
        Ok(()) => (Some(cleanup(ctx, &reference, record.as_ref())), None),
        Err(reason) => {
            ctx.events.emit(
                "cleanup.deferred",
                fields(&key, json!({"reason": reason, "actor": args.actor})),
            );
            (None, Some(reason))
        }
    };
    if args.json {
        print_json(
            &json!({"ref": key.label(), "close": report, "cleanup": cleaned, "cleanup_deferred": deferred}),
        );
    } else {
        if record.is_none() {
            crate::outln!(
                "No session is registered for {}; nothing to close.",
                key.label()
            );
        } else {
            print_close(&key, &report);
        }
        match (&cleaned, deferred) {
            (Some(cleaned), _) => print_cleanup(cleaned),
            (None, Some(Deferral::NoActor)) => crate::outln!(
                "Cleanup deferred: the close names no actor. An authorized `the-loop sessions cleanup {}` releases the rest.",
                key.label()
            ),
            (None, _) => crate::outln!(
                "Cleanup deferred: the actor is not in routing.authorizedUsers. An authorized `the-loop sessions cleanup {}` releases the rest.",
                key.label()
            ),
        }
    }
    Ok(match cleaned {
        Some(c) if !c.complete() => ExitCode::FAILURE,
        _ => ExitCode::SUCCESS,
    })
}

fn not_registered(key: &SessionKey) -> miette::Report {
    miette::miette!(
        code = "the_loop::close::not_registered",
        help = "`the-loop sessions list` shows the registered sessions",
        "no session is registered for {}",
        key.label()
    )
}

/// One line per thing that happened, then any problem.
pub fn print_close(key: &SessionKey, report: &CloseReport) {
    let target = &report.tmux_target;
    if report.record_closed {
        crate::outln!("Closed {}.", key.label());
    }
    for pane in &report.harness {
        let how = serde_json::to_value(pane.ending)
            .ok()
            .and_then(|v| v.as_str().map(String::from))
            .unwrap_or_default();
        crate::outln!(
            "Ended the harness in {target} (pane {}, pid {}): {how}.",
            pane.pane_id,
            pane.pid
        );
    }
    match report.tmux {
        TmuxResult::Retained => {
            crate::outln!("Kept tmux session {target}; read it with `tmux attach -r -t {target}`.")
        }
        TmuxResult::Killed => crate::outln!("Killed tmux session {target}."),
        TmuxResult::Absent => crate::outln!("There was no tmux session {target}."),
        TmuxResult::Untouched => {}
    }
    for problem in &report.problems {
        crate::errln!("warning: {problem}");
    }
}
