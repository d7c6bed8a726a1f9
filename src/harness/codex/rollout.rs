//! Where Codex keeps a conversation, and which one a running Codex holds.
//!
//! Each conversation is a rollout file,
//! `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<local time>-<id>.jsonl`
//! (`CODEX_HOME` defaults to `~/.codex`), written from the first prompt on
//! and held open by the process for as long as it is in that conversation.
//! Its path cannot be computed from the id alone (the date and time are the
//! file's), so it is looked up. Codex's ids are UUIDv7s, whose first 48 bits
//! are the Unix time in milliseconds: the day directories around that time
//! are read first, and only an id that is not a v7 (or a file not found
//! there) costs a walk of the whole tree, bounded.

use std::path::{Path, PathBuf};

/// `$CODEX_HOME`, or `$HOME/.codex`, as the session holds them.
pub fn codex_home(env: &dyn Fn(&str) -> Option<PathBuf>) -> PathBuf {
    match env("CODEX_HOME").filter(|d| !d.as_os_str().is_empty()) {
        Some(dir) => dir,
        None => env("HOME")
            .unwrap_or_else(|| PathBuf::from("/"))
            .join(".codex"),
    }
}

/// The most day directories a lookup that missed reads before it gives up.
const WALK_LIMIT: usize = 20_000;

/// The rollout file of conversation `id` under `home`, or, when there is
/// none, a path that names where it was looked for (and is not a file).
pub fn find(home: &Path, id: &str) -> PathBuf {
    let sessions = home.join("sessions");
    let first = days_of(id)
        .into_iter()
        .map(|(y, m, d)| {
            sessions
                .join(format!("{y:04}"))
                .join(format!("{m:02}"))
                .join(format!("{d:02}"))
        })
        .find_map(|day| in_day(&day, id));
    first
        .or_else(|| walk(&sessions, id))
        .unwrap_or_else(|| sessions.join(format!("YYYY/MM/DD/rollout-*-{id}.jsonl")))
}

/// The file in `day` whose name ends with the id.
fn in_day(day: &Path, id: &str) -> Option<PathBuf> {
    let suffix = format!("-{id}.jsonl");
    std::fs::read_dir(day)
        .ok()?
        .flatten()
        .map(|entry| entry.path())
        .find(|path| {
            path.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("rollout-") && n.ends_with(&suffix))
        })
}

/// Every `YYYY/MM/DD` under `sessions`, newest first, at most
/// [`WALK_LIMIT`] of them.
fn walk(sessions: &Path, id: &str) -> Option<PathBuf> {
    let sorted = |dir: &Path| -> Vec<PathBuf> {
        let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
            .map(|entries| entries.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        found.sort_unstable_by(|a, b| b.cmp(a));
        found
    };
    sorted(sessions)
        .iter()
        .flat_map(|year| sorted(year))
        .flat_map(|month| sorted(&month))
        .take(WALK_LIMIT)
        .find_map(|day| in_day(&day, id))
}

/// The UTC day of a UUIDv7's time, with the days before and after (the
/// file's directory is named by local time). Empty for any other id.
fn days_of(id: &str) -> Vec<(i64, u32, u32)> {
    let hex: String = id.chars().filter(|c| *c != '-').collect();
    if hex.len() != 32 || hex.as_bytes()[12] != b'7' {
        return Vec::new();
    }
    let Ok(ms) = i64::from_str_radix(&hex[..12], 16) else {
        return Vec::new();
    };
    let day = ms.div_euclid(86_400_000);
    [day, day - 1, day + 1]
        .map(crate::clock::civil_from_days)
        .to_vec()
}

/// The conversations whose rollout files process `pid` holds open.
pub fn held_by(pid: i32) -> Vec<String> {
    let fds = crate::proc_env::proc_root()
        .join(pid.to_string())
        .join("fd");
    let Ok(entries) = std::fs::read_dir(fds) else {
        return Vec::new();
    };
    let mut ids: Vec<String> = entries
        .flatten()
        .filter_map(|entry| std::fs::read_link(entry.path()).ok())
        .filter_map(|target| id_of(&target))
        .collect();
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// What a Codex process says of its conversation by the rollout files it
/// holds open: none (no prompt yet), the one, or, when it holds more than
/// one, nothing that can be trusted. After `/new` (or a pick in its resume
/// picker) Codex keeps the earlier file open beside the new one, and no
/// file says which the person is in now: only a hook's `SessionStart`
/// does, and it is asked first.
pub fn said(held: &[String]) -> crate::harness::SaidConversation {
    use crate::harness::SaidConversation;
    match held {
        [] => SaidConversation::Nothing,
        [only] => SaidConversation::Conversation(only.clone()),
        many => SaidConversation::Unclear(format!(
            "it holds {} conversations open ({}) and no hook of the-loop's said which one it is in",
            many.len(),
            many.join(", ")
        )),
    }
}

/// The id in a rollout file's path: `…/sessions/…/rollout-<time>-<id>.jsonl`.
pub fn id_of(path: &Path) -> Option<String> {
    let in_sessions = path
        .components()
        .any(|c| c.as_os_str() == std::ffi::OsStr::new("sessions"));
    let name = path.file_name()?.to_str()?;
    let stem = name.strip_prefix("rollout-")?.strip_suffix(".jsonl")?;
    let id = stem.get(stem.len().checked_sub(36)?..)?;
    let shaped = id.len() == 36
        && id.char_indices().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => c == '-',
            _ => c.is_ascii_hexdigit(),
        });
    (in_sessions && shaped).then(|| id.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "01a23c8f-fb0b-7ac3-a719-93ee54f86254";

    #[test]
    fn a_v7_id_names_its_day_and_the_file_is_found_there() {
        // 0x01a23c8ffb0b ms is 2026-12-03 15:39:58 UTC, as the real file said.
        assert_eq!(days_of(ID)[0], (2026, 12, 3));
        assert_eq!(days_of("not-a-uuid"), vec![]);
        let home = tempfile::tempdir().unwrap();
        let day = home.path().join("sessions/2026/12/03");
        std::fs::create_dir_all(&day).unwrap();
        let file = day.join(format!("rollout-2026-12-03T15-39-58-{ID}.jsonl"));
        std::fs::write(&file, "{}\n").unwrap();
        assert_eq!(find(home.path(), ID), file);
        let missing = find(home.path(), "01a23c8f-fb0b-7ac3-a719-000000000000");
        assert!(!missing.is_file());
        assert!(missing.starts_with(home.path().join("sessions")));
    }

    #[test]
    fn an_id_of_another_shape_is_found_by_the_walk() {
        let home = tempfile::tempdir().unwrap();
        let day = home.path().join("sessions/2025/01/31");
        std::fs::create_dir_all(&day).unwrap();
        let id = "5973ce5c-3b56-4c5f-9d8a-3e0e5a2b6b70";
        let file = day.join(format!("rollout-2025-01-31T10-00-00-{id}.jsonl"));
        std::fs::write(&file, "{}\n").unwrap();
        assert_eq!(find(home.path(), id), file);
    }

    #[test]
    fn only_a_rollout_under_sessions_names_a_conversation() {
        let good = format!("/h/.codex/sessions/2026/12/03/rollout-2026-12-03T15-39-58-{ID}.jsonl");
        assert_eq!(id_of(Path::new(&good)).as_deref(), Some(ID));
        for bad in [
            format!("/h/.codex/elsewhere/rollout-x-{ID}.jsonl"),
            format!("/h/.codex/sessions/2026/12/03/rollout-x-{ID}.json"),
            "/h/.codex/sessions/rollout-short.jsonl".to_owned(),
            "/h/.codex/state_5.sqlite".to_owned(),
        ] {
            assert_eq!(id_of(Path::new(&bad)), None, "{bad}");
        }
    }

    #[test]
    fn one_open_rollout_is_the_conversation_and_two_say_nothing_certain() {
        use crate::harness::SaidConversation;
        assert_eq!(said(&[]), SaidConversation::Nothing);
        assert_eq!(
            said(&[ID.to_owned()]),
            SaidConversation::Conversation(ID.to_owned())
        );
        let other = "01a23c8f-fb0b-7ac3-a719-000000000001".to_owned();
        match said(&[ID.to_owned(), other.clone()]) {
            SaidConversation::Unclear(why) => {
                assert!(why.contains(ID) && why.contains(&other), "{why}")
            }
            said => panic!("{said:?}"),
        }
    }

    #[test]
    fn this_process_holds_no_conversation() {
        assert_eq!(held_by(std::process::id() as i32), Vec::<String>::new());
    }
}
