//! Which session a lifecycle verb is about, and its registry record, with
//! work items and standing sessions behind one interface: everything about
//! how a session is spawned, pasted into and ended is the same for both.

use crate::harness::LaunchArgs;
use crate::registry::{Registry, RegistryError, StandingRecord, Status, WorkItemRecord};
use serde_json::Value;
use std::path::{Path, PathBuf};

pub use crate::registry::SessionKey;

/// A work-item or standing record.
#[derive(Debug, Clone, PartialEq)]
pub enum Record {
    WorkItem(WorkItemRecord),
    Standing(StandingRecord),
}

/// The same expression on whichever record this is (the two share field names).
/// The record field holding [`Record::pending_submit`].
const PENDING_SUBMIT: &str = "pendingSubmit";

macro_rules! each {
    ($record:expr, $r:ident => $body:expr) => {
        match $record {
            Record::WorkItem($r) => $body,
            Record::Standing($r) => $body,
        }
    };
}

impl Record {
    pub fn status(&self) -> Status {
        each!(self, r => r.status)
    }

    pub fn set_status(&mut self, status: Status) {
        each!(self, r => r.status = status)
    }

    pub fn harness(&self) -> &str {
        each!(self, r => r.harness.as_str())
    }

    /// The recorded tmux target as tmux spells it; `None` when empty.
    pub fn tmux_target(&self) -> Option<String> {
        each!(self, r => r.tmux_target())
    }

    pub fn set_tmux_target(&mut self, target: &str) {
        each!(self, r => r.tmux_target = Some(target.to_owned()))
    }

    /// Re-registering drops the `runner` field records written before tmux
    /// became the only runner carried; it means nothing any more.
    pub fn forget_runner(&mut self) {
        each!(self, r => r.extra.remove("runner"));
    }

    pub fn harness_session_id(&self) -> Option<&str> {
        each!(self, r => r.harness_session_id.as_deref())
    }

    pub fn set_harness_session_id(&mut self, id: &str) {
        each!(self, r => r.harness_session_id = Some(id.to_owned()))
    }

    pub fn cwd(&self) -> Option<&Path> {
        each!(self, r => r.cwd.as_deref())
    }

    pub fn launch_args(&self) -> LaunchArgs {
        each!(self, r => LaunchArgs {
            harness_args: r.harness_args.clone().unwrap_or_default(),
            model: r.model.clone(),
            effort: r.effort.clone(),
        })
    }

    /// Model and effort as a launch resolved them (see
    /// [`crate::harness::models::record_launched`]).
    pub fn set_launched_args(&mut self, launched: &LaunchArgs) {
        each!(self, r => {
            r.model = launched.model.clone();
            r.effort = launched.effort.clone();
        })
    }

    /// The delivery id whose text is pasted but not yet submitted: a retry
    /// of it only submits, so a half-failed delivery is never pasted twice.
    pub fn pending_submit(&self) -> Option<&str> {
        each!(self, r => r.extra.get(PENDING_SUBMIT).and_then(Value::as_str))
    }

    pub fn set_pending_submit(&mut self, id: Option<&str>) {
        each!(self, r => match id {
            Some(id) => {
                r.extra.insert(PENDING_SUBMIT.into(), Value::String(id.to_owned()));
            }
            None => {
                r.extra.remove(PENDING_SUBMIT);
            }
        })
    }

    pub fn has_delivery(&self, id: &str) -> bool {
        each!(self, r => r.has_delivery(id))
    }

    pub fn record_delivery(&mut self, id: &str) {
        each!(self, r => r.record_delivery(id))
    }

    pub fn recent_deliveries(&self) -> &[String] {
        each!(self, r => r.recent_deliveries.as_slice())
    }

    /// Stamps `lastEventAt` with now.
    pub fn touch(&mut self) {
        let now = crate::clock::now_utc();
        each!(self, r => r.last_event_at = Some(now))
    }

    /// The pull requests delivering this work item (none for a standing session).
    pub fn pull_request_refs(&self) -> Vec<String> {
        match self {
            Record::WorkItem(r) => r
                .pull_request_refs()
                .into_iter()
                .map(String::from)
                .collect(),
            Record::Standing(_) => Vec::new(),
        }
    }
}

pub fn load(registry: &Registry, key: &SessionKey) -> Result<Option<Record>, RegistryError> {
    Ok(match key {
        SessionKey::WorkItem(r) => registry.load_work_item(r)?.map(Record::WorkItem),
        SessionKey::Standing(n) => registry.load_standing(n)?.map(Record::Standing),
    })
}

pub fn save(registry: &Registry, record: &Record) -> Result<PathBuf, RegistryError> {
    match record {
        Record::WorkItem(r) => registry.save_work_item(r),
        Record::Standing(r) => registry.save_standing(r),
    }
}

pub fn delete(registry: &Registry, key: &SessionKey) -> Result<bool, RegistryError> {
    match key {
        SessionKey::WorkItem(r) => registry.delete_work_item(r),
        SessionKey::Standing(n) => registry.delete_standing(n),
    }
}

/// The tmux session a record addresses: its recorded target, or the name
/// derived from its key when it has none yet.
pub fn target_of(key: &SessionKey, record: Option<&Record>) -> String {
    record
        .and_then(Record::tmux_target)
        .unwrap_or_else(|| key.tmux_name())
}
