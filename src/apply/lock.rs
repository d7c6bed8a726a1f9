//! One apply at a time: a [`LockFile`] on `<state root>/apply.lock`, whose
//! text names the holder (believed only when the kernel says that pid holds
//! the lock: see [`crate::lockfile`]). The kernel drops the lock when the
//! process dies, so a crash never leaves the fleet locked.

use crate::lockfile::{self, LockFile};
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum LockError {
    #[error("another apply or restart is running ({holder}); lock {path}")]
    #[diagnostic(
        code(the_loop::apply::locked),
        help("wait for it to finish; the lock is released when that process exits")
    )]
    Held { path: PathBuf, holder: String },
    #[error("cannot open the apply lock {path}: {why}")]
    Io { path: PathBuf, why: String },
}

#[derive(Debug)]
pub struct ApplyLock {
    _lock: LockFile,
}

impl ApplyLock {
    pub fn acquire(state_root: &Path, command: &str) -> Result<ApplyLock, LockError> {
        let path = state_root.join("apply.lock");
        let io = |e: std::io::Error| LockError::Io {
            path: path.clone(),
            why: crate::fsutil::describe(&e),
        };
        match LockFile::try_exclusive(&path) {
            Ok(lock) => {
                let holder = format!(
                    "pid {} ({command}, since {})",
                    std::process::id(),
                    crate::clock::now_utc()
                );
                lock.replace_text(&holder).map_err(io)?;
                Ok(ApplyLock { _lock: lock })
            }
            Err(lockfile::LockError::Held { holder }) => Err(LockError::Held {
                path,
                holder: holder.unwrap_or_else(|| "holder unknown".into()),
            }),
            Err(lockfile::LockError::Io(e)) => Err(io(e)),
        }
    }
}

/// How often a waiting apply tries the lock again.
const RETRY: std::time::Duration = std::time::Duration::from_millis(200);

impl ApplyLock {
    /// Like [`ApplyLock::acquire`], but waits up to `timeout` for a running
    /// apply to finish (Terraform's `-lock-timeout`). `waiting` is told who
    /// holds the lock when the wait starts and whenever the holder changes,
    /// so an operator sees what they are waiting on. A zero timeout refuses
    /// at once, as before.
    pub fn acquire_waiting(
        state_root: &Path,
        command: &str,
        timeout: std::time::Duration,
        waiting: &dyn Fn(&str, std::time::Duration),
    ) -> Result<ApplyLock, LockError> {
        let start = std::time::Instant::now();
        let mut last_holder: Option<String> = None;
        loop {
            match ApplyLock::acquire(state_root, command) {
                Err(LockError::Held { path, holder }) => {
                    let waited = start.elapsed();
                    let Some(left) = timeout.checked_sub(waited).filter(|l| !l.is_zero()) else {
                        return Err(LockError::Held { path, holder });
                    };
                    if last_holder.as_deref() != Some(holder.as_str()) {
                        waiting(&holder, left);
                        last_holder = Some(holder);
                    }
                    std::thread::sleep(RETRY.min(left));
                }
                other => return other,
            }
        }
    }
}
