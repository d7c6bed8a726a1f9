//! What Claude Code itself says about a running process: it keeps
//! `${CLAUDE_CONFIG_DIR:-$HOME/.claude}/sessions/<pid>.json` for each of
//! its interactive processes, naming the conversation the process is in
//! now (`sessionId`, rewritten on `/clear` and an in-app `/resume`) and
//! the process's start time (`procStart`, `/proc/<pid>/stat` field 22).
//! Seen in 2.1.328 and in the pinned 2.1.332 (`.ci/run`);
//! `tests/it/real_claude_import.rs` reads it from the real CLI.

use super::SaidConversation;
use crate::bounded_read::{self, HARNESS_SESSION};
use std::path::{Path, PathBuf};

/// The session file of `pid` under the config directory the process
/// itself holds (`env` reads its environment).
pub fn session_file(env: &dyn Fn(&str) -> Option<PathBuf>, pid: i32) -> Option<PathBuf> {
    let dir = match env(super::claude::CONFIG_DIR_VARIABLE).filter(|d| d.is_absolute()) {
        Some(dir) => dir,
        None => env("HOME").filter(|h| h.is_absolute())?.join(".claude"),
    };
    Some(dir.join("sessions").join(format!("{pid}.json")))
}

/// What `pid`, started at `start`, says of its conversation. No file:
/// [`SaidConversation::Nothing`]. A file left by an earlier process that
/// had the same pid (another `procStart`) is not this one's, and says
/// nothing either. A file that cannot be read, parsed or matched to this
/// process is [`SaidConversation::Unclear`]: never a guess.
pub fn said(
    env: &dyn Fn(&str) -> Option<PathBuf>,
    pid: i32,
    start: Option<u64>,
) -> SaidConversation {
    let Some(path) = session_file(env, pid) else {
        return SaidConversation::Unclear(
            "neither CLAUDE_CONFIG_DIR nor HOME is set in its environment, so where Claude Code says which conversation it is in is unknown".into(),
        );
    };
    match bounded_read::read(&path, &HARNESS_SESSION) {
        Ok(bytes) => parse(&bytes, pid, start, &path),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => SaidConversation::Nothing,
        Err(e) => SaidConversation::Unclear(format!(
            "{} cannot be read ({})",
            path.display(),
            bounded_read::describe(&e)
        )),
    }
}

fn parse(bytes: &[u8], pid: i32, start: Option<u64>, path: &Path) -> SaidConversation {
    let unclear = |why: &str| SaidConversation::Unclear(format!("{}: {why}", path.display()));
    let Ok(said) = serde_json::from_slice::<serde_json::Value>(bytes) else {
        return unclear("not JSON");
    };
    if said["pid"].as_i64() != Some(i64::from(pid)) {
        return unclear("it names another pid");
    }
    // `procStart` is a string of digits in 2.1.328; a number is taken too.
    let written = match &said["procStart"] {
        serde_json::Value::String(s) => s.parse::<u64>().ok(),
        serde_json::Value::Number(n) => n.as_u64(),
        _ => None,
    };
    match (written, start) {
        (Some(written), Some(start)) if written != start => return SaidConversation::Nothing,
        (Some(_), Some(_)) => {}
        _ => return unclear("which process wrote it cannot be told (no procStart to compare)"),
    }
    match said["sessionId"].as_str() {
        Some(id) if super::is_valid_session_id(id) => SaidConversation::Conversation(id.to_owned()),
        _ => unclear("it names no valid conversation id"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<PathBuf> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| PathBuf::from(v))
        }
    }

    #[test]
    fn the_file_is_under_the_config_dir_the_process_holds_else_its_home() {
        let both = env_of(&[("CLAUDE_CONFIG_DIR", "/c"), ("HOME", "/h")]);
        assert_eq!(session_file(&both, 7), Some("/c/sessions/7.json".into()));
        let home = env_of(&[("HOME", "/h")]);
        assert_eq!(
            session_file(&home, 7),
            Some("/h/.claude/sessions/7.json".into())
        );
        assert_eq!(session_file(&env_of(&[("HOME", "rel")]), 7), None);
    }

    #[test]
    fn only_this_process_s_own_file_says_its_conversation() {
        let dir = tempfile::tempdir().unwrap();
        let sessions = dir.path().join("sessions");
        std::fs::create_dir(&sessions).unwrap();
        let config = dir.path().to_str().unwrap().to_owned();
        let pairs = [("CLAUDE_CONFIG_DIR", config.as_str())];
        let env = env_of(&pairs);
        let write = |text: &str| std::fs::write(sessions.join("7.json"), text).unwrap();
        assert_eq!(said(&env, 7, Some(100)), SaidConversation::Nothing);
        write(r#"{"pid":7,"sessionId":"abc","procStart":"100"}"#);
        assert_eq!(
            said(&env, 7, Some(100)),
            SaidConversation::Conversation("abc".into())
        );
        write(r#"{"pid":7,"sessionId":"abc","procStart":100}"#);
        assert_eq!(
            said(&env, 7, Some(100)),
            SaidConversation::Conversation("abc".into())
        );
        // An earlier process with the same pid left it.
        write(r#"{"pid":7,"sessionId":"abc","procStart":"99"}"#);
        assert_eq!(said(&env, 7, Some(100)), SaidConversation::Nothing);
        for unclear in [
            r#"{"pid":7,"sessionId":"abc"}"#,
            r#"{"pid":8,"sessionId":"abc","procStart":"100"}"#,
            r#"{"pid":7,"sessionId":"a b","procStart":"100"}"#,
            r#"{"pid":7,"procStart":"100"}"#,
            "not json",
        ] {
            write(unclear);
            assert!(
                matches!(said(&env, 7, Some(100)), SaidConversation::Unclear(_)),
                "{unclear}"
            );
        }
        write(r#"{"pid":7,"sessionId":"abc","procStart":"100"}"#);
        assert!(matches!(said(&env, 7, None), SaidConversation::Unclear(_)));
        assert!(matches!(
            said(&env_of(&[]), 7, Some(100)),
            SaidConversation::Unclear(_)
        ));
    }
}
