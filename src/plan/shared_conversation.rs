//! Two records naming one conversation (one copied by hand, or planted):
//! resuming either would put a second harness on a conversation whose
//! first may still run, or take it from the record it belongs to. The plan
//! names the others on each (`conversation_shared_with`), and the roll's
//! decision ([`super::ownership::decide`]) leaves both alone until a person
//! says which record it is.

use super::{Plan, SessionKind, SessionPlan};
use crate::observed::Observation;
use std::collections::BTreeMap;

/// The other live records naming `plan`'s conversation, by label, in the
/// registry's order; empty for a session with no record or conversation.
pub fn others(plan: &SessionPlan, observed: &Observation) -> Vec<String> {
    let (Some(key), Some(facts)) = (&plan.key, &plan.record) else {
        return Vec::new();
    };
    let Some(id) = facts.session_id.as_deref() else {
        return Vec::new();
    };
    observed
        .sessions
        .iter()
        .filter(|o| o.record_live && &o.key != key)
        .filter(|o| o.facts.harness == facts.harness && o.facts.session_id.as_deref() == Some(id))
        .map(|o| o.label().to_owned())
        .collect()
}

/// Why a roll leaves `plan` alone when others name its conversation.
pub fn refusal(plan: &SessionPlan, others: &[String]) -> String {
    let id = plan
        .record
        .as_ref()
        .and_then(|f| f.session_id.as_deref())
        .unwrap_or_default();
    format!(
        "conversation {id} is named by another record too ({}); neither is rolled or resumed until a person says whose it is (correct or remove harnessSessionId in the record that is not)",
        others.join(", ")
    )
}

/// Fills each managed session's `conversation_shared_with`, with one pass
/// over the records.
pub fn annotate(plan: &mut Plan, observed: &Observation) {
    let mut named: BTreeMap<(&str, &str), Vec<&str>> = BTreeMap::new();
    for o in observed.sessions.iter().filter(|o| o.record_live) {
        if let Some(id) = o.facts.session_id.as_deref() {
            named
                .entry((o.facts.harness.as_str(), id))
                .or_default()
                .push(o.label());
        }
    }
    for session in &mut plan.sessions {
        if session.kind == SessionKind::Unmanaged {
            continue;
        }
        let Some(facts) = &session.record else {
            continue;
        };
        let Some(id) = facts.session_id.as_deref() else {
            continue;
        };
        let label = session.label().to_owned();
        if let Some(labels) = named.get(&(facts.harness.as_str(), id)) {
            session.conversation_shared_with = labels
                .iter()
                .filter(|l| **l != label)
                .map(|l| (*l).to_owned())
                .collect();
        }
    }
}

/// For each record given as (label, harness, conversation) — the live ones
/// only — the other labels that name the same conversation, in order; one
/// pass. `sessions list` reports them as `plan` does.
pub fn among(records: &[(&str, &str, Option<&str>)]) -> Vec<Vec<String>> {
    let mut named: BTreeMap<(&str, &str), Vec<&str>> = BTreeMap::new();
    for (label, harness, id) in records {
        if let Some(id) = id {
            named.entry((harness, id)).or_default().push(label);
        }
    }
    records
        .iter()
        .map(|(label, harness, id)| {
            id.and_then(|id| named.get(&(*harness, id)))
                .map(|labels| {
                    labels
                        .iter()
                        .filter(|l| *l != label)
                        .map(|l| (*l).to_owned())
                        .collect()
                })
                .unwrap_or_default()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn records_naming_one_conversation_name_each_other() {
        let shared = super::among(&[
            ("a", "claude", Some("c1")),
            ("b", "claude", Some("c1")),
            ("c", "codex", Some("c1")),
            ("d", "claude", None),
        ]);
        assert_eq!(shared, [vec!["b"], vec!["a"], vec![], vec![]]);
    }
}
