//! JSON Schemas of the documents the-loop prints, generated from the types
//! themselves so the published files in `schemas/` cannot drift from the code.

fn schema_for<T: schemars::JsonSchema>() -> serde_json::Value {
    schemars::generate::SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value()
}

/// `plan --json` and saved plans (`plan --out`).
pub fn plan() -> serde_json::Value {
    schema_for::<crate::plan::Plan>()
}

/// `apply --json` and `sessions restart --json`.
pub fn apply_report() -> serde_json::Value {
    schema_for::<crate::apply::Report>()
}

/// `sessions list --json`.
pub fn sessions_list() -> serde_json::Value {
    schema_for::<crate::ops::sessions::list::SessionsList>()
}

/// Each line of `apply --json-stream` and `sessions restart --json-stream`.
pub fn apply_stream() -> serde_json::Value {
    schema_for::<crate::views::apply_stream::StreamEvent>()
}

/// `status --json`.
pub fn status() -> serde_json::Value {
    schema_for::<crate::ops::status::StatusReport>()
}

/// `validate --json`.
pub fn validate() -> serde_json::Value {
    schema_for::<crate::ops::validate::ValidateReport>()
}

/// `fingerprint --json`.
pub fn fingerprint() -> serde_json::Value {
    schema_for::<crate::ops::fingerprint::FingerprintReport>()
}

/// Each line of `<state root>/events.jsonl`.
pub fn events() -> serde_json::Value {
    schema_for::<crate::events::EventLine>()
}

/// `history --json`.
pub fn history() -> serde_json::Value {
    schema_for::<crate::ops::history::History>()
}

/// `version --json`.
pub fn version() -> serde_json::Value {
    schema_for::<crate::build_info::BuildInfo>()
}

/// Every published schema with its file name under `schemas/`.
pub fn published() -> Vec<(&'static str, serde_json::Value)> {
    vec![
        (
            "cli-config.schema.json",
            crate::desired::config::json_schema(),
        ),
        ("plan.schema.json", plan()),
        ("apply-report.schema.json", apply_report()),
        ("apply-stream.schema.json", apply_stream()),
        ("sessions-list.schema.json", sessions_list()),
        ("status.schema.json", status()),
        ("validate.schema.json", validate()),
        ("events.schema.json", events()),
        ("fingerprint.schema.json", fingerprint()),
        ("history.schema.json", history()),
        ("version.schema.json", version()),
    ]
}
