//! `the-loop watch` on a real tmux with the stand-in harness: rotations
//! noticed through inotify, rolls under --apply, the once-per-env-file rule,
//! single instance, status, and a clean stop on SIGTERM/SIGINT.

mod once_per_change;
mod rolls;
mod service;

use crate::support::*;
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use std::path::PathBuf;
use std::process::{Child, ExitStatus, Stdio};
use std::time::{Duration, Instant};

const RETIRED: &str = "xoxb-RETIRED-canary-7e11";
const ROTATED: &str = "xoxb-ROTATED-canary-91fa";
const CANARIES: &[&str] = &[RETIRED, ROTATED];

/// The env-file section that makes sessions hold the token (so every
/// rotation is drift), rather than withholding it.
const DELIVER: &str = "  deliver: [SLACK_BOT_TOKEN]\n";

/// A running `the-loop watch`, its stderr captured in a file.
struct Watch {
    child: Option<Child>,
    log: PathBuf,
}

fn start_watch(w: &World, args: &[&str]) -> Watch {
    start_watch_with(w, args, &[])
}

fn start_watch_with(w: &World, args: &[&str], env: &[(&str, &str)]) -> Watch {
    let logs = w.root().join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    let n = std::fs::read_dir(&logs).unwrap().count();
    let log = logs.join(format!("watch-{n}.log"));
    let mut all = vec!["watch"];
    all.extend_from_slice(args);
    let mut command = w.the_loop_command(&all);
    for (k, v) in env {
        command.env(k, v);
    }
    let child = command
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::from(std::fs::File::create(&log).unwrap()))
        .stderr(Stdio::from(
            std::fs::OpenOptions::new().append(true).open(&log).unwrap(),
        ))
        .spawn()
        .expect("spawn watch");
    let watch = Watch {
        child: Some(child),
        log,
    };
    watch.wait_for_log("watch started", Duration::from_secs(10));
    watch
}

impl Watch {
    fn pid(&self) -> i32 {
        self.child.as_ref().unwrap().id() as i32
    }

    fn text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    fn count(&self, needle: &str) -> usize {
        self.text().matches(needle).count()
    }

    /// Waits until the log holds `needle` `times` times.
    fn wait_for_count(&self, needle: &str, times: usize, within: Duration) -> Duration {
        let start = Instant::now();
        while self.count(needle) < times {
            assert!(
                start.elapsed() < within,
                "timed out after {within:?} waiting for {times}× {needle:?} in the watch log:\n{}",
                self.text()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        start.elapsed()
    }

    fn wait_for_log(&self, needle: &str, within: Duration) -> Duration {
        self.wait_for_count(needle, 1, within)
    }

    /// Sends `signal` and waits for the exit.
    fn stop_with(&mut self, signal: Signal) -> ExitStatus {
        let mut child = self.child.take().expect("running");
        kill(Pid::from_raw(child.id() as i32), signal).unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "watch did not stop");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn stop(&mut self) -> ExitStatus {
        self.stop_with(Signal::SIGTERM)
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn events(w: &World) -> Vec<serde_json::Value> {
    std::fs::read_to_string(w.state.join("events.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("an event is JSON"))
        .collect()
}

fn count_events(w: &World, name: &str) -> usize {
    events(w).iter().filter(|e| e["event"] == name).count()
}

fn watch_rolls(w: &World) -> usize {
    events(w)
        .iter()
        .filter(|e| e["event"] == "apply.started" && e["command"] == "watch")
        .count()
}

fn plan_is_clean(w: &World) -> bool {
    w.the_loop(&["plan", "--detailed-exitcode"]).status.code() == Some(0)
}

/// Writes the env file the way editors save: a new file renamed over the old.
fn save_env_like_an_editor(w: &World, text: &str) {
    let tmp = w.root().join(".env.swp");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, &w.env_path).unwrap();
}

/// A server frozen on the retired token, `n` sessions born on it.
fn legacy_fleet(w: &World, n: usize) -> Vec<LegacySession> {
    w.write_env(&format!("SLACK_BOT_TOKEN={RETIRED}\n"));
    w.start_server_holding(&[("SLACK_BOT_TOKEN", RETIRED)]);
    (1..=n)
        .map(|i| {
            w.legacy_session(
                &format!("github:octo/repo#{i}"),
                &format!("github-octo-repo-{i}"),
            )
        })
        .collect()
}

/// Sessions that hold the delivered token, all clean: rolled once by hand.
fn clean_delivering_fleet(n: usize) -> (World, Vec<LegacySession>) {
    let w = World::new();
    w.write_config(DELIVER);
    let sessions = legacy_fleet(&w, n);
    let out = w.the_loop(&["sessions", "restart", "--all"]);
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    assert!(plan_is_clean(&w), "the fleet starts clean");
    (w, sessions)
}

fn sweep(w: &World, watches: &[&Watch], canaries: &[&str]) {
    for watch in watches {
        assert_no_canary(watch.text().as_bytes(), canaries, "the watch log");
    }
    for (path, bytes) in w.state_files() {
        assert_no_canary(&bytes, canaries, &path.display().to_string());
    }
}
