//! `sessions cleanup`: everything local a finished work item holds is
//! released (see [`crate::lifecycle::cleanup`]).

use crate::lifecycle::cleanup::{cleanup as release, CleanupReport};
use crate::lifecycle::key;
use crate::lifecycle::{queue, SessionKey};
use crate::ops::notes::{Note, Notes};
use crate::ops::Context;
use crate::registry::WorkItemRef;

#[derive(Debug)]
pub struct CleanupOptions {
    /// The work item as recorded ([`crate::ops::resolve::resolve_ref`]);
    /// it need not have a record.
    pub reference: WorkItemRef,
}

pub fn cleanup(
    ctx: &Context,
    options: &CleanupOptions,
    notes: &dyn Notes,
) -> miette::Result<CleanupReport> {
    let key = SessionKey::WorkItem(options.reference.clone());
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
            notes.note(Note::CleanupWithoutRecord {
                error: err.to_string(),
            });
            None
        }
    };
    Ok(release(ctx, &options.reference, record.as_ref())?)
}
