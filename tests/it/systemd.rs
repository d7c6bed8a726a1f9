//! `watch` under systemd: the example unit (`examples/the-loop-watch.service`)
//! passes `systemd-analyze verify` and is no more exposed than docs/watch.md
//! says; and watch speaks the notify protocol to a socket bound here as the
//! service manager binds it: `READY=1` after its first plan, `WATCHDOG=1` at
//! half of `WATCHDOG_USEC` (through a roll too), `STATUS=` lines of counts
//! only, `STOPPING=1` on SIGTERM, and no child of watch inherits the
//! manager's variables. When systemd-analyze is missing the unit's tests say
//! SKIP loudly and pass, unless THE_LOOP_REQUIRE_TOOLS is set (CI sets it).

use crate::metrics::{clean_fleet, rotate, sample, scrape, Background, CANARIES};
use crate::support::*;
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use std::os::unix::net::UnixDatagram;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const UNIT: &str = "examples/the-loop-watch.service";

fn program(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

fn systemd_analyze(test: &str) -> Option<PathBuf> {
    let how = format!("{test} needs it: apt-get install systemd; .ci/run does");
    required_tool(program("systemd-analyze"), "systemd-analyze", &how)
}

/// `systemd-analyze ARGS… --user UNIT` on a copy of the unit, as the user
/// manager reads it: `%h` is a home whose `.cargo/bin/the-loop` is the
/// binary under test, and `man` finds its manual pages.
fn analyze(analyze: &Path, args: &[&str]) -> std::process::Output {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let bin = home.join(".cargo/bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(
        assert_cmd::cargo::cargo_bin("the-loop"),
        bin.join("the-loop"),
    )
    .unwrap();
    let runtime = dir.path().join("run");
    std::fs::create_dir(&runtime).unwrap();
    let unit = dir.path().join("the-loop-watch.service");
    std::fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join(UNIT), &unit).unwrap();
    let mut command = Command::new(analyze);
    command
        .args(args)
        .arg("--user")
        .env("HOME", &home)
        .env("XDG_RUNTIME_DIR", &runtime)
        .current_dir(dir.path());
    if program("man").is_some() {
        let man = dir.path().join("man");
        let pages = man.join("man1");
        let out = Command::new(assert_cmd::cargo::cargo_bin("the-loop"))
            .args(["man", "--out-dir"])
            .arg(&pages)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        command.env("MANPATH", &man);
    } else {
        // `Documentation=man:…` cannot be looked up without man.
        command.arg("--man=no");
    }
    command.arg(&unit).output().expect("run systemd-analyze")
}

#[test]
fn the_unit_passes_systemd_analyze_verify_without_a_warning() {
    let Some(tool) = systemd_analyze("the_unit_passes_systemd_analyze_verify_without_a_warning")
    else {
        return;
    };
    let out = analyze(&tool, &["verify"]);
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    assert_eq!(stderr(&out), "", "no warning");
}

/// The exposure docs/watch.md records for the unit ("rates it N.N").
fn recorded_exposure() -> f64 {
    let docs = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/watch.md"))
        .unwrap();
    let (_, rest) = docs
        .split_once("`systemd-analyze security --offline=true --user` rates it ")
        .expect("docs/watch.md records the unit's exposure");
    rest.split_whitespace().next().unwrap().parse().unwrap()
}

#[test]
fn the_unit_is_no_more_exposed_than_the_docs_say() {
    let Some(tool) = systemd_analyze("the_unit_is_no_more_exposed_than_the_docs_say") else {
        return;
    };
    let out = analyze(&tool, &["security", "--offline=true", "--no-pager"]);
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    let text = stdout(&out);
    let score: f64 = text
        .split_once("Overall exposure level for the-loop-watch.service: ")
        .and_then(|(_, rest)| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no exposure level in:\n{text}"));
    let recorded = recorded_exposure();
    assert!(
        score <= recorded,
        "exposure {score} is above the {recorded} docs/watch.md records:\n{text}"
    );
    // What keeps the panes' environments and the tmux socket readable.
    for kept in ["✗ PrivateTmp=", "✗ ProtectProc=", "✓ NotifyAccess="] {
        assert!(text.contains(kept), "{kept}:\n{text}");
    }
}

/// The service manager's end of `NOTIFY_SOCKET`: each datagram and when it came.
struct Manager {
    socket: UnixDatagram,
    got: Vec<(Instant, String)>,
}

impl Manager {
    fn bind(path: &Path) -> Manager {
        let socket = UnixDatagram::bind(path).unwrap();
        socket
            .set_read_timeout(Some(Duration::from_millis(50)))
            .unwrap();
        Manager {
            socket,
            got: Vec::new(),
        }
    }

    /// Receives for `how_long`.
    fn listen(&mut self, how_long: Duration) {
        let until = Instant::now() + how_long;
        let mut buf = [0u8; 4096];
        while Instant::now() < until {
            if let Ok(len) = self.socket.recv(&mut buf) {
                let text = String::from_utf8_lossy(&buf[..len]).into_owned();
                self.got.push((Instant::now(), text));
            }
        }
    }

    /// Receives until a datagram holds `needle`; returns it and when it came.
    fn wait_for(&mut self, needle: &str, within: Duration) -> (Instant, String) {
        let start = Instant::now();
        loop {
            if let Some(found) = self.got.iter().find(|(_, m)| m.contains(needle)) {
                return found.clone();
            }
            assert!(
                start.elapsed() < within,
                "no {needle:?} within {within:?}; got {:?}",
                self.texts()
            );
            self.listen(Duration::from_millis(50));
        }
    }

    fn texts(&self) -> Vec<&str> {
        self.got.iter().map(|(_, m)| m.as_str()).collect()
    }

    /// When each `WATCHDOG=1` came, from `since` on.
    fn pings_since(&self, since: Instant) -> Vec<Instant> {
        self.got
            .iter()
            .filter(|(at, m)| *at >= since && m.contains("WATCHDOG=1"))
            .map(|(at, _)| *at)
            .collect()
    }
}

/// The longest wait between `from`, the pings, and `to`.
fn longest_gap(from: Instant, pings: &[Instant], to: Instant) -> Duration {
    let mut marks = vec![from];
    marks.extend_from_slice(pings);
    marks.push(to);
    marks
        .windows(2)
        .map(|w| w[1].saturating_duration_since(w[0]))
        .max()
        .unwrap_or_default()
}

#[test]
fn watch_tells_the_service_manager_it_is_ready_alive_and_stopping() {
    let w = World::new();
    clean_fleet(&w);
    // A tmux ahead of the real one that notes which of the manager's
    // variables its caller handed on.
    let seen = w.root().join("tmux-env.log");
    w.install_bin_settled(
        "tmux",
        &format!(
            "#!/bin/sh\nprintf '%s|%s|%s|%s\\n' \"$(cat /proc/$PPID/comm)\" \"${{NOTIFY_SOCKET-}}\" \"${{WATCHDOG_USEC-}}\" \"${{WATCHDOG_PID-}}\" >>'{}'\nexec '{}' \"$@\"\n",
            seen.display(),
            real_tmux().display()
        ),
        "-V",
    );
    let _ = std::fs::remove_file(&seen);
    let socket = w.root().join("notify.sock");
    let mut manager = Manager::bind(&socket);
    let mut command = w.the_loop_command(&[
        "watch",
        "--apply",
        "--interval",
        "3600",
        "--debounce-ms",
        "200",
        "--metrics-listen",
        "127.0.0.1:0",
    ]);
    command
        .env_remove("RUST_LOG")
        .env("NOTIFY_SOCKET", &socket)
        .env("WATCHDOG_USEC", "2000000");
    let mut watch = Background::start(command, w.root().join("watch.log"));

    // Ready once it holds its lock, serves its metrics and has planned: the
    // status that comes with READY=1 carries the first plan's counts.
    let (ready_at, ready) = manager.wait_for("READY=1", Duration::from_secs(20));
    assert_eq!(
        ready,
        "READY=1\nSTATUS=2 sessions, 0 drifted\n",
        "{:?}",
        manager.texts()
    );
    assert!(w.state.join("watch.pid").is_file(), "the lock is taken");
    let line = watch.wait_for_log("serving Prometheus metrics at", Duration::ZERO);
    let addr: std::net::SocketAddr = line
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.strip_suffix("/metrics"))
        .unwrap()
        .parse()
        .unwrap();
    let text = scrape(addr);
    assert_eq!(sample(&text, "the_loop_plan_ok"), Some(1.0), "{text}");
    assert_eq!(
        sample(&text, "the_loop_plan_duration_seconds_count"),
        Some(1.0),
        "{text}"
    );

    // Fed at half of WATCHDOG_USEC while it waits.
    manager.listen(Duration::from_millis(3500));
    let idle = manager.pings_since(ready_at);
    assert!(idle.len() >= 3, "{:?}", manager.texts());
    let gap = longest_gap(ready_at, &idle, Instant::now());
    assert!(gap < Duration::from_secs(2), "{gap:?} without WATCHDOG=1");

    // And through a roll.
    let rotated_at = Instant::now();
    rotate(&w);
    manager.wait_for(
        "STATUS=2 sessions, 0 drifted; last roll: 2 respawned, 0 failed",
        Duration::from_secs(30),
    );
    manager.listen(Duration::from_millis(1500));
    let rolling = manager.pings_since(rotated_at);
    let gap = longest_gap(rotated_at, &rolling, Instant::now());
    assert!(
        gap < Duration::from_secs(2),
        "{gap:?} without WATCHDOG=1 around a roll"
    );
    assert!(
        manager
            .texts()
            .contains(&"STATUS=2 sessions, 2 drifted; rolling 2\n"),
        "{:?}",
        manager.texts()
    );
    let text = scrape(addr);
    assert_eq!(
        sample(&text, "the_loop_roll_duration_seconds_count"),
        Some(1.0),
        "{text}"
    );

    kill(Pid::from_raw(watch.child.id() as i32), Signal::SIGTERM).unwrap();
    manager.wait_for("STOPPING=1", Duration::from_secs(20));
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = watch.child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "watch did not stop");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(0), "{}", watch.text());

    // Counts only: no value, no name from the env file, no session.
    let all = manager.texts().concat();
    assert_no_canary(all.as_bytes(), CANARIES, "the notify messages");
    for word in ["SLACK_BOT_TOKEN", "octo", "loop-"] {
        assert!(!all.contains(word), "{word} in {all}");
    }
    // Taken out of watch's environment: none of its tmux calls had them.
    let calls = std::fs::read_to_string(&seen).unwrap_or_default();
    let by_watch: Vec<&str> = calls
        .lines()
        .filter(|l| l.starts_with("the-loop|"))
        .collect();
    assert!(
        !by_watch.is_empty(),
        "watch's tmux calls were seen:\n{calls}"
    );
    for line in by_watch {
        assert_eq!(line, "the-loop|||", "{calls}");
    }
}
