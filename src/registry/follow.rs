//! The record follows the conversation the person is in: after `/clear` or
//! an in-app `/resume`, the live harness reports another id than the
//! record's, and a roll (which resumes that id) writes it in first.

use super::{Registry, SessionKey};

/// Makes `id` the record's conversation, keeping the earlier one in
/// `previousHarnessSessionIds`. `Ok(false)` when it already was, or when
/// the record is gone (then nothing is rolled from it anyway).
/// Written in the session's turn ([`super::queue`]), as every lifecycle
/// verb writes a record, so a delivery's write cannot undo it.
pub fn follow(registry: &Registry, key: &SessionKey, id: &str) -> Result<bool, String> {
    let _turn = super::queue::wait_turn(
        registry.root(),
        &key.tmux_name(),
        super::queue::DEFAULT_WAIT,
    )
    .map_err(|e| e.to_string())?;
    let moved = match key {
        SessionKey::WorkItem(r) => {
            let Some(mut record) = registry.load_work_item(r).map_err(|e| e.to_string())? else {
                return Ok(false);
            };
            let moved = record.session.follow_conversation(id);
            if moved {
                registry
                    .save_work_item(&record)
                    .map_err(|e| e.to_string())?;
            }
            moved
        }
        SessionKey::Standing(name) => {
            let Some(mut record) = registry.load_standing(name).map_err(|e| e.to_string())? else {
                return Ok(false);
            };
            let moved = record.session.follow_conversation(id);
            if moved {
                registry.save_standing(&record).map_err(|e| e.to_string())?;
            }
            moved
        }
    };
    Ok(moved)
}

#[cfg(test)]
mod tests {
    use crate::registry::record::{SessionFields, Status, PREVIOUS_CONVERSATIONS_KEPT};

    #[test]
    fn the_record_keeps_the_earlier_conversations_newest_last_and_bounded() {
        let mut fields = SessionFields::new("claude", Status::Active);
        assert!(fields.follow_conversation("a"));
        assert!(fields.previous_harness_session_ids.is_empty());
        assert!(!fields.follow_conversation("a"), "already there");
        assert!(fields.follow_conversation("b"));
        assert!(fields.follow_conversation("a"), "back to an earlier one");
        assert_eq!(fields.harness_session_id.as_deref(), Some("a"));
        assert_eq!(fields.previous_harness_session_ids, ["b"]);
        for n in 0..100 {
            fields.follow_conversation(&format!("c{n}"));
        }
        assert_eq!(
            fields.previous_harness_session_ids.len(),
            PREVIOUS_CONVERSATIONS_KEPT
        );
        assert_eq!(fields.previous_harness_session_ids.last().unwrap(), "c98");
    }
}
