//! The settings layer the-loop adds to every Claude Code it launches:
//! `claude --settings <state root>/harness/claude-settings.json …`.
//!
//! `--settings` adds a layer: the user's own settings and hooks stay in
//! force, and these hooks run beside theirs. Each hook calls the running
//! the-loop binary's hidden `hook` subcommand (see [`crate::activity::hook`]),
//! which records the event for the activity of the session.
//!
//! The flag goes right after the binary, before `--session-id` or
//! `--resume`. Argument drift compares only the words after the
//! conversation id (`Harness::read_launch`), so a harness started before
//! hooks existed (no `--settings`) and one started after read the same: no
//! session shows false drift for it. The price is that a session without
//! hooks is not rolled for lacking them; its activity is `unknown` until
//! it is next respawned for another reason.

use crate::activity::HookEvent;
use serde_json::{json, Map, Value};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

pub use crate::desired::policy::HELPER_DELIVERED;

/// Set by the launcher in the environment of a harness it started with
/// the key helper in its settings layer: a running harness's settings
/// cannot be read back, so this says it has the helper.
pub const VAR_KEY_HELPER: &str = "THE_LOOP_KEY_HELPER";

/// The hidden subcommand Claude Code runs as its `apiKeyHelper`.
pub const KEY_HELPER_SUBCOMMAND: &str = "api-key-helper";

/// The helper's command for the config at `config_path`.
pub fn key_helper(the_loop: &Path, config_path: &Path) -> Vec<OsString> {
    vec![
        the_loop.into(),
        KEY_HELPER_SUBCOMMAND.into(),
        "--config".into(),
        config_path.into(),
    ]
}

/// The flag Claude Code takes a settings file with.
pub const SETTINGS_FLAG: &str = "--settings";

/// Where the file lives under the state root.
pub fn settings_path(state_root: &Path) -> PathBuf {
    state_root.join("harness").join("claude-settings.json")
}

/// How long Claude Code lets a hook run before it gives up on it. The hook
/// finishes in milliseconds; this only bounds a machine that has stalled.
const HOOK_TIMEOUT_SECS: u64 = 10;

/// Quotes a word for the `sh -c` Claude Code runs a hook command through.
pub fn shell_quote(word: &std::ffi::OsStr) -> String {
    let text = word.to_string_lossy();
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// The command a harness runs on `event`: `<the-loop> hook --dir <activity
/// dir> --event <name>`, as one `sh -c` line (Claude Code's and Codex's
/// hooks alike).
pub fn hook_command(the_loop: &Path, activity_dir: &Path, event: HookEvent) -> String {
    command_line(&[
        the_loop.into(),
        crate::activity::hook::SUBCOMMAND.into(),
        "--dir".into(),
        activity_dir.into(),
        "--event".into(),
        event.name().into(),
    ])
}

/// Words as one `sh -c` command line, each quoted.
pub fn command_line(words: &[OsString]) -> String {
    words
        .iter()
        .map(|w| shell_quote(w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The settings object: one command hook per event, calling
/// `<the-loop> hook --dir <activity dir> --event <name>`, and an
/// `apiKeyHelper` when the-loop hands the harness its API key.
pub fn settings(
    the_loop: &Path,
    activity_dir: &Path,
    api_key_helper: Option<&[OsString]>,
) -> Value {
    let mut hooks = Map::new();
    for event in HookEvent::ALL {
        let command = hook_command(the_loop, activity_dir, event);
        hooks.insert(
            event.name().into(),
            json!([{ "hooks": [{
                "type": "command",
                "command": command,
                "timeout": HOOK_TIMEOUT_SECS,
            }]}]),
        );
    }
    let mut settings = Map::new();
    settings.insert("hooks".into(), Value::Object(hooks));
    if let Some(helper) = api_key_helper {
        settings.insert("apiKeyHelper".into(), Value::String(command_line(helper)));
    }
    Value::Object(settings)
}

/// Writes the settings file for `state_root` (atomically, 0600, so a
/// harness starting meanwhile reads the old file or the new one) and
/// returns the words to put after the harness binary.
pub fn write(
    state_root: &Path,
    the_loop: &Path,
    api_key_helper: Option<&[OsString]>,
) -> std::io::Result<Vec<OsString>> {
    let path = settings_path(state_root);
    let activity_dir = crate::activity::store::dir(state_root);
    let value = settings(the_loop, &activity_dir, api_key_helper);
    let mut bytes = serde_json::to_vec_pretty(&value).map_err(std::io::Error::other)?;
    bytes.push(b'\n');
    // Unchanged content is not rewritten: every launch calls this.
    let now = crate::bounded_read::read(&path, &crate::bounded_read::STATE_TEXT);
    if now.ok().as_deref() != Some(&bytes[..]) {
        crate::fsutil::write_atomic(&path, &bytes, 0o600)?;
    }
    Ok(vec![SETTINGS_FLAG.into(), path.into()])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_event_calls_the_hook_with_quoted_paths() {
        let value = settings(
            Path::new("/opt/the loop/bin/the-loop"),
            Path::new("/state/it's/activity"),
            None,
        );
        let hooks = value["hooks"].as_object().unwrap();
        assert_eq!(hooks.len(), HookEvent::ALL.len());
        assert_eq!(
            hooks["Stop"][0]["hooks"][0]["command"],
            r"'/opt/the loop/bin/the-loop' 'hook' '--dir' '/state/it'\''s/activity' '--event' 'Stop'"
        );
        assert!(value.get("apiKeyHelper").is_none());
        insta::assert_json_snapshot!(value);
    }

    #[test]
    fn the_quoting_survives_a_real_shell() {
        let word = std::ffi::OsStr::new("a b'c\"$HOME`x`");
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("printf %s {}", shell_quote(word)))
            .output()
            .unwrap();
        assert_eq!(out.stdout, word.as_encoded_bytes());
    }

    #[test]
    fn the_file_is_written_once_and_named_in_the_args() {
        let root = tempfile::tempdir().unwrap();
        let helper = [
            OsString::from("/bin/the-loop"),
            OsString::from("api-key-helper"),
        ];
        let args = write(root.path(), Path::new("/bin/the-loop"), Some(&helper)).unwrap();
        let path = settings_path(root.path());
        assert_eq!(
            args,
            vec![OsString::from(SETTINGS_FLAG), path.clone().into()]
        );
        let value: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(value["apiKeyHelper"], "'/bin/the-loop' 'api-key-helper'");
        let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        write(root.path(), Path::new("/bin/the-loop"), Some(&helper)).unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().modified().unwrap(), mtime);
    }
}
