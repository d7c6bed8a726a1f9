//! First come, first served, one at a time, per session, across processes.
//!
//! Every lifecycle verb on a session (a delivery, a pause, a close…) waits
//! its turn here, so two deliveries never interleave their pastes and a
//! record is never rewritten from a stale read. A plain `flock` gives
//! mutual exclusion but wakes its waiters in no particular order, so
//! callers take a numbered ticket and go when theirs is the smallest live
//! one.
//!
//! A ticket is a file held under a [`LockFile`] for its owner's whole
//! turn and wait. A ticket that someone else can lock belongs to a process
//! that died (the kernel released its lock), so it is removed and never
//! blocks the queue.

use crate::lockfile::{LockError, LockFile};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long a caller waits for its turn before giving up.
pub const DEFAULT_WAIT: Duration = Duration::from_secs(300);

#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum QueueError {
    #[error("session {session} stayed busy for {waited:?}; another the-loop command on it did not finish")]
    #[diagnostic(
        code(the_loop::queue::busy),
        help("retry once the other command has finished (`ps` shows the-loop processes)")
    )]
    Busy { session: String, waited: Duration },
    #[error("cannot use the session queue {path}: {}", crate::fsutil::IoKind(*.kind))]
    #[diagnostic(code(the_loop::queue::io))]
    Io {
        path: PathBuf,
        kind: std::io::ErrorKind,
    },
}

/// Holding this is the session's turn; dropping it passes the turn on.
#[derive(Debug)]
pub struct Turn {
    path: PathBuf,
    _lock: LockFile,
}

impl Drop for Turn {
    fn drop(&mut self) {
        // Removed while still locked, so no waiter can mistake it for a
        // dead caller's ticket and then find it gone.
        let _ = std::fs::remove_file(&self.path);
    }
}

pub fn queue_dir(state_root: &Path, session: &str) -> PathBuf {
    state_root.join("run").join("queue").join(session)
}

/// Takes a ticket for `session` and waits until it is the oldest one.
pub fn wait_turn(state_root: &Path, session: &str, wait: Duration) -> Result<Turn, QueueError> {
    let dir = queue_dir(state_root, session);
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |e: std::io::Error| QueueError::Io {
            path,
            kind: e.kind(),
        }
    };
    crate::fsutil::create_private_dir(&dir).map_err(io(&dir))?;
    let turn = take_ticket(&dir).map_err(io(&dir))?;
    let mine = ticket_number(&turn.path).expect("our own ticket name");
    let deadline = crate::clock::deadline(wait);
    loop {
        if oldest_live_ticket(&dir).map_err(io(&dir))? >= Some(mine) {
            return Ok(turn);
        }
        if Instant::now() >= deadline {
            return Err(QueueError::Busy {
                session: session.to_owned(),
                waited: wait,
            });
        }
        std::thread::sleep(Duration::from_millis(15));
    }
}

/// Numbers come from a counter file read and bumped under its own lock; the
/// ticket is locked under a temporary name and only then renamed into the
/// queue, so nobody ever sees an unlocked live ticket.
fn take_ticket(dir: &Path) -> std::io::Result<Turn> {
    let counter = LockFile::exclusive(&dir.join("counter"))?;
    let number: u64 = counter.text()?.trim().parse().unwrap_or(0);
    counter.replace_text(&(number + 1).to_string())?;

    let pending = dir.join(format!(".pending-{}", std::process::id()));
    let lock = match LockFile::try_exclusive(&pending) {
        Ok(lock) => lock,
        Err(LockError::Io(e)) => return Err(e),
        Err(LockError::Held { .. }) => return Err(std::io::ErrorKind::WouldBlock.into()),
    };
    lock.truncate()?;
    let path = dir.join(format!("{number:020}.ticket"));
    std::fs::rename(&pending, &path)?;
    Ok(Turn { path, _lock: lock })
}

fn ticket_number(path: &Path) -> Option<u64> {
    path.file_name()?
        .to_str()?
        .strip_suffix(".ticket")?
        .parse()
        .ok()
}

/// The smallest ticket whose owner is alive; dead owners' tickets are removed.
fn oldest_live_ticket(dir: &Path) -> std::io::Result<Option<u64>> {
    let mut tickets: Vec<(u64, PathBuf)> = std::fs::read_dir(dir)?
        .flatten()
        .map(|e| e.path())
        .filter_map(|p| Some((ticket_number(&p)?, p)))
        .collect();
    tickets.sort();
    for (number, path) in tickets {
        match LockFile::try_existing(&path) {
            // Lockable: its owner is gone. Removed while we hold the lock.
            Ok(_stale) => {
                let _ = std::fs::remove_file(&path);
            }
            Err(LockError::Held { .. }) => return Ok(Some(number)),
            // Finished and removed meanwhile (or not a ticket we can open).
            Err(LockError::Io(_)) => continue,
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turns_are_taken_in_ticket_order_and_dead_tickets_do_not_block() {
        let root = tempfile::tempdir().unwrap();
        drop(wait_turn(root.path(), "loop-x", Duration::from_secs(5)).unwrap());
        let first = wait_turn(root.path(), "loop-x", Duration::from_secs(5)).unwrap();
        // Ticket 0 again, as a process that died holding it would leave it:
        // a file nobody holds a lock on.
        let dir = queue_dir(root.path(), "loop-x");
        std::fs::write(dir.join(format!("{:020}.ticket", 0u64)), b"").unwrap();

        let (tx, rx) = std::sync::mpsc::channel();
        let path = root.path().to_path_buf();
        let waiter = std::thread::spawn(move || {
            let turn = wait_turn(&path, "loop-x", Duration::from_secs(5)).unwrap();
            tx.send(()).unwrap();
            drop(turn);
        });
        assert!(
            rx.recv_timeout(Duration::from_millis(300)).is_err(),
            "the second caller waits while the first holds its turn"
        );
        drop(first);
        rx.recv_timeout(Duration::from_secs(5))
            .expect("the turn passes on");
        waiter.join().unwrap();
    }

    #[test]
    fn a_caller_gives_up_after_its_wait() {
        let root = tempfile::tempdir().unwrap();
        let _held = wait_turn(root.path(), "loop-y", Duration::from_secs(5)).unwrap();
        let err = wait_turn(root.path(), "loop-y", Duration::from_millis(100)).expect_err("busy");
        assert!(matches!(err, QueueError::Busy { .. }));
        // The abandoned ticket was removed, so it does not block later callers.
        drop(_held);
        wait_turn(root.path(), "loop-y", Duration::from_secs(1)).expect("free again");
    }
}
