//! `the-loop sessions link-pr`: events for a pull request go into the
//! session of the work item it delivers (one tmux session per work item).

use super::deliver::resolve_ref;
use crate::cli::output::print_json;
use crate::lifecycle::key::{self, fields, Record};
use crate::lifecycle::links::owner_of;
use crate::lifecycle::{queue, SessionKey};
use crate::ops::Context;
use clap::Args;
use serde_json::json;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct LinkPrArgs {
    /// The work item, e.g. github:octo/repo#15.
    #[arg(value_name = "REF")]
    reference: String,
    /// The pull request delivering it, e.g. github:octo/repo#16.
    #[arg(long, value_name = "REF")]
    pull_request: String,
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(ctx: &Context, args: LinkPrArgs) -> miette::Result<ExitCode> {
    let item = resolve_ref(ctx, &args.reference)?;
    let pr = resolve_ref(ctx, &args.pull_request)?;
    if pr == item {
        miette::bail!(
            code = "the_loop::link_pr::self",
            help = "pass the pull request's own ref with --pull-request",
            "a work item cannot be linked to itself"
        );
    }
    let key = SessionKey::WorkItem(item.clone());
    let _turn = queue::wait_turn(
        &ctx.config.state_root,
        &key.tmux_name(),
        queue::DEFAULT_WAIT,
    )?;
    if let Some(owner) = owner_of(&ctx.registry, &pr).filter(|o| *o != item) {
        miette::bail!(
            code = "the_loop::link_pr::taken",
            help = "a pull request's events go to one work item's session; unlink it there first",
            "{pr} is already linked to {owner}"
        );
    }
    // A pull request with a live record of its own has a session of its
    // own: linking it would route its events away from that session, and a
    // cleanup of the item would kill that session yet leave its record live.
    if key::load(&ctx.registry, &SessionKey::WorkItem(pr.clone()))?
        .is_some_and(|r| r.status().is_live())
    {
        miette::bail!(
            code = "the_loop::link_pr::has_own_session",
            help = format!(
                "close it first (`the-loop sessions stop {pr}`), or keep the two sessions apart"
            ),
            "{pr} has a live session of its own (record {}); it cannot also be linked to {item}",
            ctx.registry.work_item_path(&pr).display()
        );
    }
    let Some(Record::WorkItem(mut record)) = key::load(&ctx.registry, &key)? else {
        miette::bail!(
            code = "the_loop::link_pr::not_registered",
            help = "start the work item's session first (`the-loop sessions start`)",
            "no session is registered for {item}"
        );
    };
    let text = pr.to_string();
    let already = record.pull_request_refs().contains(&text.as_str());
    if !already {
        record
            .pull_requests
            .get_or_insert_with(Vec::new)
            .push(serde_json::Value::String(text.clone()));
        ctx.registry.save_work_item(&record)?;
        ctx.events.emit(
            "session.pr_linked",
            fields(&key, json!({"pull_request": text})),
        );
    }
    if args.json {
        print_json(&json!({"ref": item.to_string(), "pull_request": text, "changed": !already}));
    } else if already {
        crate::outln!("{text} is already linked to {item}.");
    } else {
        crate::outln!(
            "Linked {text} to {item}: its events are delivered into {}.",
            record.tmux_target().unwrap_or_else(|| item.tmux_name())
        );
    }
    Ok(ExitCode::SUCCESS)
}
