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
//!   when), which a refused caller reads to say what it is waiting on, but
//!   only once the kernel confirms that its pid holds the lock: a refusal
//!   names the process `/proc/locks` and `/proc/<pid>/fdinfo` say holds it,
//!   never a pid an earlier holder left behind.
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
                let line = read_text(&file)
                    .ok()
                    .map(|text| text.trim().to_owned())
                    .filter(|text| !text.is_empty());
                Err(LockError::Held {
                    holder: describe_holder(&file, line),
                })
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

/// Who holds the lock on `file` (open here, refused), in words: the
/// process the kernel says holds it, not whatever pid an earlier holder
/// left in the file. The file's line is used as it is when its pid is the
/// holder (it says what the holder is doing, and since when); without a
/// kernel table to ask, only when its pid is alive, and then said to be
/// unverified. `None` when nobody can be named.
fn describe_holder(file: &File, line: Option<String>) -> Option<String> {
    let recorded = line.as_deref().and_then(pid_named);
    let Some(holders) = holders(file) else {
        let alive = recorded.is_some_and(|pid| Path::new(&format!("/proc/{pid}")).exists());
        return line.filter(|_| alive).map(|l| format!("{l}; unverified"));
    };
    if recorded.is_some_and(|pid| holders.contains(&pid)) {
        return line;
    }
    let pid = *holders.first()?;
    let name = std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .map(|c| format!(" ({})", c.trim()))
        .unwrap_or_default();
    Some(match recorded {
        Some(old) => {
            format!("pid {pid}{name}; the lock file names pid {old}, which does not hold it")
        }
        None => format!("pid {pid}{name}"),
    })
}

/// The pid a holder's line starts with (`pid 4242 (apply, since …)`).
fn pid_named(line: &str) -> Option<i32> {
    let rest = line.strip_prefix("pid ")?;
    let digits = rest.split(|c: char| !c.is_ascii_digit()).next()?;
    digits.parse().ok()
}

/// The pids whose open file description of `file` holds its flock, from
/// the kernel: `/proc/locks` names the process that took the lock, which
/// is confirmed (or, when it has let go of the file since, e.g. after
/// handing it to a child, replaced) by the `lock:` lines of
/// `/proc/<pid>/fdinfo`. `None` when the kernel's table cannot be read.
fn holders(file: &File) -> Option<Vec<i32>> {
    use std::os::unix::fs::MetadataExt;
    let meta = file.metadata().ok()?;
    let key = (
        nix::sys::stat::major(meta.dev()),
        nix::sys::stat::minor(meta.dev()),
        meta.ino(),
    );
    let table = std::fs::read_to_string("/proc/locks").ok()?;
    let takers: Vec<i32> = table.lines().filter_map(|l| flock_on(l, key)).collect();
    let mut held: Vec<i32> = takers
        .iter()
        .copied()
        .filter(|pid| holds(*pid, key))
        .collect();
    if held.is_empty() && !takers.is_empty() {
        held = std::fs::read_dir("/proc")
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse().ok())
            .filter(|pid| holds(*pid, key))
            .collect();
    }
    Some(held)
}

/// The pid of a granted FLOCK on the file `(major, minor, inode)`, from one
/// line of `/proc/locks` (or an fdinfo `lock:` line), e.g.
/// `1: FLOCK  ADVISORY  WRITE 22668 fe:00:10030084 0 EOF`. A waiter
/// (`1: -> FLOCK …`) holds nothing.
fn flock_on(line: &str, key: (u64, u64, u64)) -> Option<i32> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let at = fields.iter().position(|f| *f == "FLOCK")?;
    if fields.get(at.checked_sub(1)?) == Some(&"->") {
        return None;
    }
    let pid = fields.get(at + 3)?.parse().ok()?;
    let mut file = fields.get(at + 4)?.split(':');
    let major = u64::from_str_radix(file.next()?, 16).ok()?;
    let minor = u64::from_str_radix(file.next()?, 16).ok()?;
    let inode = file.next()?.parse().ok()?;
    ((major, minor, inode) == key).then_some(pid)
}

/// Whether one of `pid`'s open files is the file `key` and holds its flock.
fn holds(pid: i32, key: (u64, u64, u64)) -> bool {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fdinfo")) else {
        return false;
    };
    fds.flatten().any(|fd| {
        std::fs::read_to_string(fd.path()).is_ok_and(|info| {
            info.lines()
                .filter_map(|l| l.strip_prefix("lock:"))
                .any(|l| flock_on(l, key).is_some())
        })
    })
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
        let me = std::process::id();
        let held_by = |path: &Path| match LockFile::try_existing(path) {
            Err(LockError::Held { holder }) => holder.unwrap_or_default(),
            other => panic!("expected held, got {other:?}"),
        };
        // No line left: the kernel names the holder, this process.
        assert!(held_by(&path).starts_with(&format!("pid {me} (")));
        // The holder's own line is given as it is.
        lock.replace_text(&format!("pid {me} (apply)")).unwrap();
        assert_eq!(held_by(&path), format!("pid {me} (apply)"));
        // A line naming another pid is not believed.
        lock.replace_text("pid 1 (apply)").unwrap();
        let named = held_by(&path);
        assert!(
            named.starts_with(&format!("pid {me} ("))
                && named.ends_with("names pid 1, which does not hold it"),
            "{named}"
        );
        drop(lock);
        assert!(!LockFile::is_held(&path));
        let again = LockFile::try_exclusive(&path).unwrap();
        assert_eq!(again.text().unwrap(), "pid 1 (apply)");
    }

    #[test]
    fn lock_lines_name_granted_flocks_of_the_file_only() {
        let key = (0xfe, 0, 10030084);
        let line = |l: &str| flock_on(l, key);
        assert_eq!(
            line("1: FLOCK  ADVISORY  WRITE 22668 fe:00:10030084 0 EOF"),
            Some(22668)
        );
        assert_eq!(
            line("1: -> FLOCK  ADVISORY  WRITE 999 fe:00:10030084 0 EOF"),
            None
        );
        assert_eq!(
            line("2: POSIX  ADVISORY  WRITE 31 fe:00:10030084 0 EOF"),
            None
        );
        assert_eq!(
            line("3: FLOCK  ADVISORY  WRITE 4242 fe:01:10030084 0 EOF"),
            None,
            "another device"
        );
        assert_eq!(line("3: FLOCK  ADVISORY  WRITE 4242 fe:00:777 0 EOF"), None);
        // As an fdinfo line gives it, after `lock:`.
        assert_eq!(
            line("\t1: FLOCK  ADVISORY  WRITE 7 fe:00:10030084 0 EOF"),
            Some(7)
        );
        assert_eq!(
            pid_named("pid 4242 (apply, since 2026-01-01T00:00:00Z)"),
            Some(4242)
        );
        assert_eq!(pid_named("holder unknown"), None);
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
