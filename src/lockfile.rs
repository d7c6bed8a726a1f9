//! The one lock type: an exclusive `flock` on a file under the state root.
//!
//! Every lock the-loop takes (one apply at a time, one watch per state
//! root, the harness config, a session's queue) is a [`LockFile`], so they
//! all share the same guarantees:
//! - the kernel drops the lock when its process dies, so a crash never
//!   leaves anything locked and no stale lock needs breaking by hand;
//! - a lock file is created private (0600) and never through a symlink,
//!   like every other state file ([`crate::fsutil`]);
//! - a holder can leave a line of text in the file (who holds it, since
//!   when), which a refused caller reads to say what it is waiting on.
//!
//! `flock` (not `fcntl` record locks) because it belongs to the open file
//! description, not the process: two opens in one process exclude each
//! other, and `/proc/locks` lists it as `FLOCK` with the holder's pid,
//! which `status` reads without taking the lock.

use crate::fsutil;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{self, Seek, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// A lock file's text from where it stands: a line or a counter, read
/// within [`crate::bounded_read::STATE_TEXT`].
fn read_text(file: &File) -> io::Result<String> {
    let bytes = crate::bounded_read::read_file(file, &crate::bounded_read::STATE_TEXT)?;
    String::from_utf8(bytes).map_err(|_| io::ErrorKind::InvalidData.into())
}

/// An exclusive lock, held until this is dropped (the file closes).
#[derive(Debug)]
pub struct LockFile {
    file: File,
}

/// Why [`LockFile::try_exclusive`] did not take the lock.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Someone else holds it; `holder` is the text they left, if any.
    #[error("held by {}", holder.as_deref().unwrap_or("holder unknown"))]
    Held { holder: Option<String> },
    /// The lock file could not be opened or locked.
    #[error(transparent)]
    Io(#[from] io::Error),
}

impl LockFile {
    /// Takes the lock on `path` (created 0600 if absent), waiting as long as
    /// another holder keeps it. For short critical sections only.
    pub fn exclusive(path: &Path) -> io::Result<LockFile> {
        let file = fsutil::open_read_write(path, fsutil::PRIVATE_FILE)?;
        file.lock()?;
        Ok(LockFile { file })
    }

    /// Takes the lock on `path` (created 0600 if absent) now, or says who
    /// holds it.
    pub fn try_exclusive(path: &Path) -> Result<LockFile, LockError> {
        Self::try_file(fsutil::open_read_write(path, fsutil::PRIVATE_FILE)?)
    }

    /// Like [`LockFile::try_exclusive`] for a file that must already exist:
    /// one that is gone is `NotFound`, never created again. A link is
    /// refused, not followed.
    pub fn try_existing(path: &Path) -> Result<LockFile, LockError> {
        let file = OpenOptions::new()
            .read(true)
            .custom_flags(nix::libc::O_NOFOLLOW | nix::libc::O_NONBLOCK)
            .open(path)?;
        Self::try_file(file)
    }

    fn try_file(file: File) -> Result<LockFile, LockError> {
        match file.try_lock() {
            Ok(()) => Ok(LockFile { file }),
            Err(TryLockError::WouldBlock) => {
                // Best-effort: the holder may be rewriting it right now.
                let holder = read_text(&file)
                    .ok()
                    .map(|text| text.trim().to_owned())
                    .filter(|text| !text.is_empty());
                Err(LockError::Held { holder })
            }
            Err(TryLockError::Error(e)) => Err(LockError::Io(e)),
        }
    }

    /// Whether someone holds the lock on `path`, found by trying a shared
    /// lock that is dropped at once. A missing or unreadable file is not
    /// held. Prefer `/proc/locks` where it is readable: a probe that holds
    /// the lock even briefly can make a starting holder fail.
    pub fn is_held(path: &Path) -> bool {
        let Ok(file) = OpenOptions::new()
            .read(true)
            .custom_flags(nix::libc::O_NOFOLLOW | nix::libc::O_NONBLOCK)
            .open(path)
        else {
            return false;
        };
        matches!(file.try_lock_shared(), Err(TryLockError::WouldBlock))
    }

    /// The file's whole text (a queue counter, a holder line).
    pub fn text(&self) -> io::Result<String> {
        let mut file = &self.file;
        file.rewind()?;
        read_text(file)
    }

    /// Replaces the file's text: who holds the lock, for a refused caller
    /// to read, or the next value of a counter kept under the lock.
    pub fn replace_text(&self, text: &str) -> io::Result<()> {
        let mut file = &self.file;
        file.set_len(0)?;
        file.rewind()?;
        file.write_all(text.as_bytes())
    }

    /// Empties the file without writing anything.
    pub fn truncate(&self) -> io::Result<()> {
        self.file.set_len(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_second_open_is_refused_and_reads_the_holder() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state").join("apply.lock");
        let lock = LockFile::try_exclusive(&path).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, fsutil::PRIVATE_FILE);
        assert!(LockFile::is_held(&path));
        match LockFile::try_exclusive(&path) {
            Err(LockError::Held { holder: None }) => {}
            other => panic!("expected held with no holder, got {other:?}"),
        }
        lock.replace_text("pid 1 (apply)").unwrap();
        match LockFile::try_existing(&path) {
            Err(LockError::Held { holder }) => {
                assert_eq!(holder.as_deref(), Some("pid 1 (apply)"));
            }
            other => panic!("expected held, got {other:?}"),
        }
        drop(lock);
        assert!(!LockFile::is_held(&path));
        let again = LockFile::try_exclusive(&path).unwrap();
        assert_eq!(again.text().unwrap(), "pid 1 (apply)");
    }

    #[test]
    fn try_existing_never_creates_and_refuses_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let gone = dir.path().join("gone.ticket");
        match LockFile::try_existing(&gone) {
            Err(LockError::Io(e)) => assert_eq!(e.kind(), io::ErrorKind::NotFound),
            other => panic!("expected NotFound, got {other:?}"),
        }
        assert!(!gone.exists());
        assert!(!LockFile::is_held(&gone));

        let victim = dir.path().join("victim");
        std::fs::write(&victim, b"keep").unwrap();
        let link = dir.path().join("link.lock");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        assert!(matches!(
            LockFile::try_existing(&link),
            Err(LockError::Io(_))
        ));
        assert!(matches!(
            LockFile::try_exclusive(&link),
            Err(LockError::Io(_))
        ));
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
    }

    #[test]
    fn exclusive_waits_for_the_holder() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("counter");
        let held = LockFile::exclusive(&path).unwrap();
        held.replace_text("41").unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let waiter_path = path.clone();
        let waiter = std::thread::spawn(move || {
            let lock = LockFile::exclusive(&waiter_path).unwrap();
            tx.send(lock.text().unwrap()).unwrap();
        });
        // The waiter cannot get in while we hold it.
        assert!(rx
            .recv_timeout(std::time::Duration::from_millis(200))
            .is_err());
        held.replace_text("42").unwrap();
        drop(held);
        assert_eq!(
            rx.recv_timeout(std::time::Duration::from_secs(5)).unwrap(),
            "42"
        );
        waiter.join().unwrap();
    }
}
