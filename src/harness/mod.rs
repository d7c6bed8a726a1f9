//! Claude Code as a harness: its argv, its session ids and where it keeps
//! its conversations.

pub mod hooks;
pub mod models;
pub mod prepare;
pub mod screens;
pub mod seed;
pub mod user_files;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

pub const CLAUDE: &str = "claude";

/// What the harness should do when it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Launch {
    /// A new conversation with a pre-assigned id, optionally with a first prompt.
    Fresh {
        session_id: String,
        prompt: Option<String>,
    },
    /// Continue the recorded conversation.
    Resume { session_id: String },
}

/// Arguments the harness is launched with besides the conversation choice.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LaunchArgs {
    pub harness_args: Vec<String>,
    pub model: Option<String>,
    pub effort: Option<String>,
}

/// Everything about one kind of harness that the-loop depends on. A record's
/// `harness` field picks the implementation ([`for_name`]); the config keys
/// its settings by the same name (`routing.harnessArgs.<name>`,
/// `routing.harnessBinary.<name>`).
pub trait Harness: std::fmt::Debug + Sync {
    /// The name records and config use.
    fn name(&self) -> &'static str;
    /// The binary run when the config names none.
    fn default_binary(&self) -> &'static str;
    /// The argv after the binary for a launch.
    fn argv(&self, launch: &Launch, args: &LaunchArgs) -> Vec<OsString>;
    /// Where a conversation's transcript lives, with the harness's own
    /// config directory and home.
    fn transcript_path(
        &self,
        config_dir: Option<&Path>,
        home: &Path,
        cwd: &Path,
        session_id: &str,
    ) -> PathBuf;
    /// Writes the-loop's hook settings under `state_root` and returns the
    /// words that add them, placed right after the binary.
    fn hook_settings(
        &self,
        state_root: &Path,
        the_loop: &Path,
        key_helper: Option<&[OsString]>,
    ) -> std::io::Result<Vec<OsString>>;
    /// The known screen, if any, that stops the harness before its prompt.
    fn blocking_screen(&self, screen: &str) -> Option<screens::BlockingScreen>;
}

/// Claude Code.
#[derive(Debug)]
pub struct ClaudeCode;

pub static CLAUDE_CODE: ClaudeCode = ClaudeCode;

impl Harness for ClaudeCode {
    fn name(&self) -> &'static str {
        CLAUDE
    }
    fn default_binary(&self) -> &'static str {
        CLAUDE
    }
    fn argv(&self, launch: &Launch, args: &LaunchArgs) -> Vec<OsString> {
        harness_argv(launch, args)
    }
    fn transcript_path(
        &self,
        config_dir: Option<&Path>,
        home: &Path,
        cwd: &Path,
        session_id: &str,
    ) -> PathBuf {
        transcript_path(config_dir, home, cwd, session_id)
    }
    fn hook_settings(
        &self,
        state_root: &Path,
        the_loop: &Path,
        key_helper: Option<&[OsString]>,
    ) -> std::io::Result<Vec<OsString>> {
        hooks::write(state_root, the_loop, key_helper)
    }
    fn blocking_screen(&self, screen: &str) -> Option<screens::BlockingScreen> {
        screens::blocking_screen(screen)
    }
}

/// The implementation a record's `harness` names; refuses harnesses that
/// cannot be hosted in tmux with a pre-assigned id.
pub fn for_name(harness: &str) -> Result<&'static dyn Harness, String> {
    check_supported(harness)?;
    let claude: &'static dyn Harness = &CLAUDE_CODE;
    Ok(claude)
}

/// Refuses harnesses that cannot be hosted in tmux with a pre-assigned id.
pub fn check_supported(harness: &str) -> Result<(), String> {
    match harness {
        CLAUDE => Ok(()),
        "cursor-agent" => Err(
            "cursor-agent cannot be hosted in tmux: it has no pre-assignable \
             session id, so its conversation could never be resumed. Use claude."
                .into(),
        ),
        _ => Err("unknown harness; the only supported harness is claude".into()),
    }
}

/// A session id must pass this before it reaches an argv, so a flag can
/// never masquerade as an id: `^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`.
pub fn is_valid_session_id(id: &str) -> bool {
    let bytes = id.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= 128
        && bytes[0].is_ascii_alphanumeric()
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

pub fn new_session_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// Separates the options from a first prompt in a fresh launch's argv.
pub const PROMPT_SEPARATOR: &str = "--";

/// The harness argv after the binary: `--session-id ID` or `--resume ID`,
/// then harness args, `--model M`, `--effort E`, and a first prompt last
/// (after `--`).
pub fn harness_argv(launch: &Launch, args: &LaunchArgs) -> Vec<OsString> {
    let mut argv: Vec<OsString> = Vec::new();
    match launch {
        Launch::Fresh { session_id, .. } => argv.extend(["--session-id".into(), session_id.into()]),
        Launch::Resume { session_id } => argv.extend(["--resume".into(), session_id.into()]),
    }
    argv.extend(args.harness_args.iter().map(OsString::from));
    if let Some(model) = &args.model {
        argv.extend(["--model".into(), model.into()]);
    }
    if let Some(effort) = &args.effort {
        argv.extend(["--effort".into(), effort.into()]);
    }
    if let Launch::Fresh {
        prompt: Some(prompt),
        ..
    } = launch
    {
        // `--` ends the options, so a prompt can never be read as a flag,
        // and the prompt is told apart from harness args when argv is read back.
        argv.push(PROMPT_SEPARATOR.into());
        argv.push(prompt.into());
    }
    argv
}

/// Claude Code's project directory name for a cwd: every character that is
/// not ASCII alphanumeric becomes `-`.
pub fn project_dir_name(cwd: &Path) -> String {
    cwd.to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// `${CLAUDE_CONFIG_DIR:-$HOME/.claude}/projects/<cwd mangled>/<id>.jsonl`,
/// with `CLAUDE_CONFIG_DIR` and `HOME` as the session itself holds them.
pub fn transcript_path(
    config_dir: Option<&Path>,
    home: &Path,
    cwd: &Path,
    session_id: &str,
) -> PathBuf {
    let base = match config_dir {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => home.join(".claude"),
    };
    base.join("projects")
        .join(project_dir_name(cwd))
        .join(format!("{session_id}.jsonl"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_record_name_picks_the_implementation() {
        let claude = for_name("claude").unwrap();
        assert_eq!(
            (claude.name(), claude.default_binary()),
            ("claude", "claude")
        );
        let launch = Launch::Resume {
            session_id: "abc".into(),
        };
        assert_eq!(
            claude.argv(&launch, &LaunchArgs::default()),
            harness_argv(&launch, &LaunchArgs::default())
        );
        assert_eq!(
            claude.blocking_screen("No conversation found with session ID: abc"),
            Some(screens::BlockingScreen::NoConversation)
        );
        assert!(for_name("cursor-agent")
            .unwrap_err()
            .contains("cannot be hosted"));
        assert!(for_name("other").is_err());
    }

    #[test]
    fn session_id_rule() {
        assert!(is_valid_session_id("3f2a6c1e-8f7b-4e0a-9d3c-1b2a3c4d5e6f"));
        assert!(is_valid_session_id("a"));
        assert!(!is_valid_session_id(""));
        assert!(!is_valid_session_id("--model"));
        assert!(!is_valid_session_id("-x"));
        assert!(!is_valid_session_id("a b"));
        assert!(!is_valid_session_id(&"a".repeat(129)));
        assert!(is_valid_session_id(&"a".repeat(128)));
    }

    #[test]
    fn argv_order() {
        let args = LaunchArgs {
            harness_args: vec!["--dangerously-skip-permissions".into()],
            model: Some("opus".into()),
            effort: Some("high".into()),
        };
        let fresh = harness_argv(
            &Launch::Fresh {
                session_id: "abc".into(),
                prompt: Some("go".into()),
            },
            &args,
        );
        insta::assert_debug_snapshot!(fresh);
        let resume = harness_argv(
            &Launch::Resume {
                session_id: "abc".into(),
            },
            &LaunchArgs::default(),
        );
        assert_eq!(
            resume,
            vec![OsString::from("--resume"), OsString::from("abc")]
        );
    }

    #[test]
    fn transcript_location() {
        let p = transcript_path(
            None,
            Path::new("/home/op"),
            Path::new("/work/octo.repo"),
            "id1",
        );
        assert_eq!(
            p,
            Path::new("/home/op/.claude/projects/-work-octo-repo/id1.jsonl")
        );
        let p = transcript_path(
            Some(Path::new("/cfg")),
            Path::new("/home/op"),
            Path::new("/w"),
            "id1",
        );
        assert_eq!(p, Path::new("/cfg/projects/-w/id1.jsonl"));
    }
}
