//! Records that name one conversation, as `sessions list` reports them
//! (`plan` reports them from its observation, `crate::plan::shared_conversation`).

use crate::lifecycle::key::Record;

/// For each record, in order, the other live records naming its
/// conversation, by ref or standing name; empty for a closed record.
pub fn shared(records: &[Record]) -> Vec<Vec<String>> {
    let labels: Vec<String> = records
        .iter()
        .map(|r| match r {
            Record::WorkItem(r) => r.work_item.reference.clone(),
            Record::Standing(r) => r.name.clone(),
        })
        .collect();
    let named: Vec<(&str, &str, Option<&str>)> = records
        .iter()
        .zip(&labels)
        .map(|(r, label)| {
            let id = r.harness_session_id().filter(|_| r.status().is_live());
            (label.as_str(), r.harness(), id)
        })
        .collect();
    crate::plan::shared_conversation::among(&named)
}
