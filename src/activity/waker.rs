//! One inotify watch on the activity directory, for whoever waits on a
//! harness's hooks: a roll holding sessions until their turns end, or the
//! readiness check waiting for a resumed harness to report.

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

/// Wakes a waiting roll when a hook writes to the activity directory: one
/// inotify watch for the fleet. Without one (the directory cannot be
/// watched), [`Waker::wait`] just sleeps its timeout, so a drain still
/// notices a turn's end within a second.
pub struct Waker {
    rx: mpsc::Receiver<()>,
    /// Kept for its watch; `None` when the directory cannot be watched.
    _watcher: Option<notify::RecommendedWatcher>,
}

impl Waker {
    pub fn new(dir: &Path) -> Waker {
        use notify::Watcher;
        let (tx, rx) = mpsc::channel();
        // The hook creates it on a harness's first event; watching needs it now.
        let _ = crate::fsutil::create_private_dir(dir);
        let watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
            if event.is_ok_and(|e| changes(&e.kind)) {
                let _ = tx.send(());
            }
        })
        .and_then(|mut w| {
            w.watch(dir, notify::RecursiveMode::NonRecursive)
                .map(|()| w)
        });
        if let Err(err) = &watcher {
            tracing::debug!(
                "cannot watch {} ({err}); checking every second",
                dir.display()
            );
        }
        Waker {
            rx,
            _watcher: watcher.ok(),
        }
    }

    /// Returns when a hook wrote a line, or after `timeout`.
    pub fn wait(&self, timeout: Duration) {
        if self._watcher.is_none() {
            std::thread::sleep(timeout);
            return;
        }
        if self.rx.recv_timeout(timeout).is_ok() {
            // A turn's end writes a burst (Stop, a notification): one re-read covers it.
            while self.rx.try_recv().is_ok() {}
        }
    }
}

/// A write to an activity file (reads, ours included, are not).
fn changes(kind: &notify::EventKind) -> bool {
    use notify::event::{AccessKind, AccessMode};
    match kind {
        notify::EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        notify::EventKind::Access(_) => false,
        _ => true,
    }
}
