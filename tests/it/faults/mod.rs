//! Faults (issue 6, point 5), each on a real tmux with the stand-in
//! harness. After every one: no conversation has been replaced by a fresh
//! one, and no registry file is truncated.

mod mid_apply;
mod panes_and_pids;
mod registry_files;
mod tmux_unavailable;

use crate::support::*;
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

const RETIRED: &str = "xoxb-RETIRED-f4ults-0b5e";
const ROTATED: &str = "xoxb-ROTATED-f4ults-4d2c";
const DELIVERED: &str = "deliv-f4ults-1a1a";
const REPLACED: &str = "deliv-REPLACED-f4ults-2b2b";
const CANARIES: &[&str] = &[RETIRED, ROTATED, DELIVERED, REPLACED];

/// A server frozen on the retired token, `n` sessions born on it, then the rotation.
fn rotated_world(n: usize) -> (World, Vec<LegacySession>) {
    let w = World::new();
    let sessions = w.rotated_fleet(n, RETIRED, ROTATED);
    (w, sessions)
}

/// The invariants every fault must keep.
struct Baseline {
    registry: BTreeMap<PathBuf, Vec<u8>>,
}

impl Baseline {
    fn take(w: &World) -> Baseline {
        Baseline {
            registry: w.registry_files(),
        }
    }

    /// No fresh conversation anywhere, every live pane on its recorded
    /// conversation, and every registry file exactly as it was (apply and
    /// restart never rewrite a record).
    fn holds(&self, w: &World, sessions: &[LegacySession]) {
        for s in sessions {
            let project = w.transcript(s).parent().unwrap().to_path_buf();
            let conversations: Vec<String> = std::fs::read_dir(&project)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            assert_eq!(
                conversations,
                [format!("{}.jsonl", s.session_id)],
                "{}: no fresh conversation",
                s.reference
            );
            assert!(
                w.transcript_text(s).contains("\"type\":\"start\""),
                "{}: the original conversation is intact",
                s.reference
            );
            if let Some(pane) = w.pane(&s.name).filter(|p| !p.dead) {
                let argv = cmdline(pane.pid);
                assert!(
                    argv.windows(2).any(|a| {
                        (a[0] == "--resume" || a[0] == "--session-id") && a[1] == s.session_id
                    }),
                    "{}: the live pane runs its recorded conversation: {argv:?}",
                    s.reference
                );
            }
        }
        let now = w.registry_files();
        assert_eq!(
            now.keys().collect::<Vec<_>>(),
            self.registry.keys().collect::<Vec<_>>()
        );
        for (path, before) in &self.registry {
            assert_eq!(&now[path], before, "{} unchanged", path.display());
        }
    }
}

/// Appends a stand-in test hook to a session's transcript.
fn mark(w: &World, s: &LegacySession, hook: &str) {
    use std::io::Write;
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(w.transcript(s))
        .unwrap();
    writeln!(file, "{{\"test\":\"{hook}\"}}").unwrap();
}

/// Makes a session's harness ignore SIGTERM, so ending it takes the whole
/// grace period: the hook is read when the harness starts, so the harness
/// is restarted (resuming, as an operator's own respawn would) with it set.
fn slow_to_end(w: &World, s: &LegacySession) {
    mark(w, s, "ignore-term");
    let pane = w.pane(&s.name).unwrap();
    kill(Pid::from_raw(pane.pid), Signal::SIGKILL).unwrap();
    wait_for(|| w.pane(&s.name).unwrap().dead, "the harness exited");
    w.tmux_ok(&[
        "respawn-pane",
        "-t",
        &pane.id,
        "claude",
        "--resume",
        &s.session_id,
    ]);
    wait_for(
        || w.transcript_text(s).contains("\"type\":\"resume\""),
        "the harness resumed",
    );
}

fn assert_clean(outs: &[&Output]) {
    for out in outs {
        assert_no_canary(&out.stdout, CANARIES, "stdout");
        assert_no_canary(&out.stderr, CANARIES, "stderr");
    }
}

/// Waits for a spawned the-loop, failing (and killing it) after a generous deadline.
fn finish(mut child: Child, what: &str) -> Output {
    let deadline = Instant::now() + Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("{what} did not finish");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn spawn(w: &World, args: &[&str], env: &[(&str, &str)]) -> Child {
    let mut cmd = w.the_loop_command(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn apply_lock_is_free(state: &Path) -> bool {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(state.join("apply.lock"))
        .unwrap();
    nix::fcntl::Flock::lock(file, nix::fcntl::FlockArg::LockExclusiveNonblock).is_ok()
}
