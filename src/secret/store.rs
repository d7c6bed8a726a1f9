//! The two files behind fingerprints, under the state root: the local key
//! (`fingerprint.key`), and what the text plan last showed fingerprints as
//! (`fingerprint-mode.json`), so a change of mode or key is said once.

use super::fingerprint::FingerprintMode;
use super::fingerprinter::FingerprintLabel;
use super::key::FingerprintKey;
use std::io;
use std::path::{Path, PathBuf};

/// The key's file name under the state root.
pub const KEY_FILE: &str = "fingerprint.key";
/// What the text plan last showed fingerprints as.
const SHOWN_FILE: &str = "fingerprint-mode.json";

#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum KeyFileError {
    #[error("cannot read the fingerprint key {path}: {reason}")]
    #[diagnostic(code(the_loop::fingerprint::key_unreadable))]
    Read { path: PathBuf, reason: String },
    #[error("the fingerprint key {path} holds {size} bytes, not 32: the-loop did not write it, or it was cut short")]
    #[diagnostic(
        code(the_loop::fingerprint::key_damaged),
        help("move it away and the-loop creates a new key; every keyed fingerprint then changes, and plans saved under the old key are refused")
    )]
    WrongSize { path: PathBuf, size: usize },
    #[error("the fingerprint key {path} can be read by other users (mode {mode:o})")]
    #[diagnostic(
        code(the_loop::fingerprint::key_exposed),
        help("`chmod 600` it: whoever can read the key can recompute every keyed fingerprint")
    )]
    Exposed { path: PathBuf, mode: u32 },
    /// Another user owns the key: they chose it, and can read it.
    #[error("the fingerprint key {path} is not yours: it is {refusal}")]
    #[diagnostic(code(the_loop::fingerprint::key_not_yours), help("{}", refusal.help(path)))]
    NotYours {
        path: PathBuf,
        refusal: crate::fsutil::owner::NotYours,
    },
    #[error("cannot create the fingerprint key {path}: {reason}")]
    #[diagnostic(code(the_loop::fingerprint::key_uncreatable))]
    Create { path: PathBuf, reason: String },
}

pub fn key_path(state_root: &Path) -> PathBuf {
    state_root.join(KEY_FILE)
}

/// The key, created (32 random bytes, mode 0600) the first time it is
/// needed. When two processes create it at once, the one linked first is
/// the key, and the other reads it.
pub fn load_or_create(state_root: &Path) -> Result<FingerprintKey, KeyFileError> {
    let path = key_path(state_root);
    match read(&path) {
        Err(KeyFileError::Read { .. }) if !path_exists(&path) => {}
        found => return found,
    }
    let create = |reason: String| KeyFileError::Create {
        path: path.clone(),
        reason,
    };
    let key = FingerprintKey::generate().map_err(|e| create(e.to_string()))?;
    match crate::fsutil::create_new_atomic(&path, key.expose_bytes(), crate::fsutil::PRIVATE_FILE) {
        Ok(()) => Ok(key),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => read(&path),
        Err(e) => Err(create(crate::fsutil::describe(&e))),
    }
}

fn path_exists(path: &Path) -> bool {
    !matches!(std::fs::symlink_metadata(path), Err(e) if e.kind() == io::ErrorKind::NotFound)
}

fn read(path: &Path) -> Result<FingerprintKey, KeyFileError> {
    // A file over the cap is refused here, naming its size and the cap; one
    // that is not the caller's alone (`fsutil::owner`, `Rule::Private`:
    // another user's, or readable by others) through the descriptor read.
    let bytes =
        crate::bounded_read::read(path, &crate::bounded_read::FINGERPRINT_KEY).map_err(|e| {
            match crate::fsutil::owner::not_yours(&e) {
                Some(refusal) if !refusal.foreign() => KeyFileError::Exposed {
                    path: path.into(),
                    mode: refusal.mode,
                },
                Some(refusal) => KeyFileError::NotYours {
                    path: path.into(),
                    refusal: refusal.clone(),
                },
                None => KeyFileError::Read {
                    path: path.into(),
                    reason: crate::bounded_read::describe(&e),
                },
            }
        })?;
    let bytes: [u8; FingerprintKey::LEN] =
        bytes
            .as_slice()
            .try_into()
            .map_err(|_| KeyFileError::WrongSize {
                path: path.into(),
                size: bytes.len(),
            })?;
    Ok(FingerprintKey::from_bytes(bytes))
}

/// What the text plan last showed fingerprints as; `sha256` when it has
/// never said (the only mode earlier builds had), or the file is unreadable.
pub fn last_shown(state_root: &Path) -> FingerprintLabel {
    crate::bounded_read::read(
        &state_root.join(SHOWN_FILE),
        &crate::bounded_read::STATE_TEXT,
    )
    .ok()
    .and_then(|bytes| serde_json::from_slice(&bytes).ok())
    .unwrap_or_default()
}

/// Remembers what fingerprints are shown as now. In `sha256` mode the key
/// (which then only seals withheld values) is not part of it: a new key
/// changes no fingerprint a person sees.
pub fn remember_shown(state_root: &Path, label: &FingerprintLabel) -> io::Result<()> {
    let label = FingerprintLabel {
        mode: label.mode,
        key_id: label
            .key_id
            .filter(|_| label.mode == FingerprintMode::Keyed),
    };
    let text = serde_json::to_vec(&label).expect("a label serialises");
    crate::fsutil::write_atomic(
        &state_root.join(SHOWN_FILE),
        &text,
        crate::fsutil::PRIVATE_FILE,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn the_key_is_made_once_0600_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("state");
        let first = load_or_create(&root).unwrap();
        let path = key_path(&root);
        let meta = std::fs::metadata(&path).unwrap();
        assert_eq!(meta.permissions().mode() & 0o777, 0o600);
        assert_eq!(meta.len(), 32);
        let again = load_or_create(&root).unwrap();
        assert_eq!(first.id(), again.id());
    }

    #[test]
    fn a_damaged_or_exposed_key_is_refused_never_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let path = key_path(dir.path());
        std::fs::write(&path, b"short").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert!(matches!(
            load_or_create(dir.path()),
            Err(KeyFileError::WrongSize { size: 5, .. })
        ));
        std::fs::write(&path, [9u8; 32]).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let refused = load_or_create(dir.path()).unwrap_err();
        assert!(matches!(refused, KeyFileError::Exposed { mode: 0o644, .. }));
        assert!(!refused.to_string().contains("0909"), "{refused}");
        assert_eq!(std::fs::read(&path).unwrap(), [9u8; 32]);
        std::fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink(dir.path().join("elsewhere"), &path).unwrap();
        assert!(matches!(
            load_or_create(dir.path()),
            Err(KeyFileError::Read { .. })
        ));
    }

    #[test]
    fn what_was_shown_is_remembered_without_a_sealing_key() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(last_shown(dir.path()), FingerprintLabel::default());
        let id = FingerprintKey::from_bytes([5; 32]).id();
        let keyed = FingerprintLabel {
            mode: FingerprintMode::Keyed,
            key_id: Some(id),
        };
        remember_shown(dir.path(), &keyed).unwrap();
        assert_eq!(last_shown(dir.path()), keyed);
        let sealing = FingerprintLabel {
            mode: FingerprintMode::Sha256,
            key_id: Some(id),
        };
        remember_shown(dir.path(), &sealing).unwrap();
        assert_eq!(last_shown(dir.path()), FingerprintLabel::default());
    }
}
