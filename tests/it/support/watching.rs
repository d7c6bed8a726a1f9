//! `the-loop watch --apply` running in the background of a test, its log in
//! a file the test reads (`tests/it/watch_held.rs`,
//! `tests/it/real_claude_person_watch.rs`): started, read and stopped one
//! way, so both watch a session as the same watch.

use super::World;
use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// A trigger of one of watch's re-looks at a held session, as watch logs it
/// at debug level: counted, it shows watch looking again while it holds.
pub const RELOOK: &str = "cycle: a held session, looked at again";

/// A running `the-loop watch --apply`, its stdout and stderr in a file;
/// killed on drop.
pub struct Watch {
    child: Child,
    log: PathBuf,
    /// How long [`Watch::wait_for`] waits: a roll of a real CLI takes
    /// longer than one of the stand-in.
    patience: Duration,
}

impl Watch {
    /// Starts watch on `w` (an hour's interval, so only events and its own
    /// re-looks wake it) and waits for its first look at the clean fleet
    /// of one session.
    pub fn start(w: &World, patience: Duration) -> Watch {
        let watch = Watch::spawn(w, patience);
        watch.wait_for("no drift: 1 running session(s)");
        watch
    }

    /// Starts watch as [`Watch::start`] does, and waits for its first
    /// cycle only, whatever it finds.
    pub fn spawn(w: &World, patience: Duration) -> Watch {
        let log = w.root().join("watch.log");
        let file = std::fs::File::create(&log).unwrap();
        let child = w
            .the_loop_command(&[
                "watch",
                "--apply",
                "--interval",
                "3600",
                "--debounce-ms",
                "300",
            ])
            // The cycles' triggers are debug lines: they show the re-looks.
            .env("RUST_LOG", "info,the_loop::watch::run=debug")
            .stdin(Stdio::null())
            .stdout(Stdio::from(file.try_clone().unwrap()))
            .stderr(Stdio::from(file))
            .spawn()
            .expect("spawn watch");
        let watch = Watch {
            child,
            log,
            patience,
        };
        watch.wait_for("cycle:");
        watch
    }

    pub fn text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    pub fn count(&self, needle: &str) -> usize {
        self.text().matches(needle).count()
    }

    /// Waits for `needle` in the log, as long as the watch's patience;
    /// on a timeout, shows the log. Generous: a roll on a loaded machine is
    /// slow, and the bounds that matter are asserted on their own clocks.
    pub fn wait_for(&self, needle: &str) {
        let deadline = Instant::now() + self.patience;
        while !self.text().contains(needle) {
            assert!(
                Instant::now() < deadline,
                "no {needle:?} in the watch log:\n{}",
                self.text()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
