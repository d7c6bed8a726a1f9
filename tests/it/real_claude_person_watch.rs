//! `watch --apply` over a real Claude Code session (the pinned CLI), mid
//! turn: held while the turn runs, and rolled within five seconds of the
//! person's Escape, which fires no hook (watch's own re-look sees the turn
//! over on screen). The helpers are `real_claude_person`'s.

use crate::real_claude::wait_long;
use crate::real_claude_person::{person, resumes, Mode};
use crate::real_claude_turns::NEW;
use crate::support::*;
use std::process::Stdio;
use std::time::{Duration, Instant};

/// A trigger of one of watch's re-looks at a held session (debug level).
const RELOOK: &str = "cycle: a held session, looked at again";

/// `the-loop watch --apply` in the background (as `watch_held` runs it),
/// its output in a file; killed on drop.
struct Watch {
    child: std::process::Child,
    log: std::path::PathBuf,
}

impl Watch {
    fn start(w: &World) -> Watch {
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
            .env("RUST_LOG", "info,the_loop::watch::run=debug")
            .stdin(Stdio::null())
            .stdout(Stdio::from(file.try_clone().unwrap()))
            .stderr(Stdio::from(file))
            .spawn()
            .expect("spawn watch");
        let watch = Watch { child, log };
        watch.wait_for("no drift: 1 running session(s)");
        watch
    }

    fn text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    fn wait_for(&self, needle: &str) {
        wait_long(|| self.text().contains(needle), needle);
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Escape mid-turn fires no hook; watch's own re-look sees the turn over on
/// screen and rolls the session within five seconds of the key.
#[test]
fn watch_rolls_an_escape_mid_turn_on_the_real_cli_within_five_seconds() {
    let _alone = alone();
    let Some(real) = person(Mode::Auto) else {
        return;
    };
    real.converse();
    let watch = Watch::start(&real.w);
    real.start_slow_turn();
    let old = real.pid();
    real.rotate();
    watch.wait_for("rolled the moment its turn ends");

    // Held across re-looks: watched for seconds, never ended.
    let looks = watch.text().matches(RELOOK).count();
    let until = Instant::now() + Duration::from_secs(4);
    while Instant::now() < until {
        assert_eq!(real.pid(), old, "ended mid-turn:\n{}", watch.text());
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(alive(old) && real.screen().contains("esc to interrupt"));
    assert!(real.w.events_named("session.harness_terminated").is_empty());
    assert!(
        watch.text().matches(RELOOK).count() > looks,
        "{}",
        watch.text()
    );

    // Taken before the key: the interval measured is, if anything, long.
    let escaped = Instant::now();
    real.keys(&["Escape"]);
    let mut pid = old;
    wait_long(
        || {
            pid = real.w.pane(&real.name).map_or(old, |p| p.pid);
            pid != old
        },
        "a new claude in the pane",
    );
    let took = escaped.elapsed();
    assert!(
        took < Duration::from_secs(5),
        "rolled {took:?} after Escape:\n{}",
        watch.text()
    );
    watch.wait_for("watch roll finished: 1 respawned, 0 failed");
    wait_for_harness(pid);
    assert_eq!(real.pid(), pid, "one respawn");
    assert_eq!(
        environ(pid).get("EXTRA_TOKEN").map(String::as_str),
        Some(NEW)
    );
    resumes(&real, pid);
}
