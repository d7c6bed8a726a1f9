//! `the-loop watch` on a real tmux with the stand-in harness: rotations
//! noticed through inotify, rolls under --apply, the once-per-env-file rule,
//! single instance, status, and a clean stop on SIGTERM/SIGINT.

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

#[test]
fn a_rotation_is_noticed_within_the_debounce_and_rolled_with_apply() {
    let (w, sessions) = clean_delivering_fleet(2);
    let before: Vec<Pane> = sessions.iter().map(|s| w.pane(&s.name).unwrap()).collect();
    // A long interval: only inotify can notice the rotation in time.
    let mut watch = start_watch(
        &w,
        &["--apply", "--interval", "3600", "--debounce-ms", "300"],
    );
    watch.wait_for_log("no drift: 2 running session(s)", Duration::from_secs(10));

    save_env_like_an_editor(&w, &format!("SLACK_BOT_TOKEN={ROTATED}\n"));
    let noticed = watch.wait_for_log("env drift:", Duration::from_secs(10));
    assert!(
        noticed <= Duration::from_millis(300 + 1000),
        "drift logged {noticed:?} after the rotation; the debounce is 300 ms"
    );
    let log = watch.text();
    let line = log.lines().find(|l| l.contains("env drift:")).unwrap();
    assert!(
        line.contains("2 sessions hold a stale environment")
            && line.contains(&format!(
                "SLACK_BOT_TOKEN {} → {} (stale) ×2",
                fp(RETIRED),
                fp(ROTATED)
            ))
            && line.contains("github:octo/repo#1, github:octo/repo#2")
            && line.contains("the-loop apply"),
        "one line with names, fingerprints, count and the fix: {line}"
    );

    watch.wait_for_log(
        "watch roll finished: 2 respawned, 0 failed",
        Duration::from_secs(20),
    );
    // Said at start, and again once the roll cleaned the fleet.
    watch.wait_for_count("no drift: 2 running session(s)", 2, Duration::from_secs(10));
    for (s, old) in sessions.iter().zip(&before) {
        let now = w.pane(&s.name).unwrap();
        assert_ne!(now.pid, old.pid, "{} respawned", s.reference);
        assert_eq!((now.id.as_str(), now.window), (old.id.as_str(), old.window));
        assert_eq!(
            environ(now.pid).get("SLACK_BOT_TOKEN").map(String::as_str),
            Some(ROTATED),
            "the new process holds the rotated value"
        );
        assert!(
            cmdline(now.pid)
                .windows(2)
                .any(|a| a[0] == "--resume" && a[1] == s.session_id),
            "the conversation was resumed"
        );
    }
    assert!(plan_is_clean(&w), "plan is clean after watch's roll");

    let drift: Vec<_> = events(&w)
        .into_iter()
        .filter(|e| e["event"] == "env.drift")
        .collect();
    assert_eq!(drift.len(), 1, "{drift:?}");
    assert_eq!(drift[0]["count"], 2);
    assert_eq!(drift[0]["env_fingerprints"]["SLACK_BOT_TOKEN"], fp(ROTATED));
    assert_eq!(watch_rolls(&w), 1);
    let finished: Vec<_> = events(&w)
        .into_iter()
        .filter(|e| e["event"] == "apply.finished" && e["command"] == "watch")
        .collect();
    assert_eq!(finished.len(), 1);
    assert!(finished[0]["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s["outcome"] == "restarted"));
    let verified = events(&w)
        .iter()
        .filter(|e| e["event"] == "session.respawned" && e["verification"] == "verified")
        .count();
    assert_eq!(verified, 4, "2 by the hand roll, 2 by watch");

    let status = watch.stop();
    assert_eq!(status.code(), Some(0), "{}", watch.text());
    assert!(watch.text().contains("watch stopped (signal)"));
    assert!(!w.state.join("watch.pid").exists(), "pidfile removed");
    sweep(&w, &[&watch], CANARIES);
}

#[test]
fn rapid_successive_writes_cause_one_roll() {
    let (w, sessions) = clean_delivering_fleet(1);
    let mut watch = start_watch(
        &w,
        &["--apply", "--interval", "3600", "--debounce-ms", "1000"],
    );
    watch.wait_for_log("no drift", Duration::from_secs(10));
    let values: Vec<String> = (1..=5)
        .map(|i| format!("xoxb-burst-{i}-canary-{i}{i}"))
        .collect();
    for (i, value) in values.iter().enumerate() {
        if i % 2 == 0 {
            save_env_like_an_editor(&w, &format!("SLACK_BOT_TOKEN={value}\n"));
        } else {
            w.write_env(&format!("SLACK_BOT_TOKEN={value}\n"));
        }
        std::thread::sleep(Duration::from_millis(30));
    }
    watch.wait_for_log("watch roll finished", Duration::from_secs(20));
    watch.wait_for_count("no drift", 2, Duration::from_secs(10));
    // Long enough for a second burst, had there been one, to be due.
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(watch_rolls(&w), 1, "one roll:\n{}", watch.text());
    assert_eq!(count_events(&w, "env.drift"), 1);
    let pane = w.pane(&sessions[0].name).unwrap();
    assert_eq!(
        environ(pane.pid).get("SLACK_BOT_TOKEN"),
        values.last(),
        "rolled onto the last write"
    );
    assert_eq!(watch.stop().code(), Some(0));
    let mut canaries: Vec<&str> = values.iter().map(String::as_str).collect();
    canaries.extend_from_slice(CANARIES);
    sweep(&w, &[&watch], &canaries);
}

#[test]
fn a_restart_of_watch_with_a_clean_fleet_rolls_nothing() {
    // The reporter's case: sessions born on the retired token, the token
    // rotated (and withheld from sessions) before watch starts.
    let w = World::new();
    let sessions = legacy_fleet(&w, 2);
    w.write_env(&format!("SLACK_BOT_TOKEN={ROTATED}\n"));
    let mut first = start_watch(&w, &["--apply", "--interval", "1"]);
    first.wait_for_log(
        "watch roll finished: 2 respawned, 0 failed",
        Duration::from_secs(20),
    );
    first.wait_for_log("no drift: 2 running session(s)", Duration::from_secs(10));
    assert_eq!(first.stop().code(), Some(0));
    assert!(plan_is_clean(&w));
    let pids: Vec<i32> = sessions
        .iter()
        .map(|s| w.pane(&s.name).unwrap().pid)
        .collect();
    for pid in &pids {
        assert!(!environ(*pid).contains_key("SLACK_BOT_TOKEN"), "withheld");
    }

    let mut second = start_watch(&w, &["--apply", "--interval", "1"]);
    second.wait_for_log("no drift: 2 running session(s)", Duration::from_secs(10));
    // A few intervals of re-planning.
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(second.stop().code(), Some(0));
    let after: Vec<i32> = sessions
        .iter()
        .map(|s| w.pane(&s.name).unwrap().pid)
        .collect();
    assert_eq!(pids, after, "nothing was rolled by the restarted watch");
    assert_eq!(watch_rolls(&w), 1);
    assert_eq!(second.count("watch roll"), 0, "{}", second.text());
    sweep(&w, &[&first, &second], CANARIES);
}

#[test]
fn a_session_still_drifted_after_its_roll_is_not_rolled_again_even_after_a_restart() {
    let w = World::new();
    let sessions = legacy_fleet(&w, 1);
    w.write_env(&format!("SLACK_BOT_TOKEN={ROTATED}\n"));
    // The stand-in re-execs itself holding the name again: the roll mismatches.
    std::fs::write(
        w.transcript(&sessions[0]),
        "{\"tamper\":\"SLACK_BOT_TOKEN\"}\n",
    )
    .unwrap();
    let mut first = start_watch(&w, &["--apply", "--interval", "1"]);
    first.wait_for_log(
        "watch roll finished: 1 respawned, 1 failed",
        Duration::from_secs(20),
    );
    first.wait_for_log(
        "is still drifted after watch rolled it",
        Duration::from_secs(10),
    );
    let pid = w.pane(&sessions[0].name).unwrap().pid;
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(first.count("is still drifted after watch rolled it"), 1);
    assert_eq!(first.stop().code(), Some(0));

    let mut second = start_watch(&w, &["--apply", "--interval", "1"]);
    second.wait_for_log("env drift:", Duration::from_secs(10));
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(second.stop().code(), Some(0));
    assert_eq!(watch_rolls(&w), 1, "{}", second.text());
    assert_eq!(
        w.pane(&sessions[0].name).unwrap().pid,
        pid,
        "not rolled again"
    );
    assert_eq!(
        count_events(&w, "watch.held"),
        1,
        "the hold was reported once, and not again after the restart"
    );
    let memory = std::fs::read_to_string(w.state.join("watch-state.json")).unwrap();
    assert!(memory.contains("\"outcome\": \"mismatch\""), "{memory}");
    sweep(&w, &[&first, &second], CANARIES);
}

#[test]
fn an_unresumable_session_is_reported_once_per_change_not_every_interval() {
    let w = World::new();
    let sessions = legacy_fleet(&w, 2);
    w.write_env(&format!("SLACK_BOT_TOKEN={ROTATED}\n"));
    let lost = &sessions[0];
    let transcript = std::fs::read(w.transcript(lost)).unwrap();
    std::fs::remove_file(w.transcript(lost)).unwrap();
    let lost_pid = w.pane(&lost.name).unwrap().pid;

    let mut watch = start_watch(&w, &["--apply", "--interval", "1", "--debounce-ms", "200"]);
    watch.wait_for_log("watch roll finished", Duration::from_secs(20));
    // Several intervals pass with nothing new to say.
    std::thread::sleep(Duration::from_millis(3500));
    assert_eq!(count_events(&w, "session.left_alone"), 1);
    assert_eq!(
        watch.count(&format!(
            "{}: left alone (unresumable: no transcript",
            lost.reference
        )),
        1,
        "{}",
        watch.text()
    );
    assert_eq!(
        count_events(&w, "env.drift"),
        2,
        "the first sighting, then the one left after the roll"
    );
    assert_eq!(w.pane(&lost.name).unwrap().pid, lost_pid, "untouched");
    assert_eq!(
        environ(lost_pid).get("SLACK_BOT_TOKEN").map(String::as_str),
        Some(RETIRED)
    );

    // A change (another rotation) is reported, once.
    let third = "xoxb-THIRD-canary-0c0c";
    save_env_like_an_editor(&w, &format!("SLACK_BOT_TOKEN={third}\n"));
    watch.wait_for_count("watch roll finished", 2, Duration::from_secs(20));
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(
        count_events(&w, "session.left_alone"),
        2,
        "{}",
        watch.text()
    );
    assert_eq!(w.pane(&lost.name).unwrap().pid, lost_pid, "still untouched");

    // Its transcript comes back: something changed, so it is retried (after
    // the backoff) and rolled.
    std::fs::write(w.transcript(lost), transcript).unwrap();
    watch.wait_for_count("watch roll finished", 3, Duration::from_secs(20));
    watch.wait_for_log(
        &format!("watch roll: {}: restarted (verified)", lost.reference),
        Duration::from_secs(5),
    );
    assert_ne!(w.pane(&lost.name).unwrap().pid, lost_pid);
    assert_eq!(count_events(&w, "session.left_alone"), 2);
    assert_eq!(watch.stop_with(Signal::SIGINT).code(), Some(0));
    assert!(plan_is_clean(&w));
    let mut canaries = CANARIES.to_vec();
    canaries.push(third);
    sweep(&w, &[&watch], &canaries);
}

#[test]
fn sigterm_lets_a_roll_in_flight_finish_and_reports_it() {
    let w = World::new();
    let sessions = legacy_fleet(&w, 1);
    w.write_env(&format!("SLACK_BOT_TOKEN={ROTATED}\n"));
    // The harness ignores SIGTERM, so the roll waits out the 3 s grace.
    std::fs::write(w.transcript(&sessions[0]), "{\"test\":\"ignore-term\"}\n").unwrap();
    let pid = w.pane(&sessions[0].name).unwrap().pid;
    let mut watch = start_watch(&w, &["--apply", "--interval", "3600"]);
    wait_for(
        || count_events(&w, "apply.started") == 1,
        "watch started its roll",
    );
    let status = watch.stop();
    assert_eq!(status.code(), Some(0), "{}", watch.text());
    let log = watch.text();
    assert!(
        log.contains(&format!(
            "watch roll: {}: restarted (verified)",
            sessions[0].reference
        )),
        "{log}"
    );
    assert!(log.contains("watch stopped (signal)"), "{log}");
    let finished: Vec<_> = events(&w)
        .into_iter()
        .filter(|e| e["event"] == "apply.finished")
        .collect();
    assert_eq!(finished.len(), 1);
    assert_eq!(finished[0]["sessions"][0]["outcome"], "restarted");
    assert_ne!(
        w.pane(&sessions[0].name).unwrap().pid,
        pid,
        "the roll finished"
    );
    assert_eq!(count_events(&w, "watch.stopped"), 1);
    sweep(&w, &[&watch], CANARIES);
}

#[test]
fn status_reflects_the_watch_service_and_only_one_runs() {
    let w = World::new();
    w.write_config("  watch:\n    enabled: true\n");
    w.write_env(&format!("SLACK_BOT_TOKEN={ROTATED}\n"));
    let service = |w: &World| -> (Option<i32>, serde_json::Value) {
        let out = w.the_loop(&["status", "--json"]);
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let watch = report["services"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == "watch")
            .cloned()
            .expect("watch is listed");
        (out.status.code(), watch)
    };

    let (code, svc) = service(&w);
    assert_eq!(code, Some(1), "enabled and not running: {svc}");
    assert_eq!(
        (svc["enabled"].clone(), svc["running"].clone()),
        (true.into(), false.into())
    );
    let text = w.the_loop(&["status"]);
    assert!(
        stdout(&text)
            .lines()
            .any(|l| l.starts_with("watch") && l.ends_with("not running")),
        "{}",
        stdout(&text)
    );

    let mut watch = start_watch(&w, &["--interval", "3600"]);
    let (code, svc) = service(&w);
    assert_eq!(code, Some(0), "{svc}");
    assert_eq!(svc["running"], true);
    assert_eq!(svc["detail"], format!("pid {}", watch.pid()));
    let text = w.the_loop(&["status"]);
    assert!(
        stdout(&text)
            .lines()
            .any(|l| l.starts_with("watch") && l.ends_with(" running")),
        "{}",
        stdout(&text)
    );

    let second = w.the_loop(&["watch", "--interval", "3600"]);
    assert_eq!(second.status.code(), Some(1));
    assert!(
        stderr(&second).contains(&format!(
            "watch is already running for this state root (pid {})",
            watch.pid()
        )),
        "{}",
        stderr(&second)
    );

    assert_eq!(watch.stop_with(Signal::SIGINT).code(), Some(0));
    let (code, svc) = service(&w);
    assert_eq!((code, svc["running"].clone()), (Some(1), false.into()));

    // A pidfile naming a live process that does not hold the lock (a crash,
    // then pid reuse) is not a running watch.
    std::fs::write(
        w.state.join("watch.pid"),
        format!("{}\n", std::process::id()),
    )
    .unwrap();
    let (code, svc) = service(&w);
    assert_eq!(
        (code, svc["running"].clone()),
        (Some(1), false.into()),
        "{svc}"
    );

    // Not enabled: listed, and status does not fail for it.
    w.write_config("");
    let (code, svc) = service(&w);
    assert_eq!((code, svc["enabled"].clone()), (Some(0), false.into()));
    sweep(&w, &[&watch], CANARIES);
}

#[test]
fn watch_refuses_without_an_env_file() {
    let w = World::new();
    w.write_raw_config(&format!("state:\n  root: {}\n", w.state.display()));
    let out = w.the_loop(&["watch"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("no env.file is configured"),
        "{}",
        stderr(&out)
    );
    assert!(!w.state.join("watch.pid").exists());
}

#[test]
fn unverified_sessions_are_reported_once_and_never_rolled() {
    let w = World::new();
    let sessions = legacy_fleet(&w, 1);
    w.write_env(&format!("SLACK_BOT_TOKEN={ROTATED}\n"));
    let pid = w.pane(&sessions[0].name).unwrap().pid;
    // A /proc view with nothing in it: no environment can be read.
    let empty = w.root().join("empty-proc");
    std::fs::create_dir_all(&empty).unwrap();
    let mut watch = start_watch_with(
        &w,
        &["--apply", "--interval", "1"],
        &[("THE_LOOP_PROC_ROOT", empty.to_str().unwrap())],
    );
    watch.wait_for_log(
        "cannot observe 1 session, so watch will not roll them",
        Duration::from_secs(10),
    );
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(watch.stop().code(), Some(0));
    assert_eq!(watch.count("cannot observe"), 1, "{}", watch.text());
    assert_eq!(count_events(&w, "env.unverified"), 1);
    assert_eq!(
        count_events(&w, "env.drift"),
        0,
        "no drift it did not observe"
    );
    assert_eq!(watch_rolls(&w), 0);
    assert_eq!(w.pane(&sessions[0].name).unwrap().pid, pid, "never rolled");
    sweep(&w, &[&watch], CANARIES);
}

#[test]
fn turning_on_auto_apply_in_the_config_takes_effect_at_once() {
    let w = World::new();
    let sessions = legacy_fleet(&w, 1);
    w.write_env(&format!("SLACK_BOT_TOKEN={ROTATED}\n"));
    let pid = w.pane(&sessions[0].name).unwrap().pid;
    let mut watch = start_watch(&w, &["--interval", "3600", "--debounce-ms", "200"]);
    watch.wait_for_log("env drift: 1 session holds", Duration::from_secs(10));
    assert!(
        watch.text().contains("fix with `the-loop apply`"),
        "{}",
        watch.text()
    );
    assert_eq!(watch_rolls(&w), 0, "report only");
    assert_eq!(w.pane(&sessions[0].name).unwrap().pid, pid);

    // The config is watched too. A broken edit is reported, and nothing is done.
    w.write_raw_config("env: [unclosed\n");
    watch.wait_for_log("watch cannot plan:", Duration::from_secs(10));
    assert_eq!(count_events(&w, "watch.error"), 1);
    // The fixed edit alone starts the roll.
    w.write_config("  autoApply: true\n");
    watch.wait_for_log("watch can plan again", Duration::from_secs(10));
    watch.wait_for_log(
        "watch roll finished: 1 respawned, 0 failed",
        Duration::from_secs(20),
    );
    assert_ne!(w.pane(&sessions[0].name).unwrap().pid, pid);
    assert!(plan_is_clean(&w));
    assert_eq!(watch.stop().code(), Some(0));
    sweep(&w, &[&watch], CANARIES);
}

#[test]
fn the_unit_file_in_the_docs_is_the_example() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let unit = std::fs::read_to_string(root.join("examples/the-loop-watch.service")).unwrap();
    let docs = std::fs::read_to_string(root.join("docs/watch.md")).unwrap();
    let body: String = unit
        .lines()
        .skip_while(|l| l.starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(body.starts_with("[Unit]"), "{body}");
    assert!(
        docs.contains(&body),
        "docs/watch.md quotes examples/the-loop-watch.service verbatim"
    );
    assert!(unit.contains(" watch --interval"), "it runs watch");
}

/// The activity the plan shows for `reference`.
fn activity_of(w: &World, reference: &str) -> serde_json::Value {
    let out = w.the_loop(&["plan", "--json"]);
    session_in(&json(&out), reference)["activity"].clone()
}

fn type_into(w: &World, s: &LegacySession, text: &str) {
    w.tmux_ok(&["send-keys", "-t", &format!("={}:", s.name), "-l", text]);
    w.tmux_ok(&["send-keys", "-t", &format!("={}:", s.name), "Enter"]);
}

/// Milliseconds since the epoch, as the hook records them.
fn epoch_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

#[test]
fn a_busy_session_is_rolled_within_a_second_of_its_turn_ending() {
    let (w, sessions) = clean_delivering_fleet(1);
    let s = &sessions[0];
    wait_for(
        || activity_of(&w, &s.reference) == "idle",
        "hooks report idle",
    );
    type_into(&w, s, "/busy");
    wait_for(|| activity_of(&w, &s.reference) == "busy", "busy");
    let old = w.pane(&s.name).unwrap();
    let signals = |w: &World| w.transcript_text(s).matches("\"type\":\"signal\"").count();
    let signalled_before = signals(&w);
    let mut watch = start_watch(
        &w,
        &["--apply", "--interval", "3600", "--debounce-ms", "300"],
    );
    save_env_like_an_editor(&w, &format!("SLACK_BOT_TOKEN={ROTATED}\n"));
    watch.wait_for_log(
        "(its turn is running); rolled the moment its turn ends",
        Duration::from_secs(10),
    );
    std::thread::sleep(Duration::from_millis(1000));
    assert_eq!(signals(&w), signalled_before, "a running turn was ended");
    assert_eq!(w.pane(&s.name).unwrap().pid, old.pid);

    type_into(&w, s, "/idle");
    // The hook's own time of the turn's end, against the moment the old
    // harness got its signal.
    let activity = w.state.join(format!("activity/{}.jsonl", old.pid));
    let stop_ms = || {
        std::fs::read_to_string(&activity)
            .unwrap_or_default()
            .lines()
            .filter(|l| l.contains("\"Stop\""))
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter_map(|v| v["at_ms"].as_u64())
            .next_back()
    };
    // The Stop line is read as it comes: once the roll has respawned the
    // harness, the new one's start sweeps the old process's file away.
    let mut signal_ms = None;
    let mut stopped_ms = None;
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        stopped_ms = stop_ms().or(stopped_ms);
        if signals(&w) > signalled_before {
            signal_ms = Some(epoch_ms());
            stopped_ms = stop_ms().or(stopped_ms);
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let signal_ms = signal_ms.expect("the held session was rolled");
    let stop_ms = stopped_ms.expect("the Stop hook ran before the roll");
    assert!(
        signal_ms.saturating_sub(stop_ms) < 1000,
        "rolled {} ms after its turn ended:\n{}",
        signal_ms.saturating_sub(stop_ms),
        watch.text()
    );
    watch.wait_for_log(
        "watch roll finished: 1 respawned, 0 failed",
        Duration::from_secs(20),
    );
    let now = w.pane(&s.name).unwrap();
    assert_ne!(now.pid, old.pid);
    assert_eq!(
        environ(now.pid).get("SLACK_BOT_TOKEN").map(String::as_str),
        Some(ROTATED)
    );
    watch.stop();
}

/// `watch --start-down`: the tmux server is killed under a running watch;
/// the next cycle brings the sessions back, each resuming its conversation
/// and holding the env file's value.
#[test]
fn start_down_brings_the_fleet_back_after_the_server_is_killed() {
    let (w, sessions) = clean_delivering_fleet(2);
    let mut watch = start_watch(&w, &["--apply", "--start-down", "--interval", "1"]);
    w.tmux_ok(&["kill-server"]);
    watch.wait_for_log("start-down finished: 2 started", Duration::from_secs(30));
    for s in &sessions {
        let pane = w.pane(&s.name).expect("back");
        wait_for_harness(pane.pid);
        assert!(
            cmdline(pane.pid)
                .windows(2)
                .any(|p| p[0] == "--resume" && p[1] == s.session_id),
            "{} resumes its conversation",
            s.name
        );
        assert_eq!(
            environ(pane.pid).get("SLACK_BOT_TOKEN").map(String::as_str),
            Some(RETIRED),
            "the env file's value"
        );
    }
    assert!(watch.stop().success());
}
