//! STUB: replaced by the registry work. Signatures are the contract.
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkItemField {
    #[serde(rename = "ref")]
    pub reference: String,
    pub provider: String,
    pub owner: String,
    pub repo: String,
    pub number: u64,
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkItemRecord {
    pub work_item: WorkItemField,
    pub harness: String,
    pub harness_session_id: Option<String>,
    pub cwd: Option<PathBuf>,
    pub status: Status,
    pub created_at: Option<String>,
    pub last_event_at: Option<String>,
    pub tmux_target: Option<String>,
    #[serde(default)]
    pub recent_deliveries: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pull_requests: Option<Vec<serde_json::Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub harness_args: Option<Vec<String>>,
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StandingRecord {
    pub name: String,
    pub harness: String,
    pub harness_session_id: Option<String>,
    pub cwd: Option<PathBuf>,
    pub status: Status,
    pub created_at: Option<String>,
    pub last_event_at: Option<String>,
    pub tmux_target: Option<String>,
    #[serde(default)]
    pub recent_deliveries: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub harness_args: Option<Vec<String>>,
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}
