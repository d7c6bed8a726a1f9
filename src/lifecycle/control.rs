//! The last control command given to a work item, kept beside the registry
//! (`<root>/local/control/<slug>.json`) so it outlives the record. A
//! cleanup deletes the record; this is what stops a later event from
//! quietly spawning the torn-down item again. An explicit `sessions start`
//! clears it.

use crate::registry::{Registry, WorkItemRef};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

pub const CLEANUP: &str = "cleanup";

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Control {
    #[serde(rename = "ref")]
    pub reference: String,
    pub last_control: String,
    pub at: String,
}

pub fn path(registry: &Registry, r: &WorkItemRef) -> PathBuf {
    registry
        .work_items_dir()
        .join("control")
        .join(format!("{}.json", r.slug()))
}

/// The last control command, when one is recorded for exactly this ref.
pub fn last(registry: &Registry, r: &WorkItemRef) -> Option<String> {
    let bytes =
        crate::bounded_read::read(&path(registry, r), &crate::bounded_read::STATE_TEXT).ok()?;
    let control: Control = serde_json::from_slice(&bytes).ok()?;
    (control.reference == r.to_string()).then_some(control.last_control)
}

pub fn record(registry: &Registry, r: &WorkItemRef, command: &str) -> std::io::Result<()> {
    let control = Control {
        reference: r.to_string(),
        last_control: command.to_owned(),
        at: crate::clock::now_utc(),
    };
    let mut bytes = serde_json::to_vec_pretty(&control).expect("control serialises");
    bytes.push(b'\n');
    crate::fsutil::write_atomic(&path(registry, r), &bytes, crate::fsutil::PRIVATE_FILE)
}

pub fn clear(registry: &Registry, r: &WorkItemRef) {
    let _ = std::fs::remove_file(path(registry, r));
}
