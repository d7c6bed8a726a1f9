//! A respawned harness's first prompt travels through a file, not through
//! tmux: the pane's argv names the file, and the launcher reads it, removes
//! it and hands the text to the harness as its last argument. tmux keeps
//! the argv of the client that started its server for the server's whole
//! life, so text put there would outlive the session it was meant for.

use super::launch::{LaunchSpec, LAUNCHER_SUBCOMMAND};
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};

/// Where prompt files wait for their launcher.
pub fn prompts_dir(state_root: &Path) -> PathBuf {
    state_root.join("run").join("prompts")
}

/// Writes `text` to a new private file under the state root, as the
/// harness must read it: outside input, through the one rule for text
/// typed into a harness (`crate::typed_text`), so a first prompt of
/// `/exit` or `!cmd` is a prompt, not a command.
pub fn write(state_root: &Path, text: &str) -> std::io::Result<PathBuf> {
    let path = prompts_dir(state_root).join(format!("{}.txt", uuid::Uuid::new_v4()));
    let typed = crate::typed_text::TypedText::from_outside(text);
    crate::fsutil::write_atomic(&path, typed.as_str().as_bytes(), 0o600)?;
    Ok(path)
}

/// Removes a prompt file no launcher will read (its spawn failed).
pub fn discard(path: &Path) {
    let _ = std::fs::remove_file(path);
}

/// The launcher's half: the prompt, with the file removed. A missing file
/// (already taken, or cleaned up) starts the harness without a prompt
/// rather than not at all.
pub fn take(path: &Path) -> Option<OsString> {
    match crate::bounded_read::read(path, &crate::bounded_read::BOOT_PROMPT) {
        Ok(bytes) => {
            let _ = std::fs::remove_file(path);
            (!bytes.is_empty()).then(|| OsString::from_vec(bytes))
        }
        Err(err) => {
            let error = crate::bounded_read::describe(&err);
            tracing::warn!(path = %path.display(), %error, "boot prompt file unreadable; starting without it");
            None
        }
    }
}

/// The pane argv of `spec`, with `--prompt-file FILE` given to the launcher.
pub fn pane_argv(spec: &LaunchSpec, launcher: &Path, prompt_file: Option<&Path>) -> Vec<OsString> {
    let mut argv = spec.pane_argv(launcher);
    if let Some(file) = prompt_file {
        // Launcher options go before the `--` that starts the harness's argv.
        let at = argv.iter().position(|a| a == "--").unwrap_or(argv.len());
        argv.splice(at..at, [OsString::from("--prompt-file"), file.into()]);
    }
    debug_assert_eq!(
        argv.get(1).map(|a| a.as_os_str()),
        Some(LAUNCHER_SUBCOMMAND.as_ref())
    );
    argv
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{Launch, LaunchArgs};
    use crate::registry::SessionKey;

    #[test]
    fn prompt_file_is_a_launcher_option_never_a_harness_argument() {
        let spec = LaunchSpec {
            harness: &crate::harness::CLAUDE_CODE,
            identity: SessionKey::work_item("github:octo/repo#1").unwrap(),
            cwd: "/w".into(),
            launch: Launch::Resume {
                session_id: "abc".into(),
            },
            args: LaunchArgs::default(),
            config_path: "/c.yaml".into(),
            harness_binary: "claude".into(),
        };
        let argv = pane_argv(
            &spec,
            Path::new("/bin/the-loop"),
            Some(Path::new("/p/1.txt")),
        );
        let text: Vec<String> = argv
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            text,
            [
                "/bin/the-loop",
                "exec",
                "--config",
                "/c.yaml",
                "--work-item",
                "github:octo/repo#1",
                "--harness",
                "claude",
                "--prompt-file",
                "/p/1.txt",
                "--",
                "claude",
                "--resume",
                "abc"
            ]
        );
    }

    #[test]
    fn take_reads_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "hello\nworld").unwrap();
        assert_eq!(take(&path), Some(OsString::from("hello\nworld")));
        assert!(!path.exists());
        assert_eq!(take(&path), None);
    }
}
