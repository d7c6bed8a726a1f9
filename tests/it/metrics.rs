//! `watch --metrics-listen`: the exposition follows a rotation and a roll on
//! a real tmux; a real Prometheus (Debian's package) scrapes it and answers
//! the drift through its own query API; the example scrape config and alert
//! rules pass promtool. When prometheus/promtool are missing these tests say
//! SKIP loudly and pass, unless THE_LOOP_REQUIRE_TOOLS is set (CI sets it).

mod prometheus;

use crate::support::*;
pub(super) use prometheus::{start_prometheus, wait_for_query};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub(super) const RETIRED: &str = "xoxb-RETIRED-canary-m3tr";
pub(super) const ROTATED: &str = "xoxb-ROTATED-canary-m3tr";
pub(super) const CANARIES: &[&str] = &[RETIRED, ROTATED];
const DELIVER: &str = "  deliver: [SLACK_BOT_TOKEN]\n";

/// A program this test needs from the system, or None after a loud SKIP.
/// With THE_LOOP_REQUIRE_TOOLS set, a missing tool fails the test instead.
pub(super) fn tool(name: &str, test: &str) -> Option<PathBuf> {
    let found = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|d| d.join(name))
        .find(|p| p.is_file());
    let how = format!("{test} needs it: apt-get install prometheus; .ci/run does");
    required_tool(found, name, &how)
}

/// A running process killed when the test ends, its output in a file.
pub(super) struct Background {
    pub(super) child: Child,
    log: PathBuf,
}

impl Background {
    pub(super) fn start(mut command: Command, log: PathBuf) -> Background {
        let out = std::fs::File::create(&log).unwrap();
        let child = command
            .stdin(Stdio::null())
            .stdout(Stdio::from(out.try_clone().unwrap()))
            .stderr(Stdio::from(out))
            .spawn()
            .expect("spawn");
        Background { child, log }
    }

    pub(super) fn text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    pub(super) fn wait_for_log(&self, needle: &str, within: Duration) -> String {
        let start = Instant::now();
        loop {
            let text = self.text();
            if let Some(line) = text.lines().find(|l| l.contains(needle)) {
                return line.to_owned();
            }
            assert!(
                start.elapsed() < within,
                "timed out waiting for {needle:?} in:\n{text}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `watch` with `args` and metrics on a free port; returns it and the address.
pub(super) fn start_watch(w: &World, args: &[&str]) -> (Background, SocketAddr) {
    let mut all = vec!["watch", "--metrics-listen", "127.0.0.1:0"];
    all.extend_from_slice(args);
    let mut command = w.the_loop_command(&all);
    command.env_remove("RUST_LOG");
    let watch = Background::start(command, w.root().join("watch.log"));
    let line = watch.wait_for_log("serving Prometheus metrics at", Duration::from_secs(10));
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.strip_suffix("/metrics"))
        .unwrap_or_else(|| panic!("no address in {line:?}"));
    (watch, addr.parse().unwrap())
}

/// One HTTP/1.1 GET; returns the status line, the headers and the body.
pub(super) fn get(addr: SocketAddr, path: &str) -> (String, String, String) {
    try_get(addr, path).unwrap_or_else(|err| panic!("GET http://{addr}{path}: {err}"))
}

/// A GET that may find nobody listening yet.
pub(super) fn try_get(addr: SocketAddr, path: &str) -> std::io::Result<(String, String, String)> {
    let mut stream = TcpStream::connect(addr)?;
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )?;
    let mut raw = String::new();
    stream.read_to_string(&mut raw)?;
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    let (status, headers) = head.split_once("\r\n").unwrap_or((head, ""));
    Ok((status.to_owned(), headers.to_owned(), body.to_owned()))
}

/// The value of one series in an exposition, `name{labels} value`.
pub(super) fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

pub(super) fn scrape(addr: SocketAddr) -> String {
    let (status, headers, body) = get(addr, "/metrics");
    assert!(status.contains(" 200 "), "{status}\n{headers}\n{body}");
    assert!(
        headers
            .to_ascii_lowercase()
            .contains("content-type: text/plain; version=0.0.4"),
        "the Prometheus text format: {headers}"
    );
    body
}

fn wait_for_sample(addr: SocketAddr, series: &str, want: f64, within: Duration) -> String {
    let start = Instant::now();
    loop {
        let text = scrape(addr);
        if sample(&text, series) == Some(want) {
            return text;
        }
        assert!(
            start.elapsed() < within,
            "{series} never became {want}; last scrape:\n{text}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Two sessions holding the delivered token, rolled clean by hand.
pub(super) fn clean_fleet(w: &World) -> Vec<LegacySession> {
    w.write_config(DELIVER);
    w.write_env(&format!("SLACK_BOT_TOKEN={RETIRED}\n"));
    w.start_server_holding(&[("SLACK_BOT_TOKEN", RETIRED)]);
    let sessions: Vec<_> = (1..=2)
        .map(|i| {
            w.legacy_session(
                &format!("github:octo/repo#{i}"),
                &format!("github-octo-repo-{i}"),
            )
        })
        .collect();
    let out = w.the_loop(&["sessions", "restart", "--all"]);
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    sessions
}

pub(super) fn rotate(w: &World) {
    let tmp = w.root().join(".env.swp");
    std::fs::write(&tmp, format!("SLACK_BOT_TOKEN={ROTATED}\n")).unwrap();
    std::fs::rename(&tmp, &w.env_path).unwrap();
}

#[test]
fn metrics_follow_a_rotation_and_count_the_roll() {
    let w = World::new();
    let sessions = clean_fleet(&w);
    let before: Vec<i32> = sessions
        .iter()
        .map(|s| w.pane(&s.name).unwrap().pid)
        .collect();
    let (watch, addr) = start_watch(
        &w,
        &["--apply", "--interval", "3600", "--debounce-ms", "200"],
    );
    watch.wait_for_log("no drift: 2 running session(s)", Duration::from_secs(10));

    let clean = scrape(addr);
    assert_eq!(
        sample(&clean, "the_loop_sessions{state=\"live\"}"),
        Some(2.0),
        "{clean}"
    );
    assert_eq!(
        sample(&clean, "the_loop_sessions{state=\"unknown\"}"),
        Some(0.0)
    );
    assert_eq!(sample(&clean, "the_loop_sessions_drifted"), Some(0.0));
    assert_eq!(
        sample(&clean, "the_loop_rolls_total{outcome=\"restarted\"}"),
        Some(0.0)
    );
    assert_eq!(sample(&clean, "the_loop_plan_ok"), Some(1.0));
    // The build serving them, named as `the-loop version` names it.
    let built = json(&ok(w.the_loop(&["version", "--json"])));
    let (version, commit) = (&built["version"], &built["commit"]);
    let build_info = format!("the_loop_build_info{{version={version},commit={commit}}}");
    assert_eq!(sample(&clean, &build_info), Some(1.0), "{clean}");

    rotate(&w);
    watch.wait_for_log(
        "watch roll finished: 2 respawned, 0 failed",
        Duration::from_secs(30),
    );
    let rolled = wait_for_sample(
        addr,
        "the_loop_rolls_total{outcome=\"restarted\"}",
        2.0,
        Duration::from_secs(10),
    );
    assert_eq!(
        sample(&rolled, "the_loop_rolls_total{outcome=\"mismatch\"}"),
        Some(0.0)
    );
    // The re-plan after the roll sets the gauge back.
    wait_for_sample(
        addr,
        "the_loop_sessions_drifted",
        0.0,
        Duration::from_secs(10),
    );
    for (s, old) in sessions.iter().zip(before) {
        let pid = w.pane(&s.name).unwrap().pid;
        assert_ne!(pid, old, "{} was respawned", s.reference);
        assert_eq!(
            environ(pid).get("SLACK_BOT_TOKEN").map(String::as_str),
            Some(ROTATED),
            "the new process holds the rotated value"
        );
    }

    let (status, _, _) = get(addr, "/");
    assert!(status.contains(" 404 "), "{status}");
    assert_no_canary(watch.text().as_bytes(), CANARIES, "the watch log");
    assert_no_canary(scrape(addr).as_bytes(), CANARIES, "the exposition");
}

#[test]
fn a_bad_address_or_a_port_in_use_is_refused_clearly() {
    let w = World::new();
    w.write_env("A=1\n");
    let out = w.the_loop(&["watch", "--metrics-listen", "localhost"]);
    // A usage error, which exits 1 (docs/contracts.md, "Exit codes").
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--metrics-listen"),
        "{}",
        stderr(&out)
    );
    assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));

    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let out = w.the_loop(&["watch", "--metrics-listen", &addr]);
    // miette wraps the message to the terminal's width; read it as one line.
    let err = stderr(&out)
        .split(|c: char| c.is_whitespace() || c == '│')
        .filter(|word| !word.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!(
            "cannot listen on {addr}: the address is already in use"
        )),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        !w.state.join("watch.pid").exists(),
        "a watch that could not start leaves no pidfile"
    );
}

#[test]
fn a_real_prometheus_scrapes_watch_and_answers_the_drift() {
    let test = "a_real_prometheus_scrapes_watch_and_answers_the_drift";
    let Some(prometheus_bin) = tool("prometheus", test) else {
        return;
    };
    let w = World::new();
    clean_fleet(&w);
    // Reports only, so the drift stays for Prometheus to see.
    let (watch, metrics_at) = start_watch(&w, &["--interval", "3600", "--debounce-ms", "200"]);
    watch.wait_for_log("no drift: 2 running session(s)", Duration::from_secs(10));

    let (prometheus, prometheus_at) =
        start_prometheus(&prometheus_bin, &w.root(), &[metrics_at], None);

    wait_for_query(&prometheus, prometheus_at, "up{job=\"the-loop\"}", "1");
    wait_for_query(&prometheus, prometheus_at, "the_loop_sessions_drifted", "0");
    wait_for_query(
        &prometheus,
        prometheus_at,
        "the_loop_sessions{state=\"live\"}",
        "2",
    );
    // Prometheus's own parser takes the build's series.
    let build = concat!(
        "the_loop_build_info{version=\"",
        env!("CARGO_PKG_VERSION"),
        "\"}"
    );
    wait_for_query(&prometheus, prometheus_at, build, "1");

    rotate(&w);
    watch.wait_for_log("env drift:", Duration::from_secs(10));
    wait_for_query(&prometheus, prometheus_at, "the_loop_sessions_drifted", "2");

    // Rolled by hand. watch's interval is long, so saving the env file again
    // (same content) is what makes it re-plan now.
    let out = w.the_loop(&["apply", "--auto-approve"]);
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    rotate(&w);
    wait_for_query(&prometheus, prometheus_at, "the_loop_sessions_drifted", "0");
    assert_no_canary(watch.text().as_bytes(), CANARIES, "the watch log");
    assert_no_canary(
        get(metrics_at, "/metrics").2.as_bytes(),
        CANARIES,
        "the exposition",
    );
}

fn promtool_ok(promtool: &Path, args: &[&str]) {
    let out = Command::new(promtool)
        .args(args)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/prometheus"))
        .output()
        .expect("run promtool");
    assert!(
        out.status.success(),
        "promtool {args:?}:\n{}{}",
        stdout(&out),
        stderr(&out)
    );
}

#[test]
fn the_example_scrape_config_and_alert_rules_pass_promtool() {
    let Some(promtool) = tool(
        "promtool",
        "the_example_scrape_config_and_alert_rules_pass_promtool",
    ) else {
        return;
    };
    promtool_ok(&promtool, &["check", "config", "prometheus.yml"]);
    promtool_ok(&promtool, &["check", "rules", "the-loop.rules.yml"]);
    // The alerts fire when they should and only then.
    promtool_ok(&promtool, &["test", "rules", "the-loop.rules.test.yml"]);
}

/// A drifted session held at its safe point (its turn runs) is counted by
/// why, and how long it has been held is exported for the alert rule.
#[test]
fn a_held_session_is_counted_with_how_long_it_is_held() {
    let w = World::new();
    let sessions = clean_fleet(&w);
    let busy = &sessions[0];
    w.tmux_ok(&[
        "send-keys",
        "-t",
        &format!("={}:", busy.name),
        "-l",
        "/busy",
    ]);
    w.tmux_ok(&["send-keys", "-t", &format!("={}:", busy.name), "Enter"]);
    rotate(&w);
    let (watch, addr) = start_watch(&w, &["--interval", "1", "--debounce-ms", "200"]);
    let text = wait_for_sample(
        addr,
        "the_loop_sessions_held{reason=\"busy\"}",
        1.0,
        Duration::from_secs(20),
    );
    assert_eq!(
        sample(&text, "the_loop_sessions_held{reason=\"attached\"}"),
        Some(0.0),
        "{text}"
    );
    std::thread::sleep(Duration::from_secs(2));
    let later = scrape(addr);
    let held_for = sample(
        &later,
        "the_loop_sessions_held_longest_seconds{reason=\"busy\"}",
    )
    .unwrap();
    assert!(held_for >= 1.0, "{later}");
    assert_no_canary(watch.text().as_bytes(), CANARIES, "the watch log");
}
