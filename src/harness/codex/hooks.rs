//! The hook layer the-loop adds to every Codex it launches: one
//! `-c hooks.<Event>=[…]` override per event, right after the binary, each
//! calling the-loop's hidden `hook` subcommand as Claude Code's do (Codex
//! sends the same JSON: `session_id`, `hook_event_name`, `source`).
//!
//! Two things make this the layer, and not a `hooks.json` in the user's
//! `CODEX_HOME`:
//! - it only exists for the processes the-loop starts;
//! - any `-c` override makes Codex run an embedded app server, never the
//!   shared local daemon, so the commands Codex runs are the pane's own
//!   process's children and hold its environment (a daemon's would hold the
//!   daemon's, with a token from before the roll).
//!
//! Codex runs no hook it has not been told to trust: it shows "Hooks need
//! review" instead. Trust is a `trusted_hash` per hook under
//! `[hooks.state]` in `$CODEX_HOME/config.toml`, keyed
//! `/<session-flags>/config.toml:<event>:<group>:<handler>` for `-c`
//! hooks, and the hash is SHA-256 of the hook's identity as compact JSON
//! with sorted keys (checked against the hashes Codex 0.171.0 wrote itself
//! when told to trust these hooks). [`trust`] gives both, and
//! `codex/seed.rs` writes them before each start.

use crate::activity::HookEvent;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::ffi::OsString;
use std::path::Path;

/// The events Codex 0.171.0 runs hooks for, of those the-loop reads.
/// (`Notification` and `StopFailure` are Claude Code's only.)
pub const EVENTS: [HookEvent; 7] = [
    HookEvent::SessionStart,
    HookEvent::UserPromptSubmit,
    HookEvent::PreToolUse,
    HookEvent::PermissionRequest,
    HookEvent::PostToolUse,
    HookEvent::Stop,
    HookEvent::SessionEnd,
];

/// How long Codex lets a hook run. The hook finishes in milliseconds.
const TIMEOUT_SECS: u64 = 10;

/// Codex holds a `SessionEnd` hook to at most 3 s, and trusts the hook as
/// it holds it: a longer timeout would never match its hash.
const SESSION_END_TIMEOUT_SECS: u64 = 3;

fn timeout(event: HookEvent) -> u64 {
    match event {
        HookEvent::SessionEnd => SESSION_END_TIMEOUT_SECS,
        _ => TIMEOUT_SECS,
    }
}

/// The command line of the hook for `event`.
pub use crate::harness::hooks::hook_command as command;

/// The words after the binary: `-c hooks.<Event>=[{hooks=[{…}]}]` each.
pub fn words(the_loop: &Path, activity_dir: &Path) -> Vec<OsString> {
    let mut words = Vec::new();
    for event in EVENTS {
        let command = toml_edit::Value::from(command(the_loop, activity_dir, event));
        words.push("-c".into());
        words.push(
            format!(
                "hooks.{}=[{{hooks=[{{type=\"command\",command={},timeout={}}}]}}]",
                event.name(),
                command.to_string().trim(),
                timeout(event)
            )
            .into(),
        );
    }
    words
}

/// Codex's name of an event in its trust keys: `session_start`.
fn snake(event: HookEvent) -> String {
    let mut out = String::new();
    for (i, c) in event.name().chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// The `[hooks.state]` key and the `trusted_hash` of the hook for `event`
/// with `command`.
pub fn trust(event: HookEvent, command: &str) -> (String, String) {
    let key = format!("/<session-flags>/config.toml:{}:0:0", snake(event));
    // Keys in sorted order: this crate's serde_json keeps insertion order.
    let mut handler = Map::new();
    handler.insert("async".into(), Value::Bool(false));
    handler.insert("command".into(), Value::String(command.into()));
    handler.insert("timeout".into(), Value::from(timeout(event)));
    handler.insert("type".into(), Value::String("command".into()));
    let mut identity = Map::new();
    identity.insert("event_name".into(), Value::String(snake(event)));
    identity.insert("hooks".into(), Value::Array(vec![Value::Object(handler)]));
    let json = Value::Object(identity).to_string();
    let digest = Sha256::digest(json.as_bytes());
    (
        key,
        format!("sha256:{}", base16ct::lower::encode_string(&digest)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hashes Codex 0.171.0 itself wrote when its "Trust all and
    /// continue" was chosen for `/work/codex-try/hook.sh` with its default
    /// timeout (600), recomputed with that timeout.
    #[test]
    fn the_trust_hash_is_the_one_codex_writes() {
        let identity = |event: &str, timeout: u64| {
            format!(
                r#"{{"event_name":"{event}","hooks":[{{"async":false,"command":"/work/codex-try/hook.sh","timeout":{timeout},"type":"command"}}]}}"#
            )
        };
        let hash = |s: String| base16ct::lower::encode_string(&Sha256::digest(s.as_bytes()));
        assert_eq!(
            hash(identity("session_start", 600)),
            "c7dc08ed22d8e6842b4ac7e228062319353f2422c6449691334b2b9de76b6bca"
        );
        assert_eq!(
            hash(identity("user_prompt_submit", 600)),
            "0443bfb92304673180b4e1d57b352a127dda0392058bb4777fed49b0110d14ae"
        );
        // SessionEnd's, as Codex wrote it for a hook asking 10 s: held to 3 s.
        let end = r#"{"event_name":"session_end","hooks":[{"async":false,"command":"'/bin/true' 'hook' '--dir' '/x' '--event' 'SessionEnd'","timeout":3,"type":"command"}]}"#;
        assert_eq!(
            hash(end.to_owned()),
            "0ee162e6f6296f7a4fb4d901fac6fcf4f507916537fccafba354fcc3ab63b739"
        );
        let words =
            ["/bin/true", "hook", "--dir", "/x", "--event", "SessionEnd"].map(OsString::from);
        let command = crate::harness::hooks::command_line(&words);
        assert_eq!(
            trust(HookEvent::SessionEnd, &command).1,
            format!("sha256:{}", hash(end.to_owned()))
        );
        // Ours: the same identity with our timeout.
        let (key, ours) = trust(HookEvent::UserPromptSubmit, "/work/codex-try/hook.sh");
        assert_eq!(key, "/<session-flags>/config.toml:user_prompt_submit:0:0");
        assert_eq!(
            ours,
            format!(
                "sha256:{}",
                hash(identity("user_prompt_submit", TIMEOUT_SECS))
            )
        );
    }

    #[test]
    fn each_override_is_one_toml_assignment_with_the_command_quoted() {
        let words = words(Path::new("/opt/the loop/bin"), Path::new("/s/activity"));
        assert_eq!(words.len(), 2 * EVENTS.len());
        let first = words[1].to_string_lossy().into_owned();
        let (key, value) = first.split_once('=').unwrap();
        assert_eq!(key, "hooks.SessionStart");
        let parsed: toml_edit::DocumentMut = format!("v = {value}").parse().unwrap();
        let command = parsed["v"][0]["hooks"][0]["command"].as_str().unwrap();
        assert_eq!(
            command,
            command_line_of("/opt/the loop/bin", "/s/activity", "SessionStart")
        );
    }

    fn command_line_of(the_loop: &str, dir: &str, event: &str) -> String {
        format!("'{the_loop}' 'hook' '--dir' '{dir}' '--event' '{event}'")
    }
}
