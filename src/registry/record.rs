//! The on-disk record formats, kept compatible with existing deployments.
//!
//! Field names are camelCase as upstream writes them. A work-item record and
//! a standing record differ only in their key and a work item's links; what
//! they share is written once, in [`SessionFields`] and [`LaunchFields`],
//! flattened into both. Every record carries a flattened `extra` map so
//! fields this version does not know about (written by a newer or older
//! the-loop, or by hand) survive a load and save.
//! `harnessSessionId`, `cwd`, `createdAt`, `lastEventAt` and `tmuxTarget` are
//! always written (null when unknown); `url`, `pullRequests`, `model`, `effort`
//! and `harnessArgs` are omitted when empty, as upstream does.
//! Timestamps are kept as the `YYYY-MM-DDTHH:MM:SSZ` strings they are stored as.

use super::refs::{normalise_tmux_target, RefError, WorkItemRef};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::path::PathBuf;

/// How many delivery ids a record remembers, oldest dropped first.
pub const RECENT_DELIVERIES_KEPT: usize = 50;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Active,
    Paused,
    Closed,
}

impl Status {
    /// Live means active or paused.
    pub fn is_live(self) -> bool {
        !matches!(self, Status::Closed)
    }
}

/// The `workItem` object: the ref as text plus its parts, as upstream stores it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkItemField {
    #[serde(rename = "ref")]
    pub reference: String,
    pub provider: String,
    pub owner: String,
    pub repo: String,
    pub number: u64,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl WorkItemField {
    pub fn from_ref(r: &WorkItemRef) -> Self {
        WorkItemField {
            reference: r.to_string(),
            provider: r.provider.clone(),
            owner: r.owner.clone(),
            repo: r.repo.clone(),
            number: r.number,
            extra: Map::new(),
        }
    }

    /// The ref parsed from `ref`, which is authoritative: it is the only field
    /// that carries the host of an enterprise work item.
    pub fn work_item_ref(&self) -> Result<WorkItemRef, RefError> {
        self.reference.parse()
    }
}

/// The fields every record carries after its key (`workItem` or `name`):
/// who runs the session, where, and what it has processed. One part of the
/// shared record; [`LaunchFields`] is the other. They are two parts, not
/// one, because a work item writes its own `url` and `pullRequests` between
/// them, and the bytes on disk keep that order.
/// How many earlier conversations a record keeps.
pub const PREVIOUS_CONVERSATIONS_KEPT: usize = 20;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionFields {
    pub harness: String,
    pub harness_session_id: Option<String>,
    /// The conversations this session was in before its current one, oldest
    /// first: the person's `/clear` or in-app `/resume` moved it on, and the
    /// record followed ([`SessionFields::follow_conversation`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub previous_harness_session_ids: Vec<String>,
    pub cwd: Option<PathBuf>,
    pub status: Status,
    pub created_at: Option<String>,
    pub last_event_at: Option<String>,
    pub tmux_target: Option<String>,
    /// The tmux server (its socket) the session was started on: plans and
    /// rolls ask that server, whatever `$TMUX` says. Absent in records
    /// written before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tmux_socket: Option<PathBuf>,
    /// The pane (`%N`) `the-loop import` took the session over in: tmux's
    /// start command cannot tell that pane from an operator's (a person
    /// started the harness from a shell), so the record names it. Omitted
    /// for every session the-loop started itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tmux_pane: Option<String>,
    #[serde(default)]
    pub recent_deliveries: Vec<String>,
    /// `false` when the-loop started the harness on a pre-assigned
    /// conversation with no first prompt: nothing is in it until a person
    /// types one. Absent (older records, imports, starts with a prompt)
    /// reads as begun: only a record that says `false` lets a roll relaunch
    /// a conversation whose transcript is missing ([`crate::harness::resumable`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation_begun: Option<bool>,
}

impl SessionFields {
    /// Nothing known beyond the harness and status.
    pub fn new(harness: impl Into<String>, status: Status) -> Self {
        SessionFields {
            harness: harness.into(),
            harness_session_id: None,
            previous_harness_session_ids: Vec::new(),
            cwd: None,
            status,
            created_at: None,
            last_event_at: None,
            tmux_target: None,
            tmux_socket: None,
            tmux_pane: None,
            recent_deliveries: Vec::new(),
            conversation_begun: None,
        }
    }

    /// Makes `id` the session's conversation, keeping the one it replaces
    /// (at most [`PREVIOUS_CONVERSATIONS_KEPT`], newest last). False when
    /// it already was.
    pub fn follow_conversation(&mut self, id: &str) -> bool {
        if self.harness_session_id.as_deref() == Some(id) {
            return false;
        }
        if let Some(old) = self.harness_session_id.replace(id.to_owned()) {
            self.previous_harness_session_ids
                .retain(|p| *p != old && p != id);
            self.previous_harness_session_ids.push(old);
            let over = self
                .previous_harness_session_ids
                .len()
                .saturating_sub(PREVIOUS_CONVERSATIONS_KEPT);
            self.previous_harness_session_ids.drain(..over);
        }
        true
    }

    /// The recorded tmux target as tmux spells it, or `None` when the record
    /// has none yet (null or `""`, which heals lazily through a respawn).
    pub fn tmux_target(&self) -> Option<String> {
        self.tmux_target
            .as_deref()
            .filter(|t| !t.is_empty())
            .map(normalise_tmux_target)
    }

    pub fn is_live(&self) -> bool {
        self.status.is_live()
    }

    /// Remembers a processed delivery, keeping the last
    /// [`RECENT_DELIVERIES_KEPT`]. An id seen before moves to the end rather
    /// than appearing twice, so the window holds 50 distinct deliveries.
    pub fn record_delivery(&mut self, id: impl Into<String>) {
        let id = id.into();
        let deliveries = &mut self.recent_deliveries;
        deliveries.retain(|d| *d != id);
        deliveries.push(id);
        let excess = deliveries.len().saturating_sub(RECENT_DELIVERIES_KEPT);
        deliveries.drain(..excess);
    }

    pub fn has_delivery(&self, id: &str) -> bool {
        self.recent_deliveries.iter().any(|d| d == id)
    }
}

/// The launch arguments a record stored, written after everything else the
/// record knows (see [`SessionFields`] for why this is a part of its own).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LaunchFields {
    #[serde(default, skip_serializing_if = "is_blank")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "is_blank")]
    pub effort: Option<String>,
    #[serde(default, skip_serializing_if = "is_empty_list")]
    pub harness_args: Option<Vec<String>>,
}

impl LaunchFields {
    /// The arguments as a launch takes them (none stored: none).
    pub fn args(&self) -> LaunchArgs {
        LaunchArgs {
            harness_args: self.harness_args.clone().unwrap_or_default(),
            model: self.model.clone(),
            effort: self.effort.clone(),
        }
    }

    /// The launch arguments the record stored, if it stored any: older
    /// records did not, and are never checked for argument drift.
    pub fn stored(&self) -> Option<LaunchArgs> {
        let any = self.harness_args.is_some() || self.model.is_some() || self.effort.is_some();
        any.then(|| self.args())
    }

    /// What a start launched with; no harness arguments are stored as none.
    pub fn started(args: &LaunchArgs) -> Self {
        LaunchFields {
            harness_args: Some(args.harness_args.clone()).filter(|a| !a.is_empty()),
            model: args.model.clone(),
            effort: args.effort.clone(),
        }
    }

    /// Model and effort as a relaunch resolved them (see
    /// [`crate::harness::models::record_launched`]).
    pub fn set_launched(&mut self, launched: &LaunchArgs) {
        self.model = launched.model.clone();
        self.effort = launched.effort.clone();
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkItemRecord {
    pub work_item: WorkItemField,
    #[serde(flatten)]
    pub session: SessionFields,
    #[serde(default, skip_serializing_if = "is_blank")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "is_empty_list")]
    pub pull_requests: Option<Vec<Value>>,
    #[serde(flatten)]
    pub launch: LaunchFields,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl WorkItemRecord {
    /// A fresh record with nothing known beyond the work item, harness and status.
    pub fn new(r: &WorkItemRef, harness: impl Into<String>, status: Status) -> Self {
        WorkItemRecord {
            work_item: WorkItemField::from_ref(r),
            session: SessionFields::new(harness, status),
            url: None,
            pull_requests: None,
            launch: LaunchFields::default(),
            extra: Map::new(),
        }
    }

    pub fn work_item_ref(&self) -> Result<WorkItemRef, RefError> {
        self.work_item.work_item_ref()
    }

    /// The refs of the pull requests delivering this work item. Upstream has
    /// stored each entry either as the ref string or as an object with a `ref`
    /// key; entries of any other shape are skipped.
    pub fn pull_request_refs(&self) -> Vec<&str> {
        let entries = self.pull_requests.as_deref().unwrap_or_default();
        entries
            .iter()
            .filter_map(|entry| match entry {
                Value::String(r) => Some(r.as_str()),
                Value::Object(fields) => fields.get("ref").and_then(Value::as_str),
                _ => None,
            })
            .collect()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StandingRecord {
    pub name: String,
    #[serde(flatten)]
    pub session: SessionFields,
    #[serde(flatten)]
    pub launch: LaunchFields,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl StandingRecord {
    /// A fresh record with nothing known beyond the name, harness and status.
    /// The name is not checked here; saving refuses an invalid one.
    pub fn new(name: impl Into<String>, harness: impl Into<String>, status: Status) -> Self {
        StandingRecord {
            name: name.into(),
            session: SessionFields::new(harness, status),
            launch: LaunchFields::default(),
            extra: Map::new(),
        }
    }
}

fn is_blank(value: &Option<String>) -> bool {
    value.as_deref().is_none_or(str::is_empty)
}

fn is_empty_list<T>(value: &Option<Vec<T>>) -> bool {
    value.as_deref().is_none_or(<[T]>::is_empty)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn record() -> WorkItemRecord {
        WorkItemRecord::new(
            &"github:octo/repo#15".parse().unwrap(),
            "claude",
            Status::Active,
        )
    }

    #[test]
    fn deliveries_keep_the_last_fifty_distinct() {
        let mut r = record();
        for i in 0..60 {
            r.session.record_delivery(format!("d{i}"));
        }
        r.session.record_delivery("d20");
        assert_eq!(r.session.recent_deliveries.len(), RECENT_DELIVERIES_KEPT);
        assert_eq!(
            r.session.recent_deliveries.first().map(String::as_str),
            Some("d10")
        );
        assert_eq!(
            r.session.recent_deliveries.last().map(String::as_str),
            Some("d20")
        );
        assert!(!r.session.has_delivery("d9"));
        assert_eq!(
            r.session
                .recent_deliveries
                .iter()
                .filter(|d| *d == "d20")
                .count(),
            1
        );
    }

    #[test]
    fn empty_tmux_target_is_none_and_old_names_are_normalised() {
        let mut r = record();
        assert_eq!(r.session.tmux_target(), None);
        r.session.tmux_target = Some(String::new());
        assert_eq!(r.session.tmux_target(), None);
        r.session.tmux_target = Some("loop-github-octo-foo.js-3".into());
        assert_eq!(
            r.session.tmux_target().as_deref(),
            Some("loop-github-octo-foo_js-3")
        );
    }

    #[test]
    fn pull_request_refs_accept_both_shapes() {
        let mut r = record();
        assert!(r.pull_request_refs().is_empty());
        r.pull_requests = Some(vec![
            json!("github:octo/repo#16"),
            json!({"ref": "github:octo/repo#17", "url": "https://example/17"}),
            json!({"number": 18}),
            json!(19),
        ]);
        assert_eq!(
            r.pull_request_refs(),
            ["github:octo/repo#16", "github:octo/repo#17"]
        );
    }

    #[test]
    fn nulls_are_written_and_empty_optionals_omitted() {
        let mut r = record();
        r.launch.model = Some(String::new());
        r.launch.harness_args = Some(Vec::new());
        r.pull_requests = Some(Vec::new());
        let value = serde_json::to_value(&r).unwrap();
        let keys: Vec<&str> = value
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "workItem",
                "harness",
                "harnessSessionId",
                "cwd",
                "status",
                "createdAt",
                "lastEventAt",
                "tmuxTarget",
                "recentDeliveries"
            ]
        );
        assert_eq!(value["createdAt"], Value::Null);
    }

    #[test]
    fn work_item_field_mirrors_the_ref() {
        let r: WorkItemRef = "github:ghe.example.com/octo/repo#15".parse().unwrap();
        let field = WorkItemField::from_ref(&r);
        assert_eq!(field.reference, "github:ghe.example.com/octo/repo#15");
        assert_eq!((field.owner.as_str(), field.number), ("octo", 15));
        assert_eq!(field.work_item_ref(), Ok(r));
    }
}

/// Arguments the harness is launched with besides the conversation choice.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LaunchArgs {
    pub harness_args: Vec<String>,
    pub model: Option<String>,
    pub effort: Option<String>,
}
