//! Faults (issue 6, point 5), each on a real tmux with the stand-in
//! harness. After every one: no conversation has been replaced by a fresh
//! one, and no registry file is truncated.

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

// ---- tmux not installed, not running, hanging ------------------------------

#[test]
fn tmux_not_installed_is_refused_with_the_remedy_and_nothing_is_touched() {
    let (w, sessions) = rotated_world(2);
    let baseline = Baseline::take(&w);
    let pids: Vec<i32> = sessions
        .iter()
        .map(|s| w.pane(&s.name).unwrap().pid)
        .collect();
    let no_tmux = w.root().join("bin-without-tmux");
    std::fs::create_dir_all(&no_tmux).unwrap();
    let env = [("PATH", no_tmux.to_str().unwrap())];
    let cwd = w.work.to_str().unwrap().to_owned();
    let mut outs = Vec::new();
    for args in [
        &["plan", "--json", "--detailed-exitcode"][..],
        &["apply", "--auto-approve", "--json"][..],
        &["sessions", "restart", "--all"][..],
        &["sessions", "start", "github:octo/repo#9", "--cwd", &cwd][..],
        &["status", "--json"][..],
    ] {
        let out = w.the_loop_with(args, &env);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stdout(&out));
        assert!(
            stderr(&out).contains("the_loop::preflight::missing")
                && stderr(&out).contains("tmux is not installed"),
            "{args:?}: {}",
            stderr(&out)
        );
        outs.push(out);
    }
    let now: Vec<i32> = sessions
        .iter()
        .map(|s| w.pane(&s.name).unwrap().pid)
        .collect();
    assert_eq!(now, pids, "no pane touched");
    baseline.holds(&w, &sessions);
    assert_clean(&outs.iter().collect::<Vec<_>>());
}

#[test]
fn no_tmux_server_running_is_absent_and_no_server_is_started() {
    let w = World::new();
    w.write_env(&format!("SLACK_BOT_TOKEN={ROTATED}\n"));
    w.install_tmux_wrapper();
    for i in 1..=2 {
        let s = LegacySession {
            reference: format!("github:octo/repo#{i}"),
            slug: format!("github-octo-repo-{i}"),
            name: format!("loop-github-octo-repo-{i}"),
            session_id: format!("0000-github-octo-repo-{i}"),
            cwd: w.work.join(format!("github-octo-repo-{i}")),
        };
        std::fs::create_dir_all(&s.cwd).unwrap();
        w.write_record(&s, "active");
    }
    let baseline = Baseline::take(&w);
    let plan = w.the_loop(&["plan", "--json"]);
    let p = json(&plan);
    assert_eq!(p["tmux_unanswered"], serde_json::Value::Null);
    // No server on the fleet's socket: its sessions cannot be seen, which
    // is never "not running" (issue 44); they are counted as down.
    for s in p["sessions"].as_array().unwrap() {
        assert_eq!(s["probe"], "absent");
        assert_eq!(
            s["reason"],
            "unverified: no tmux server runs on the socket this plan asked"
        );
    }
    assert_eq!(p["down"].as_array().map(Vec::len), Some(2));
    assert_eq!(p["residue"]["state"], "no_server");
    for args in [
        &["apply", "--auto-approve", "--json"][..],
        &["sessions", "restart", "--all", "--json"][..],
    ] {
        let out = w.the_loop(args);
        assert_eq!(out.status.code(), Some(1), "blind: {}", stderr(&out));
        let report = json(&out);
        for s in report["sessions"].as_array().unwrap() {
            assert_eq!(s["outcome"], "skipped", "never started");
        }
    }
    assert_eq!(w.server_pid(), None, "no tmux server was started");
    let started = w
        .tmux_invocations()
        .into_iter()
        .filter(|argv| {
            argv.iter()
                .any(|a| a == "new-session" || a == "start-server")
        })
        .count();
    assert_eq!(started, 0);
    baseline.holds(&w, &[]);
}

#[test]
fn a_tmux_that_never_answers_is_unknown_never_absent_and_never_respawned() {
    let w = World::new();
    w.write_env(&format!("SLACK_BOT_TOKEN={ROTATED}\n"));
    let s = LegacySession {
        reference: "github:octo/repo#1".into(),
        slug: "github-octo-repo-1".into(),
        name: "loop-github-octo-repo-1".into(),
        session_id: "0000-github-octo-repo-1".into(),
        cwd: w.work.join("github-octo-repo-1"),
    };
    std::fs::create_dir_all(&s.cwd).unwrap();
    w.write_record(&s, "active");
    let baseline = Baseline::take(&w);
    w.install_tmux_wrapper();
    let _hung = HungSocket::bind(&w.tmux_tmpdir);
    let env = [("THE_LOOP_TMUX_TIMEOUT_MS", "300")];

    let plan = finish(
        spawn(&w, &["plan", "--json", "--detailed-exitcode"], &env),
        "plan",
    );
    // Blind is an error, not a pass (issue 35): exit 1, the cause named.
    assert_eq!(plan.status.code(), Some(1), "{}", stderr(&plan));
    let p = json(&plan);
    assert!(
        p["tmux_unanswered"]
            .as_str()
            .unwrap()
            .contains("did not answer within 300ms"),
        "{p}"
    );
    assert_eq!(
        p["observation_failed"]["cause"],
        "tmux did not answer within 300ms"
    );
    let session = &p["sessions"][0];
    assert_eq!(session["probe"], "unknown", "never absent");
    assert_eq!(session["action"], "skip");
    assert_eq!(
        session["reason"],
        "unverified: tmux did not answer within 300ms"
    );
    assert_eq!(p["summary"]["unverified"], 1);

    for args in [
        &["apply", "--auto-approve", "--json"][..],
        &["sessions", "restart", "--all", "--json"][..],
    ] {
        let out = finish(spawn(&w, args, &env), "apply");
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        let report = json(&out);
        assert_eq!(session_in(&report, &s.reference)["outcome"], "skipped");
        assert_eq!(
            report["observation_failed"]["sessions"],
            serde_json::json!([s.reference])
        );
    }
    let start = finish(
        spawn(
            &w,
            &[
                "sessions",
                "start",
                "github:octo/repo#2",
                "--cwd",
                w.work.to_str().unwrap(),
            ],
            &env,
        ),
        "start",
    );
    assert_eq!(start.status.code(), Some(1));
    assert!(
        stderr(&start).contains("did not answer"),
        "{}",
        stderr(&start)
    );

    let calls = w.tmux_invocations();
    assert!(!calls.is_empty());
    for argv in &calls {
        assert!(
            argv[0] == "list-panes" || argv[0] == "-V",
            "only asked, never acted on an unanswered tmux: {argv:?}"
        );
    }
    assert!(calls.iter().any(|argv| argv[0] == "list-panes"));
    baseline.holds(&w, &[]);
}

// ---- panes and pids that change under us -----------------------------------

#[test]
fn a_pane_that_exits_between_plan_and_apply_is_reported_and_never_restarted() {
    let (w, sessions) = rotated_world(2);
    let baseline = Baseline::take(&w);
    // The canary (the first session) ignores SIGTERM, so the roll is slow
    // enough for the second session's harness to exit while it runs.
    slow_to_end(&w, &sessions[0]);
    let second = w.pane(&sessions[1].name).unwrap();
    let child = spawn(
        &w,
        &["apply", "--auto-approve", "--json", "--parallelism", "1"],
        &[],
    );
    wait_for(
        || w.transcript_text(&sessions[0]).contains("TERM-ignored"),
        "the canary is being ended",
    );
    kill(Pid::from_raw(second.pid), Signal::SIGKILL).unwrap();
    wait_for(
        || w.pane(&sessions[1].name).unwrap().dead,
        "the second harness exited",
    );
    let out = finish(child, "apply");
    let report = json(&out);
    assert_eq!(
        session_in(&report, &sessions[0].reference)["outcome"],
        "restarted"
    );
    let gone = session_in(&report, &sessions[1].reference);
    assert_eq!(gone["outcome"], "skipped", "{gone}");
    assert!(
        gone["detail"].as_str().unwrap().contains("exited"),
        "{gone}"
    );
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let pane = w.pane(&sessions[1].name).unwrap();
    assert!(
        pane.dead,
        "not restarted: a stopped session is start's business"
    );
    assert!(!w.transcript_text(&sessions[1]).contains("resume"));
    baseline.holds(&w, &sessions);
    assert_clean(&[&out]);
}

#[test]
fn a_saved_plan_whose_pane_changed_is_refused_and_nothing_is_signalled() {
    let (w, sessions) = rotated_world(2);
    let baseline = Baseline::take(&w);
    let saved = w.root().join("plan.json");
    assert!(w
        .the_loop(&["plan", "--out", saved.to_str().unwrap()])
        .status
        .success());
    // The second pane's process is replaced by another one (same pane, new pid).
    let old = w.pane(&sessions[1].name).unwrap();
    kill(Pid::from_raw(old.pid), Signal::SIGKILL).unwrap();
    wait_for(|| w.pane(&sessions[1].name).unwrap().dead, "exited");
    w.tmux_ok(&[
        "respawn-pane",
        "-t",
        &old.id,
        "claude",
        "--resume",
        &sessions[1].session_id,
    ]);
    let first_pid = w.pane(&sessions[0].name).unwrap().pid;
    let out = w.the_loop(&["apply", "--plan", saved.to_str().unwrap(), "--auto-approve"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(&format!("pane pid of {} changed", sessions[1].reference)),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        w.pane(&sessions[0].name).unwrap().pid,
        first_pid,
        "nothing touched"
    );
    baseline.holds(&w, &sessions);
}

#[test]
fn a_pid_reused_between_the_read_and_the_signal_is_never_signalled() {
    use the_loop::runner::signal::{end_gracefully, Ending, ProcessHandle};
    let mut first = std::process::Command::new("sleep")
        .arg("1000")
        .spawn()
        .unwrap();
    let pid = first.id() as i32;
    let handle = ProcessHandle::open(pid).unwrap();
    first.kill().unwrap();
    first.wait().unwrap();

    // Make the kernel hand the same pid to a new, unrelated process. Any
    // process forked elsewhere on the machine between the write and the
    // spawn takes the pid first (two builds beside the suite did, 200
    // times in a row): the attempts are many, and cheap.
    let mut reused = None;
    for _ in 0..5000 {
        std::fs::write("/proc/sys/kernel/ns_last_pid", (pid - 1).to_string())
            .expect("forcing a pid needs root (CAP_SYS_ADMIN), as CI has");
        let mut candidate = std::process::Command::new("sleep")
            .arg("1000")
            .spawn()
            .unwrap();
        if candidate.id() as i32 == pid {
            reused = Some(candidate);
            break;
        }
        candidate.kill().unwrap();
        candidate.wait().unwrap();
    }
    let mut stranger = reused.expect("the pid was reused");

    assert_eq!(
        handle.signal(Signal::SIGTERM),
        Err(nix::errno::Errno::ESRCH)
    );
    assert!(
        !handle.is_alive(),
        "the handle is on the process that exited"
    );
    assert_eq!(
        end_gracefully(&handle, Duration::from_millis(100)),
        Ending::AlreadyGone
    );
    std::thread::sleep(Duration::from_millis(100));
    assert!(
        stranger.try_wait().unwrap().is_none(),
        "the process that reused the pid was never signalled"
    );
    stranger.kill().unwrap();
    stranger.wait().unwrap();
}

// ---- the registry ----------------------------------------------------------

/// `chattr +i`: even root cannot create, rename or remove entries.
struct Immutable(PathBuf);

impl Immutable {
    fn set(dir: &Path) -> Immutable {
        let ok = std::process::Command::new("chattr")
            .arg("+i")
            .arg(dir)
            .status()
            .is_ok_and(|s| s.success());
        assert!(
            ok,
            "chattr +i {} (needs e2fsprogs and CAP_LINUX_IMMUTABLE)",
            dir.display()
        );
        let probe = dir.join(".probe");
        assert!(
            std::fs::write(&probe, b"").is_err(),
            "the directory is read-only now"
        );
        Immutable(dir.to_path_buf())
    }
}

impl Drop for Immutable {
    fn drop(&mut self) {
        let _ = std::process::Command::new("chattr")
            .arg("-i")
            .arg(&self.0)
            .status();
    }
}

#[test]
fn a_read_only_registry_loses_nothing_and_start_refuses_before_spawning() {
    let (w, sessions) = rotated_world(2);
    let baseline = Baseline::take(&w);
    let _ro = Immutable::set(&w.state.join("local"));

    let out = w.the_loop(&["apply", "--auto-approve", "--json"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    for s in &sessions {
        assert_eq!(
            session_in(&json(&out), &s.reference)["outcome"],
            "restarted"
        );
    }

    let cwd = w.work.join("new");
    std::fs::create_dir_all(&cwd).unwrap();
    let start = w.the_loop(&[
        "sessions",
        "start",
        "github:octo/repo#9",
        "--cwd",
        cwd.to_str().unwrap(),
    ]);
    assert_eq!(start.status.code(), Some(1), "{}", stdout(&start));
    assert!(stderr(&start).contains("registry"), "{}", stderr(&start));
    assert!(
        w.pane("loop-github-octo-repo-9").is_none(),
        "no session started that could not be recorded"
    );
    baseline.holds(&w, &sessions);
    assert_clean(&[&out, &start]);
}

#[test]
fn a_read_only_state_root_refuses_apply_before_touching_a_pane() {
    let (w, sessions) = rotated_world(1);
    let baseline = Baseline::take(&w);
    let pid = w.pane(&sessions[0].name).unwrap().pid;
    let _ro = Immutable::set(&w.state);
    let out = w.the_loop(&["apply", "--auto-approve"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("cannot open the apply lock"),
        "{}",
        stderr(&out)
    );
    assert_eq!(w.pane(&sessions[0].name).unwrap().pid, pid);
    baseline.holds(&w, &sessions);
}

#[test]
fn a_corrupt_record_is_reported_and_the_others_roll() {
    let (w, sessions) = rotated_world(2);
    let corrupt = w.state.join("local").join("github-octo-repo-50.json");
    std::fs::write(
        &corrupt,
        "{\"workItem\": {\"ref\": \"github:octo/repo#50\", ",
    )
    .unwrap();
    let baseline = Baseline::take(&w);
    let plan = json(&w.the_loop(&["plan", "--json"]));
    let notes = plan["corrupt_records"].as_array().unwrap();
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0]["path"], corrupt.to_str().unwrap());
    let out = w.the_loop(&["apply", "--auto-approve", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    for s in &sessions {
        assert_eq!(
            session_in(&json(&out), &s.reference)["outcome"],
            "restarted"
        );
    }
    baseline.holds(&w, &sessions);
}

// ---- the env file, signals, concurrency ------------------------------------

#[test]
fn an_env_file_replaced_mid_apply_is_said_and_the_roll_stops() {
    let w = World::new();
    w.write_config("  deliver: [DELIVERED_TOKEN]\n");
    w.write_env(&format!(
        "SLACK_BOT_TOKEN={RETIRED}\nDELIVERED_TOKEN={DELIVERED}\n"
    ));
    w.start_server_holding(&[("SLACK_BOT_TOKEN", RETIRED)]);
    let sessions: Vec<LegacySession> = (1..=3)
        .map(|i| {
            w.legacy_session(
                &format!("github:octo/repo#{i}"),
                &format!("github-octo-repo-{i}"),
            )
        })
        .collect();
    w.write_env(&format!(
        "SLACK_BOT_TOKEN={ROTATED}\nDELIVERED_TOKEN={DELIVERED}\n"
    ));
    let baseline = Baseline::take(&w);
    slow_to_end(&w, &sessions[0]);
    let child = spawn(&w, &["apply", "--auto-approve", "--json"], &[]);
    wait_for(
        || w.transcript_text(&sessions[0]).contains("TERM-ignored"),
        "the canary is being ended",
    );
    // Replaced, not edited: a new file renamed over the old one.
    let replacement = w.root().join(".env.new");
    std::fs::write(
        &replacement,
        format!("SLACK_BOT_TOKEN={ROTATED}\nDELIVERED_TOKEN={REPLACED}\n"),
    )
    .unwrap();
    std::fs::rename(&replacement, &w.env_path).unwrap();
    let out = finish(child, "apply");
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let report = json(&out);
    // The canary's launcher read the replacement: it holds the file's
    // current value, which is not a mismatch (issue 35, point 3).
    let canary = session_in(&report, &sessions[0].reference);
    assert_eq!(canary["outcome"], "superseded", "{canary}");
    assert_eq!(
        canary["detail"],
        "the env file changed during the roll; it holds the file's current value"
    );
    assert_eq!(canary["mismatches"], serde_json::json!([]));
    let pid = w.pane(&sessions[0].name).unwrap().pid;
    assert_eq!(
        environ(pid).get("DELIVERED_TOKEN").map(String::as_str),
        Some(REPLACED)
    );
    assert_eq!(
        report["env_file_changed"],
        serde_json::json!({"superseded_sessions": 0})
    );
    for s in &sessions[1..] {
        let session = session_in(&report, &s.reference);
        // Not reached for the newer value: superseded, not a session left stale.
        assert_eq!(session["outcome"], "superseded");
        assert_eq!(session["detail"], "the env file changed during the roll");
        assert_eq!(session["new_pid"], serde_json::Value::Null);
    }
    baseline.holds(&w, &sessions);
    assert_clean(&[&out]);
}

#[test]
fn sigint_mid_apply_of_ten_sessions_finishes_what_started_and_releases_the_lock() {
    let (w, sessions) = rotated_world(10);
    let baseline = Baseline::take(&w);
    for s in &sessions {
        slow_to_end(&w, s);
    }
    let before: Vec<i32> = sessions
        .iter()
        .map(|s| w.pane(&s.name).unwrap().pid)
        .collect();
    let child = spawn(
        &w,
        &["apply", "--auto-approve", "--json", "--parallelism", "2"],
        &[],
    );
    let pid = child.id() as i32;
    // The canary is done and the parallel roll has begun: a session after
    // the canary is waiting out its grace period.
    wait_for(
        || {
            sessions[1..]
                .iter()
                .any(|s| w.transcript_text(s).contains("TERM-ignored"))
        },
        "the parallel roll has begun",
    );
    kill(Pid::from_raw(pid), Signal::SIGINT).unwrap();
    let out = finish(child, "apply");
    let report = json(&out);
    assert_eq!(report["interrupted"], true);
    let mut restarted = 0;
    let mut not_attempted = 0;
    for (s, old) in sessions.iter().zip(&before) {
        let o = session_in(&report, &s.reference);
        let pane = w.pane(&s.name).expect("the session exists");
        assert!(!pane.dead, "{}: no session left dead", s.reference);
        match o["outcome"].as_str().unwrap() {
            "restarted" => {
                restarted += 1;
                assert_ne!(pane.pid, *old);
                assert_eq!(o["new_pid"], pane.pid, "verified on the new process");
            }
            "not_attempted" => {
                not_attempted += 1;
                assert_eq!(o["detail"], "interrupted");
                assert_eq!(pane.pid, *old, "untouched");
            }
            other => panic!("{}: unexpected outcome {other}: {o}", s.reference),
        }
    }
    assert!(
        restarted >= 2,
        "the canary and the sessions in flight finished"
    );
    assert!(not_attempted >= 1, "the interrupt stopped new respawns");
    assert_eq!(restarted + not_attempted, 10, "every session accounted for");
    assert_eq!(
        out.status.code(),
        Some(1),
        "sessions left stale by the interrupt make it exit 1: {}",
        stderr(&out)
    );
    assert!(apply_lock_is_free(&w.state), "the lock was released");
    let events = std::fs::read_to_string(w.state.join("events.jsonl")).unwrap();
    assert!(events.contains("\"interrupted\":true"));
    baseline.holds(&w, &sessions);
    assert_clean(&[&out]);
}

#[test]
fn two_applies_at_once_one_runs_the_other_is_refused_and_nothing_is_lost() {
    let (w, sessions) = rotated_world(2);
    let baseline = Baseline::take(&w);
    slow_to_end(&w, &sessions[0]);
    let first = spawn(&w, &["apply", "--auto-approve", "--json"], &[]);
    wait_for(
        || std::fs::read_to_string(w.state.join("apply.lock")).is_ok_and(|t| t.contains("pid")),
        "the first apply holds the lock",
    );
    let second = finish(
        spawn(&w, &["sessions", "restart", "--all", "--json"], &[]),
        "second",
    );
    assert_eq!(second.status.code(), Some(1));
    assert!(stderr(&second).contains("another apply or restart is running"));
    let first = finish(first, "first");
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    for s in &sessions {
        assert_eq!(
            session_in(&json(&first), &s.reference)["outcome"],
            "restarted"
        );
    }
    assert!(apply_lock_is_free(&w.state));
    baseline.holds(&w, &sessions);
    assert_clean(&[&first, &second]);
}
