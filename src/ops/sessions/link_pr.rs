//! `sessions link-pr`: events for a pull request go into the session of
//! the work item it delivers (one tmux session per work item).

use crate::lifecycle::key::{self, Record};
use crate::lifecycle::links::owner_of;
use crate::lifecycle::{queue, SessionKey};
use crate::ops::resolve::resolve_ref;
use crate::ops::Context;
use serde::Serialize;

#[derive(Debug)]
pub struct LinkOptions {
    /// The work item, as typed.
    pub reference: String,
    /// The pull request delivering it, as typed.
    pub pull_request: String,
}

/// What `sessions link-pr` did (its `--json` document).
#[derive(Debug, Serialize)]
pub struct Linked {
    #[serde(rename = "ref")]
    pub reference: String,
    pub pull_request: String,
    /// False when it was linked already.
    pub changed: bool,
    /// Where the pull request's events now go.
    #[serde(skip)]
    pub tmux_target: String,
}

pub fn link_pr(ctx: &Context, options: &LinkOptions) -> miette::Result<Linked> {
    let item = resolve_ref(&ctx.registry, &options.reference)?;
    let pr = resolve_ref(&ctx.registry, &options.pull_request)?;
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
        ctx.events.emit(crate::events::Event::SessionPrLinked {
            subject: key.subject(),
            pull_request: text.clone(),
        });
    }
    Ok(Linked {
        reference: item.to_string(),
        pull_request: text,
        changed: !already,
        tmux_target: record
            .session
            .tmux_target()
            .unwrap_or_else(|| item.tmux_name()),
    })
}
