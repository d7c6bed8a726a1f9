//! One apply at a time: an exclusive `flock` on `<state root>/apply.lock`.
//! The kernel drops the lock when the process dies, so a crash never
//! leaves the fleet locked.

use nix::fcntl::{Flock, FlockArg};
use std::fs::File;
use std::io::{Read, Seek, Write};
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

pub struct ApplyLock {
    _lock: Flock<File>,
}

impl ApplyLock {
    pub fn acquire(state_root: &Path, command: &str) -> Result<ApplyLock, LockError> {
        let path = state_root.join("apply.lock");
        let io = |e: std::io::Error| LockError::Io {
            path: path.clone(),
            why: crate::fsutil::describe(&e),
        };
        let file =
            crate::fsutil::open_read_write(&path, crate::fsutil::PRIVATE_FILE).map_err(io)?;
        match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
            Ok(mut lock) => {
                let holder = format!(
                    "pid {} ({command}, since {})",
                    std::process::id(),
                    crate::clock::now_utc()
                );
                lock.set_len(0).map_err(io)?;
                lock.rewind().map_err(io)?;
                lock.write_all(holder.as_bytes()).map_err(io)?;
                Ok(ApplyLock { _lock: lock })
            }
            Err((mut file, _)) => {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                let holder = if holder.trim().is_empty() {
                    "holder unknown".into()
                } else {
                    holder.trim().to_owned()
                };
                Err(LockError::Held { path, holder })
            }
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
