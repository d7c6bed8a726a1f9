//! Which session a lifecycle verb is about, and its registry record, with
//! work items and standing sessions behind one interface: everything about
//! how a session is spawned, pasted into and ended is the same for both.

use crate::harness::LaunchArgs;
use crate::registry::{
    LaunchFields, Registry, RegistryError, SessionFields, StandingRecord, Status, WorkItemRecord,
};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

pub use crate::registry::SessionKey;

/// A work-item or standing record.
#[derive(Debug, Clone, PartialEq)]
pub enum Record {
    WorkItem(WorkItemRecord),
    Standing(StandingRecord),
}

/// The record field holding [`Record::pending_submit`].
const PENDING_SUBMIT: &str = "pendingSubmit";
/// The record field holding [`Record::pending_delivery`].
const PENDING_DELIVERY: &str = "pendingDelivery";

impl Record {
    /// The fields both kinds share, where everything below reads them.
    pub fn session(&self) -> &SessionFields {
        match self {
            Record::WorkItem(r) => &r.session,
            Record::Standing(r) => &r.session,
        }
    }

    pub fn session_mut(&mut self) -> &mut SessionFields {
        match self {
            Record::WorkItem(r) => &mut r.session,
            Record::Standing(r) => &mut r.session,
        }
    }

    fn launch_mut(&mut self) -> &mut LaunchFields {
        match self {
            Record::WorkItem(r) => &mut r.launch,
            Record::Standing(r) => &mut r.launch,
        }
    }

    fn launch(&self) -> &LaunchFields {
        match self {
            Record::WorkItem(r) => &r.launch,
            Record::Standing(r) => &r.launch,
        }
    }

    fn extra(&self) -> &Map<String, Value> {
        match self {
            Record::WorkItem(r) => &r.extra,
            Record::Standing(r) => &r.extra,
        }
    }

    fn extra_mut(&mut self) -> &mut Map<String, Value> {
        match self {
            Record::WorkItem(r) => &mut r.extra,
            Record::Standing(r) => &mut r.extra,
        }
    }

    /// What a respawn and the ownership check need from the record.
    pub fn facts(&self) -> crate::registry::RecordFacts {
        crate::registry::RecordFacts::of(self.session(), self.launch())
    }

    pub fn status(&self) -> Status {
        self.session().status
    }

    pub fn set_status(&mut self, status: Status) {
        self.session_mut().status = status;
    }

    pub fn harness(&self) -> &str {
        &self.session().harness
    }

    /// The recorded tmux target as tmux spells it; `None` when empty.
    pub fn tmux_target(&self) -> Option<String> {
        self.session().tmux_target()
    }

    pub fn set_tmux_target(&mut self, target: &str) {
        self.session_mut().tmux_target = Some(target.to_owned());
    }

    /// Re-registering drops the `runner` field records written before tmux
    /// became the only runner carried; it means nothing any more.
    pub fn forget_runner(&mut self) {
        self.extra_mut().remove("runner");
    }

    pub fn harness_session_id(&self) -> Option<&str> {
        self.session().harness_session_id.as_deref()
    }

    pub fn set_harness_session_id(&mut self, id: &str) {
        self.session_mut().harness_session_id = Some(id.to_owned());
    }

    pub fn cwd(&self) -> Option<&Path> {
        self.session().cwd.as_deref()
    }

    /// The launch arguments the record stored; `None` for an older record
    /// that stored none (never checked for drift).
    pub fn stored_launch_args(&self) -> Option<LaunchArgs> {
        self.launch().stored()
    }

    pub fn launch_args(&self) -> LaunchArgs {
        self.launch().args()
    }

    /// Model and effort as a launch resolved them (see
    /// [`crate::harness::models::record_launched`]).
    pub fn set_launched_args(&mut self, launched: &LaunchArgs) {
        self.launch_mut().set_launched(launched);
    }

    /// The delivery id whose text is pasted but not yet submitted: a retry
    /// of it only submits, so a half-failed delivery is never pasted twice.
    pub fn pending_submit(&self) -> Option<&str> {
        self.extra().get(PENDING_SUBMIT).and_then(Value::as_str)
    }

    pub fn set_pending_submit(&mut self, id: Option<&str>) {
        self.set_extra_id(PENDING_SUBMIT, id);
    }

    /// The delivery id noted before its paste (or its respawn) whose paste
    /// was never confirmed: nothing of it is known to be in the harness, so
    /// a retry of it delivers it in full. Written first so that a record
    /// that cannot be written refuses the delivery before anything is sent.
    pub fn pending_delivery(&self) -> Option<&str> {
        self.extra().get(PENDING_DELIVERY).and_then(Value::as_str)
    }

    pub fn set_pending_delivery(&mut self, id: Option<&str>) {
        self.set_extra_id(PENDING_DELIVERY, id);
    }

    /// Sets (or, with `None`, removes) a delivery id field the record
    /// keeps among the fields it does not model.
    fn set_extra_id(&mut self, field: &str, id: Option<&str>) {
        let extra = self.extra_mut();
        match id {
            Some(id) => {
                extra.insert(field.into(), Value::String(id.to_owned()));
            }
            None => {
                extra.remove(field);
            }
        }
    }

    pub fn has_delivery(&self, id: &str) -> bool {
        self.session().has_delivery(id)
    }

    pub fn record_delivery(&mut self, id: &str) {
        self.session_mut().record_delivery(id);
    }

    pub fn recent_deliveries(&self) -> &[String] {
        &self.session().recent_deliveries
    }

    /// Stamps `lastEventAt` with now.
    pub fn touch(&mut self) {
        self.session_mut().last_event_at = Some(crate::clock::now_utc());
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
