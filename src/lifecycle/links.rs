//! Pull requests linked to a work item: one tmux session per work item, so
//! events about a linked pull request go into the item's session.

use crate::registry::{Registry, WorkItemRef};

/// The work item whose record lists `pull_request` among its pull requests.
pub fn owner_of(registry: &Registry, pull_request: &WorkItemRef) -> Option<WorkItemRef> {
    let wanted = pull_request.to_string();
    registry
        .work_items()
        .records
        .into_iter()
        .find(|(_, record)| {
            record.pull_request_refs().iter().any(|r| {
                r.parse::<WorkItemRef>()
                    .is_ok_and(|r| r.to_string() == wanted)
            })
        })
        .and_then(|(_, record)| record.work_item_ref().ok())
        .filter(|owner| *owner != *pull_request)
}
