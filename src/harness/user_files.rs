//! Where a harness keeps its user config and settings, and how the-loop
//! writes to them: through symlinks to the real file, in a temp file beside
//! it with the file's own mode (0600 when new), then an atomic rename, and
//! not at all when nothing would change.

use super::seed::Merged;

use std::ops::Not;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// `HOME` and each harness's own directory variable
/// ([`super::Harness::home_variables`]: `CLAUDE_CONFIG_DIR`, `CODEX_HOME`)
/// as the harness will see them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HarnessHome {
    pub home: Option<PathBuf>,
    /// The harnesses' own variables that are set, by name.
    pub dirs: std::collections::BTreeMap<&'static str, PathBuf>,
}

/// Where Claude Code keeps its files when set (otherwise `~/.claude`).
pub const CLAUDE_CONFIG_DIR: &str = "CLAUDE_CONFIG_DIR";

impl HarnessHome {
    /// `HOME` and `variables` from the-loop's own environment: the tmux
    /// server a pane is started from inherits it, and so does the harness.
    pub fn from_environment(variables: &[&'static str]) -> HarnessHome {
        let mut home = HarnessHome::default();
        for name in std::iter::once(&"HOME").chain(variables) {
            let value = std::env::var_os(name)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from);
            home.set(name, value);
        }
        home
    }

    /// As a pane started now will see them: a pane's environment comes from
    /// the tmux server's global environment, not from whoever runs the-loop,
    /// so a caller whose `HOME` or `CLAUDE_CONFIG_DIR` differs must not
    /// decide where the session's conversations and trust keys live. Names
    /// passed through to sessions (`passthrough`) override; with no server
    /// running, the server about to be started inherits our own.
    /// The harnesses' own `variables` are the ones
    /// ([`super::home_for_new_pane`] passes every harness's).
    pub fn for_new_pane(
        tmux: &dyn crate::tmux::Run,
        passthrough: &[(String, String)],
        variables: &[&'static str],
    ) -> HarnessHome {
        HarnessHome::resolve(Some(tmux), passthrough, variables)
    }

    /// As a pane of a server the-loop starts now, from its own
    /// environment, will see them (`apply --replace-server`'s new server).
    pub fn for_new_server(
        passthrough: &[(String, String)],
        variables: &[&'static str],
    ) -> HarnessHome {
        HarnessHome::resolve(None, passthrough, variables)
    }

    fn resolve(
        tmux: Option<&dyn crate::tmux::Run>,
        passthrough: &[(String, String)],
        variables: &[&'static str],
    ) -> HarnessHome {
        let mut home = HarnessHome::from_environment(variables);
        for name in std::iter::once(&"HOME").chain(variables) {
            if let Some(found) = tmux.and_then(|tmux| server_global(tmux, name)) {
                home.set(name, found);
            }
            if let Some((_, value)) = passthrough.iter().find(|(n, _)| n == name) {
                let value = Some(PathBuf::from(value)).filter(|v| !v.as_os_str().is_empty());
                home.set(name, value);
            }
        }
        home
    }

    fn set(&mut self, name: &'static str, value: Option<PathBuf>) {
        if name == "HOME" {
            self.home = value;
            return;
        }
        match value {
            Some(value) => self.dirs.insert(name, value),
            None => self.dirs.remove(name),
        };
    }

    /// A harness's own variable, when set.
    pub fn dir(&self, name: &str) -> Option<&Path> {
        self.dirs.get(name).map(PathBuf::as_path)
    }

    /// The variables as an environment, for checks that read a session's.
    pub fn as_env(&self) -> crate::observed::ProcessEnv {
        use std::os::unix::ffi::OsStrExt;
        let home = self.home.as_ref().map(|h| ("HOME", h));
        let dirs = self.dirs.iter().map(|(name, dir)| (*name, dir));
        crate::observed::ProcessEnv::from_pairs(
            home.into_iter()
                .chain(dirs)
                .map(|(name, value)| (name, value.as_os_str().as_bytes().to_vec())),
        )
    }

    /// Claude Code's user config: `${CLAUDE_CONFIG_DIR}/.config.json` when it
    /// exists, otherwise `${CLAUDE_CONFIG_DIR:-$HOME}/.claude.json`.
    pub fn user_config(&self) -> Option<PathBuf> {
        if let Some(dir) = self.dir(CLAUDE_CONFIG_DIR) {
            let legacy = dir.join(".config.json");
            if legacy.exists() {
                return Some(legacy);
            }
            return Some(dir.join(".claude.json"));
        }
        self.home.as_ref().map(|home| home.join(".claude.json"))
    }

    /// Claude Code's `${CLAUDE_CONFIG_DIR:-$HOME/.claude}/settings.json`.
    pub fn settings(&self) -> Option<PathBuf> {
        match (self.dir(CLAUDE_CONFIG_DIR), &self.home) {
            (Some(dir), _) => Some(dir.join("settings.json")),
            (None, Some(home)) => Some(home.join(".claude").join("settings.json")),
            (None, None) => None,
        }
    }
}

/// `name` in the tmux server's global environment: `Some(None)` when the
/// server holds it unset or does not have it, `None` when no server answered
/// (then the server a spawn starts inherits our own environment).
fn server_global(tmux: &dyn crate::tmux::Run, name: &str) -> Option<Option<PathBuf>> {
    let out = tmux
        .run_command(vec!["show-environment".into(), "-g".into(), name.into()])
        .ok()?;
    if !out.success {
        return crate::tmux::means_no_server(&out.stderr)
            .not()
            .then_some(None);
    }
    let line = out.stdout.lines().next().unwrap_or_default();
    let value = line.strip_prefix(name).and_then(|v| v.strip_prefix('='));
    Some(value.filter(|v| !v.is_empty()).map(PathBuf::from))
}

/// Why a file was not edited. Never carries the file's content.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    #[error("{path}: left alone: {why}")]
    Refused { path: PathBuf, why: String },
    #[error("{path}: cannot {action}: {}", crate::fsutil::IoKind(*.kind))]
    Io {
        path: PathBuf,
        action: &'static str,
        kind: std::io::ErrorKind,
    },
}

/// The file a write to `path` must replace: the end of its symlink chain,
/// so the link stays a link and the file it names gets the change.
fn write_target(path: &Path) -> Result<PathBuf, EditError> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            std::fs::canonicalize(path).map_err(|e| EditError::Io {
                path: path.to_owned(),
                action: "follow the symlink",
                kind: e.kind(),
            })
        }
        _ => Ok(path.to_owned()),
    }
}

/// The file at `path` (through its symlinks) as [`edit`] reads it: `None`
/// when there is none.
fn read_existing(target: &Path) -> Result<Option<Vec<u8>>, EditError> {
    match crate::bounded_read::read(target, &crate::bounded_read::USER_SETTINGS) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => match crate::bounded_read::refusal(&e) {
            Some(why) => Err(EditError::Refused {
                path: target.to_owned(),
                why,
            }),
            None => Err(EditError::Io {
                path: target.to_owned(),
                action: "read it",
                kind: e.kind(),
            }),
        },
    }
}

/// What [`edit`] would decide for the file at `path`, writing nothing
/// (a `--dry-run`).
pub fn preview(
    path: &Path,
    merge: impl FnOnce(Option<&[u8]>) -> Merged,
) -> Result<Merged, EditError> {
    let target = write_target(path)?;
    let existing = read_existing(&target)?;
    Ok(merge(existing.as_deref()))
}

/// Whether `path` already holds what an edit would make of it: nothing to
/// write, as `holds` judges its text (`None`: no file). Read without any
/// lock (the file is only ever replaced whole, by a rename), so parallel
/// respawns whose settings are in place already do not queue for the edit
/// lock; an unreadable file says no, and the edit under the lock says why.
pub fn already_holds(path: &Path, holds: impl FnOnce(Option<&[u8]>) -> bool) -> bool {
    let Ok(target) = write_target(path) else {
        return false;
    };
    match read_existing(&target) {
        Ok(existing) => holds(existing.as_deref()),
        Err(_) => false,
    }
}

/// Applies `merge` to the file at `path`. Returns whether it was written.
pub fn edit(path: &Path, merge: impl FnOnce(Option<&[u8]>) -> Merged) -> Result<bool, EditError> {
    let target = write_target(path)?;
    let io = |action: &'static str| {
        let target = target.clone();
        move |e: std::io::Error| EditError::Io {
            path: target,
            action,
            kind: e.kind(),
        }
    };
    let existing = read_existing(&target)?;
    let text = match merge(existing.as_deref()) {
        Merged::Unchanged => return Ok(false),
        Merged::Refused(why) => return Err(EditError::Refused { path: target, why }),
        Merged::Changed(text) => text,
    };
    let mode = match &existing {
        Some(_) => {
            std::fs::metadata(&target)
                .map_err(io("read its mode"))?
                .permissions()
                .mode()
                & 0o7777
        }
        None => 0o600,
    };
    if existing.is_none() {
        if let Some(dir) = target.parent() {
            crate::fsutil::create_private_dir(dir).map_err(io("create its directory"))?;
        }
    }
    // The real file (links were resolved above), replaced atomically with
    // exactly its own mode.
    crate::fsutil::write_atomic(&target, text.as_bytes(), mode).map_err(io("write it"))?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::seed::{seed_plugin, seed_trust, TrustSeed};
    use std::os::unix::fs::symlink;

    fn trust() -> TrustSeed {
        TrustSeed {
            exact: vec!["/w/repo".into()],
            widened: vec![],
            accept_bypass: false,
        }
    }

    fn mode_of(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
    }

    #[test]
    fn a_new_file_is_created_0600() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join(".claude.json");
        assert!(edit(&path, |e| seed_trust(e, &trust())).unwrap());
        assert_eq!(mode_of(&path), 0o600);
        insta::assert_snapshot!(std::fs::read_to_string(&path).unwrap());
    }

    #[test]
    fn the_mode_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".claude.json");
        std::fs::write(&path, r#"{"theme": "dark"}"#).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        assert!(edit(&path, |e| seed_trust(e, &trust())).unwrap());
        assert_eq!(mode_of(&path), 0o640);
        insta::assert_snapshot!(std::fs::read_to_string(&path).unwrap());
    }

    #[test]
    fn a_symlink_is_followed_and_stays_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("dotfiles").join("settings.json");
        std::fs::create_dir_all(real.parent().unwrap()).unwrap();
        std::fs::write(&real, r#"{"model": "opus"}"#).unwrap();
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o644)).unwrap();
        let link = dir.path().join("settings.json");
        symlink("dotfiles/settings.json", &link).unwrap();

        assert!(edit(&link, |e| seed_plugin(e, "o/r")).unwrap());
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(mode_of(&real), 0o644);
        insta::assert_snapshot!(std::fs::read_to_string(&real).unwrap());
    }

    #[test]
    fn nothing_is_written_when_nothing_changes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".claude.json");
        assert!(edit(&path, |e| seed_trust(e, &trust())).unwrap());
        let before = std::fs::metadata(&path).unwrap();
        assert!(!edit(&path, |e| seed_trust(e, &trust())).unwrap());
        let after = std::fs::metadata(&path).unwrap();
        use std::os::unix::fs::MetadataExt;
        assert_eq!(before.ino(), after.ino(), "not replaced");
    }

    #[test]
    fn a_non_json_file_is_left_byte_for_byte() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".claude.json");
        std::fs::write(&path, "not json {").unwrap();
        let err = edit(&path, |e| seed_trust(e, &trust())).unwrap_err();
        assert!(matches!(err, EditError::Refused { .. }), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "not json {");
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temp file left"
        );
    }

    #[test]
    fn a_dangling_symlink_is_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join(".claude.json");
        symlink("missing/target.json", &link).unwrap();
        assert!(edit(&link, |e| seed_trust(e, &trust())).is_err());
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
    }

    #[test]
    fn where_claude_keeps_its_files() {
        let dir = tempfile::tempdir().unwrap();
        let home = HarnessHome {
            home: Some("/home/op".into()),
            ..HarnessHome::default()
        };
        assert_eq!(
            home.user_config().unwrap(),
            Path::new("/home/op/.claude.json")
        );
        assert_eq!(
            home.settings().unwrap(),
            Path::new("/home/op/.claude/settings.json")
        );
        let custom = HarnessHome {
            home: Some("/home/op".into()),
            dirs: [("CLAUDE_CONFIG_DIR", dir.path().into())].into(),
        };
        assert_eq!(
            custom.user_config().unwrap(),
            dir.path().join(".claude.json")
        );
        std::fs::write(dir.path().join(".config.json"), "{}").unwrap();
        assert_eq!(
            custom.user_config().unwrap(),
            dir.path().join(".config.json")
        );
        assert_eq!(custom.settings().unwrap(), dir.path().join("settings.json"));
    }
}
