//! `the-loop web-terminal` with a stand-in ttyd that records its argv and
//! answers HTTP on the address it is given: started with the right argv,
//! listed by `status`, and stopped with no orphan on SIGTERM, SIGINT, or the
//! supervisor's own death.

use crate::support::*;
use std::io::{Read, Write};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// Behaves like ttyd where the-loop depends on it: `--version`, then serve
/// HTTP on `--interface`/`--port` until signalled. Records its argv and pid.
const TTYD_STAND_IN: &str = r#"#!/usr/bin/env bash
if [ "${1:-}" = "--version" ]; then echo "ttyd 1.7.7 (stand-in)"; exit 0; fi
here="$(dirname "$0")"
printf '%s\0' "$@" >"$here/ttyd-argv"
echo $$ >"$here/ttyd-pid"
host="" port=""
while [ $# -gt 0 ]; do
  case "$1" in
    --interface) host="$2"; shift 2 ;;
    --port) port="$2"; shift 2 ;;
    *) shift ;;
  esac
done
cd "$here" && exec python3 -m http.server --bind "$host" "$port"
"#;

fn answers_http(port: u16) -> bool {
    let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
    if stream.write_all(b"GET / HTTP/1.0\r\n\r\n").is_err() {
        return false;
    }
    let mut reply = [0u8; 8];
    stream.read_exact(&mut reply).is_ok() && reply.starts_with(b"HTTP/1.")
}

fn is_gone(pid: i32) -> bool {
    !std::path::Path::new(&format!("/proc/{pid}")).exists()
}

struct Running {
    supervisor: Child,
    ttyd_pid: i32,
    port: u16,
}

fn world(port: u16) -> World {
    let w = World::new();
    w.write_env("UNRELATED=1\n");
    w.write_config_with_routing(&format!(
        "  webTerminal:\n    enabled: true\n    host: 127.0.0.1\n    port: {port}\n"
    ));
    w.install_bin("ttyd", TTYD_STAND_IN);
    w
}

fn serve(w: &World, port: u16) -> Running {
    let supervisor = w
        .the_loop_command(&["web-terminal"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for(|| answers_http(port), "the web terminal answers");
    let ttyd_pid: i32 = std::fs::read_to_string(w.bin_dir.join("ttyd-pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    Running {
        supervisor,
        ttyd_pid,
        port,
    }
}

fn signal(pid: u32, name: &str) {
    let out = std::process::Command::new("kill")
        .args([&format!("-{name}"), &pid.to_string()])
        .output()
        .unwrap();
    assert!(out.status.success());
}

fn wait_exit(child: &mut Child) -> std::process::ExitStatus {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        assert!(Instant::now() < deadline, "the supervisor did not exit");
        std::thread::sleep(Duration::from_millis(25));
    }
}

fn parent_of(pid: i32) -> Option<i32> {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()?
        .lines()
        .find_map(|l| l.strip_prefix("PPid:"))
        .and_then(|v| v.trim().parse().ok())
}

fn web_terminal_service(w: &World) -> (Option<i32>, serde_json::Value) {
    let out = w.the_loop(&["status", "--json"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let service = report["services"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "web-terminal")
        .cloned()
        .expect("listed");
    (out.status.code(), service)
}

fn stops_cleanly_on(signal_name: &str) {
    let port = free_port();
    let w = world(port);
    let mut running = serve(&w, port);
    let supervisor_pid = running.supervisor.id();

    let argv: Vec<String> = std::fs::read(w.bin_dir.join("ttyd-argv"))
        .unwrap()
        .split(|b| *b == 0)
        .filter(|a| !a.is_empty())
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    assert_eq!(
        argv,
        [
            "--interface",
            "127.0.0.1",
            "--port",
            &port.to_string(),
            "--writable",
            "tmux",
            "new-session",
            "-A",
            "-s",
            "the-loop-hub"
        ]
    );
    assert_eq!(
        parent_of(running.ttyd_pid),
        Some(supervisor_pid as i32),
        "its child"
    );
    w.tmux_ok(&["has-session", "-t", "=the-loop-hub"]);
    assert_eq!(
        std::fs::read_to_string(w.state.join("web-terminal.pid"))
            .unwrap()
            .trim(),
        supervisor_pid.to_string()
    );
    let (code, service) = web_terminal_service(&w);
    assert_eq!(code, Some(0), "every enabled service runs: {service}");
    assert_eq!(service["enabled"], true);
    assert_eq!(service["running"], true);
    assert!(service["detail"]
        .as_str()
        .unwrap()
        .contains(&format!("127.0.0.1:{port}")));
    assert!(stdout(&w.the_loop(&["status"])).contains("web-terminal   running"));

    // One at a time.
    let second = w.the_loop(&["web-terminal"]);
    assert_eq!(second.status.code(), Some(1));
    assert!(
        stderr(&second).contains("already running"),
        "{}",
        stderr(&second)
    );

    signal(supervisor_pid, signal_name);
    let status = wait_exit(&mut running.supervisor);
    assert_eq!(status.code(), Some(0), "a requested stop is a success");
    wait_for(|| is_gone(running.ttyd_pid), "ttyd is gone, not orphaned");
    assert!(!answers_http(running.port));
    assert!(
        !w.state.join("web-terminal.pid").exists(),
        "pidfile removed"
    );
    let (code, service) = web_terminal_service(&w);
    assert_eq!(service["running"], false);
    assert_eq!(code, Some(1), "an enabled service is down");
    let mut said = String::new();
    running
        .supervisor
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut said)
        .unwrap();
    assert!(
        said.contains(&format!("http://127.0.0.1:{port}/")),
        "{said}"
    );
    assert!(said.contains("no authentication"), "{said}");
}

#[test]
fn sigterm_stops_ttyd_with_it() {
    stops_cleanly_on("TERM");
}

#[test]
fn sigint_stops_ttyd_with_it() {
    stops_cleanly_on("INT");
}

#[test]
fn ttyd_does_not_outlive_a_killed_supervisor() {
    let port = free_port();
    let w = world(port);
    let mut running = serve(&w, port);
    signal(running.supervisor.id(), "KILL");
    wait_exit(&mut running.supervisor);
    wait_for(
        || is_gone(running.ttyd_pid),
        "the kernel ends ttyd with its parent",
    );
    // A pidfile left by a killed supervisor does not count as running.
    let (_, service) = web_terminal_service(&w);
    assert_eq!(service["running"], false);
}

#[test]
fn refused_unless_enabled() {
    let w = World::new();
    w.write_env("UNRELATED=1\n");
    w.write_config("");
    w.install_bin("ttyd", TTYD_STAND_IN);
    let out = w.the_loop(&["web-terminal"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("routing.webTerminal.enabled"),
        "{}",
        stderr(&out)
    );
    assert!(!w.bin_dir.join("ttyd-argv").exists(), "ttyd never started");
    // And `status` does not list a disabled service as one to run.
    let status = w.the_loop(&["status"]);
    assert_eq!(status.status.code(), Some(0));
    assert!(!stdout(&status).contains("web-terminal"));
}
