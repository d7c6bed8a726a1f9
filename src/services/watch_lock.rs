//! One `watch` per state root: a [`LockFile`] on `<root>/watch.lock`, and
//! `<root>/watch.pid` naming the process that holds it.
//!
//! Running means both: the pidfile's pid is alive and that process holds
//! the lock. A pidfile alone can outlive a crash (and its pid can be
//! reused), while the kernel drops the lock with the process, so `status`
//! never reports a dead watch as running.

use crate::lockfile::{LockError, LockFile};
use nix::sys::signal::kill;
use nix::unistd::Pid;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

pub const LOCK_FILE: &str = "watch.lock";
pub const PID_FILE: &str = "watch.pid";

#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum WatchLockError {
    #[error("watch is already running for this state root ({holder}); lock {path}")]
    #[diagnostic(
        code(the_loop::watch::already_running),
        help("one watch per state root: stop the running one first (for example `systemctl --user stop the-loop-watch`)")
    )]
    AlreadyRunning { path: PathBuf, holder: String },
    #[error("cannot create the watch lock or pidfile under {root}: {}", crate::fsutil::IoKind(*.kind))]
    #[diagnostic(
        code(the_loop::watch::state_root),
        help("the state root must be a writable directory (state.root in the config)")
    )]
    Io {
        root: PathBuf,
        kind: std::io::ErrorKind,
    },
}

/// Held for the life of a `watch`: dropping it removes the pidfile, and
/// the lock goes with the file descriptor.
#[derive(Debug)]
pub struct WatchGuard {
    _lock: LockFile,
    pidfile: PathBuf,
}

fn read_pid(path: &Path) -> Option<i32> {
    crate::bounded_read::read_string(path, &crate::bounded_read::STATE_TEXT)
        .ok()?
        .trim()
        .parse()
        .ok()
        .filter(|pid| *pid > 0)
}

fn alive(pid: i32) -> bool {
    // EPERM means it exists but is not ours to signal: alive all the same.
    matches!(
        kill(Pid::from_raw(pid), None),
        Ok(()) | Err(nix::errno::Errno::EPERM)
    )
}

impl WatchGuard {
    pub fn acquire(state_root: &Path) -> Result<WatchGuard, WatchLockError> {
        let io = |e: std::io::Error| WatchLockError::Io {
            root: state_root.to_path_buf(),
            kind: e.kind(),
        };
        let path = state_root.join(LOCK_FILE);
        let pidfile = state_root.join(PID_FILE);
        let lock = match LockFile::try_exclusive(&path) {
            Ok(lock) => lock,
            Err(LockError::Io(e)) => return Err(io(e)),
            // The pidfile, not the lock's text, names a watch: `status` reads it.
            Err(LockError::Held { .. }) => {
                let holder = match read_pid(&pidfile) {
                    Some(pid) => format!("pid {pid}"),
                    None => "holder unknown".into(),
                };
                return Err(WatchLockError::AlreadyRunning { path, holder });
            }
        };
        crate::fsutil::write_atomic(
            &pidfile,
            format!("{}\n", std::process::id()).as_bytes(),
            crate::fsutil::PRIVATE_FILE,
        )
        .map_err(io)?;
        Ok(WatchGuard {
            _lock: lock,
            pidfile,
        })
    }
}

impl Drop for WatchGuard {
    fn drop(&mut self) {
        // Only our own pidfile: never one a later watch wrote.
        if read_pid(&self.pidfile) == Some(std::process::id() as i32) {
            let _ = std::fs::remove_file(&self.pidfile);
        }
    }
}

/// What `status` reports about `watch`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    pub running: bool,
    pub pid: Option<i32>,
    pub detail: String,
}

pub fn probe(state_root: &Path) -> Probe {
    let lock = state_root.join(LOCK_FILE);
    let Some(pid) = read_pid(&state_root.join(PID_FILE)) else {
        return Probe {
            running: false,
            pid: None,
            detail: "no pidfile".into(),
        };
    };
    if !alive(pid) {
        return Probe {
            running: false,
            pid: Some(pid),
            detail: format!("pid {pid} is not running (stale pidfile)"),
        };
    }
    let holds = match std::fs::metadata(&lock) {
        Ok(meta) => holds_lock(pid, &lock, meta.ino()),
        Err(_) => false,
    };
    if holds {
        Probe {
            running: true,
            pid: Some(pid),
            detail: format!("pid {pid}"),
        }
    } else {
        Probe {
            running: false,
            pid: Some(pid),
            detail: format!("pid {pid} does not hold {}", lock.display()),
        }
    }
}

/// Whether `pid` holds the flock on the file with inode `inode`. Reads
/// `/proc/locks`, which answers without taking the lock (so a probe can
/// never make a starting watch fail); elsewhere, a shared try-lock.
fn holds_lock(pid: i32, lock: &Path, inode: u64) -> bool {
    match std::fs::read_to_string("/proc/locks") {
        Ok(table) => proc_locks_holders(&table, inode).contains(&pid),
        Err(_) => LockFile::is_held(lock),
    }
}

/// Pids holding a FLOCK on `inode`, from the text of `/proc/locks`, e.g.
/// `1: FLOCK  ADVISORY  WRITE 22668 fe:00:10030084 0 EOF`.
/// Waiters (`1: -> FLOCK ...`) hold nothing and are skipped.
pub fn proc_locks_holders(table: &str, inode: u64) -> Vec<i32> {
    table
        .lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            if fields.get(1) != Some(&"FLOCK") {
                return None;
            }
            let pid: i32 = fields.get(4)?.parse().ok()?;
            let file_inode: u64 = fields.get(5)?.rsplit(':').next()?.parse().ok()?;
            (file_inode == inode).then_some(pid)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_locks_names_holders_of_the_inode_only() {
        let table = "\
1: FLOCK  ADVISORY  WRITE 22668 fe:00:10030084 0 EOF
1: -> FLOCK  ADVISORY  WRITE 999 fe:00:10030084 0 EOF
2: POSIX  ADVISORY  WRITE 31 fe:00:10030084 0 EOF
3: FLOCK  ADVISORY  WRITE 4242 fe:00:777 0 EOF
";
        assert_eq!(proc_locks_holders(table, 10030084), vec![22668]);
        assert_eq!(proc_locks_holders(table, 777), vec![4242]);
        assert!(proc_locks_holders(table, 1).is_empty());
    }

    #[test]
    fn a_second_guard_is_refused_and_the_first_is_seen_running() {
        let root = tempfile::tempdir().unwrap();
        let guard = WatchGuard::acquire(root.path()).unwrap();
        let probe_now = probe(root.path());
        assert!(probe_now.running, "{probe_now:?}");
        assert_eq!(probe_now.pid, Some(std::process::id() as i32));
        // flock is per open file description: a second open in the same
        // process conflicts exactly as another process would.
        let err = WatchGuard::acquire(root.path()).expect_err("refused");
        assert!(err.to_string().contains("already running"), "{err}");
        drop(guard);
        assert!(!root.path().join(PID_FILE).exists(), "pidfile removed");
        assert!(!probe(root.path()).running);
    }

    #[test]
    fn a_live_pid_without_the_lock_is_not_running() {
        let root = tempfile::tempdir().unwrap();
        std::fs::write(
            root.path().join(PID_FILE),
            format!("{}\n", std::process::id()),
        )
        .unwrap();
        std::fs::write(root.path().join(LOCK_FILE), "").unwrap();
        let probe_now = probe(root.path());
        assert!(!probe_now.running, "{probe_now:?}");
        assert!(probe_now.detail.contains("does not hold"), "{probe_now:?}");
    }
}
