//! `sessions deliver` and `standing say`: text into a session, as if typed
//! and submitted (see [`crate::lifecycle::deliver`] for how).

use crate::lifecycle::deliver::{self, Delivery, DeliveryReport};
use crate::lifecycle::links::owner_of;
use crate::lifecycle::SessionKey;
use crate::ops::Context;
use crate::registry::WorkItemRef;
use std::time::Duration;

/// The text to deliver and how (shared by `deliver` and `say`).
#[derive(Debug)]
pub struct Message {
    pub text: String,
    /// A delivery id the session already processed makes this a no-op.
    pub delivery_id: Option<String>,
    /// How long to wait for the harness to be ready before pasting.
    pub ready_timeout: Duration,
}

#[derive(Debug)]
pub struct DeliverOptions {
    /// The work item as recorded ([`crate::ops::resolve::resolve_ref`]).
    pub reference: WorkItemRef,
    pub message: Message,
}

pub fn deliver(ctx: &Context, options: &DeliverOptions) -> miette::Result<DeliveryReport> {
    let reference = &options.reference;
    // One tmux session per work item: a linked pull request's events go into
    // the item's session.
    let (key, via) = match owner_of(&ctx.registry, reference) {
        Some(owner) => (SessionKey::WorkItem(owner), Some(reference.to_string())),
        None => (SessionKey::WorkItem(reference.clone()), None),
    };
    into(ctx, key, &options.message, via)
}

/// Delivers `message` into the session `key` names.
pub(crate) fn into(
    ctx: &Context,
    key: SessionKey,
    message: &Message,
    via_pull_request: Option<String>,
) -> miette::Result<DeliveryReport> {
    let delivery = |relaunch_drifted| Delivery {
        key: key.clone(),
        text: &message.text,
        delivery_id: message.delivery_id.as_deref(),
        ready_timeout: message.ready_timeout,
        via_pull_request: via_pull_request.clone(),
        relaunch_drifted,
    };
    let first = deliver::deliver(ctx, &delivery(true))?;
    if first.args_drifted.is_empty() {
        return Ok(first);
    }
    // The running harness drifted from its record's launch: relaunch it
    // (the roll engine, outside the session's turn), then deliver into
    // whatever runs there now.
    let relaunch = super::relaunch::relaunch(ctx, &key, first.args_drifted, message.ready_timeout);
    let mut report = deliver::deliver(ctx, &delivery(false))?;
    report.relaunch = Some(relaunch);
    Ok(report)
}
