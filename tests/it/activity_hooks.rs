//! The harness's hooks on a real tmux with the stand-in harness: the
//! launcher adds `--settings`, the harness calls `the-loop hook`, and the
//! activity files say what each harness process is doing.

use crate::support::*;
use std::io::Write;
use std::process::Stdio;
use std::time::{Duration, Instant};
use the_loop::activity::{store, Activity, HarnessActivity};

fn live_pane(w: &World, name: &str) -> Pane {
    let mut found = None;
    wait_for(
        || {
            found = w.pane(name).filter(|p| !p.dead);
            found.is_some()
        },
        "a live pane",
    );
    found.unwrap()
}

fn wait_activity(w: &World, pid: i32, want: Activity) -> HarnessActivity {
    let mut last = HarnessActivity::unknown(pid);
    wait_for(
        || {
            last = store::read_one(&w.state, pid);
            last.activity == want
        },
        &format!(
            "harness {pid} {want}: {:?} {:?}",
            std::fs::read_dir(w.state.join("activity"))
                .map(|d| d.flatten().map(|e| e.file_name()).collect::<Vec<_>>()),
            store::read_all(&w.state)
        ),
    );
    last
}

fn type_line(w: &World, name: &str, text: &str) {
    w.tmux_ok(&["send-keys", "-t", &format!("={name}:"), "-l", text]);
    w.tmux_ok(&["send-keys", "-t", &format!("={name}:"), "Enter"]);
}

#[test]
fn a_started_session_reports_its_activity_through_the_hooks() {
    let w = World::new();
    w.write_env("UNRELATED=1\n");
    let s = w.started_session("github:octo/repo#1", "octo-repo-1");
    let pane = live_pane(&w, &s.name);
    let argv = cmdline(pane.pid);
    let settings = w.state.join("harness/claude-settings.json");
    let at = argv
        .iter()
        .position(|a| a == "--settings")
        .unwrap_or_else(|| panic!("no --settings in {argv:?}"));
    assert_eq!(argv[at + 1], settings.to_str().unwrap());
    assert_eq!(
        argv[at + 2],
        "--session-id",
        "before the launch words: {argv:?}"
    );
    let written: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&settings).unwrap()).unwrap();
    assert!(written["hooks"]["SessionStart"].is_array(), "{written}");

    let started = wait_activity(&w, pane.pid, Activity::Idle);
    assert_eq!(started.session_id.as_deref(), Some(s.session_id.as_str()));
    assert!(!started.confirmed_resume(&s.session_id), "a fresh start");

    type_line(&w, &s.name, "/busy");
    let busy = wait_activity(&w, pane.pid, Activity::Busy);
    assert!(busy.busy_since_ms().is_some());
    type_line(&w, &s.name, "/wait");
    let waiting = wait_activity(&w, pane.pid, Activity::Waiting);
    assert!(waiting.busy_since_ms() >= busy.busy_since_ms());
    type_line(&w, &s.name, "/idle");
    wait_activity(&w, pane.pid, Activity::Idle);
    // An ordinary line is a whole turn: submitted, then ended.
    type_line(&w, &s.name, "hello");
    let file = w.state.join(format!("activity/{}.jsonl", pane.pid));
    let mut events: Vec<&str> = Vec::new();
    wait_for(
        || {
            let records = store::parse(&std::fs::read(&file).unwrap_or_default());
            events = records.iter().map(|r| r.event.name()).collect();
            events.len() == 9
        },
        "the line's hooks",
    );
    assert_eq!(&events[7..], ["UserPromptSubmit", "Stop"], "{events:?}");
    assert_eq!(store::read_one(&w.state, pane.pid).activity, Activity::Idle);

    // No launch-argument drift from the added layer.
    let plan = w.the_loop(&["plan", "--json"]);
    let plan: serde_json::Value = serde_json::from_slice(&plan.stdout).unwrap();
    let session = &plan["sessions"][0];
    assert_eq!(session["action"], "none", "{plan}");
}

#[test]
fn a_restart_is_confirmed_by_the_new_process() {
    let w = World::new();
    w.write_env("UNRELATED=1\n");
    let s = w.started_session("github:octo/repo#2", "octo-repo-2");
    let old = live_pane(&w, &s.name);
    wait_activity(&w, old.pid, Activity::Idle);
    let out = w.the_loop(&["sessions", "restart", &s.reference, "--json"]);
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    let new = live_pane(&w, &s.name);
    assert_ne!(new.pid, old.pid);
    assert_eq!(new.id, old.id, "the same pane");
    let resumed = wait_activity(&w, new.pid, Activity::Idle);
    assert!(resumed.confirmed_resume(&s.session_id), "{resumed:?}");
    // The old process said it was ending (SessionEnd on SIGTERM), and its
    // file went with it: the roll that ended it removed it (a hook's sweep
    // runs at most once a minute).
    let all = store::read_all(&w.state);
    assert!(all.contains_key(&new.pid));
    assert!(!all.contains_key(&old.pid), "{all:?}");
}

/// The hook as a harness the launcher started runs it: its environment
/// names its harness (here this test process, its parent).
fn hook_command(w: &World, args: &[&str]) -> std::process::Command {
    let mut cmd = unnamed_hook_command(w, args);
    let me = std::process::id() as i32;
    let start = store::process_start(me).unwrap();
    cmd.env(
        the_loop::activity::lineage::VARIABLE,
        format!("{me}:{start}"),
    );
    cmd
}

/// The hook with no harness named in its environment.
fn unnamed_hook_command(w: &World, args: &[&str]) -> std::process::Command {
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("the-loop"));
    cmd.arg("hook").args(args).current_dir(&w.work);
    cmd.env_remove(the_loop::activity::lineage::VARIABLE);
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    cmd
}

#[test]
fn the_hook_never_fails_prints_or_blocks() {
    let w = World::new();
    let dir = w.state.join("activity");
    let dir_arg = dir.to_str().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&[], ""),
        (&["--dir"], "{}"),
        (&["--dir", "relative/activity", "--event", "Stop"], "{}"),
        (&["--dir", dir_arg, "--event", "NoSuchEvent"], "{}"),
        (&["--dir", dir_arg, "--event", "Stop"], "not json at all"),
        (
            &["--dir", "/proc/1/no-such/activity", "--event", "Stop"],
            "{}",
        ),
        (
            &["--dir", dir_arg, "--event", "UserPromptSubmit"],
            r#"{"session_id":"abc","hook_event_name":"UserPromptSubmit","prompt":"secret-prompt-canary"}"#,
        ),
    ];
    for (args, input) in cases {
        let mut child = hook_command(&w, args)
            .stdin(Stdio::piped())
            .spawn()
            .unwrap();
        // A hook that refuses its arguments exits without reading stdin, so
        // the write may meet a closed pipe: that is the hook not blocking,
        // not a failure. What it did is judged by its exit code and output.
        if let Err(err) = child.stdin.take().unwrap().write_all(input.as_bytes()) {
            assert_eq!(err.kind(), std::io::ErrorKind::BrokenPipe, "{args:?}");
        }
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(
            out.stdout.is_empty() && out.stderr.is_empty(),
            "{args:?}: {out:?}"
        );
    }
    // Recorded for its parent (this test process), the id kept, the prompt not.
    let me = std::process::id() as i32;
    let text = std::fs::read_to_string(dir.join(format!("{me}.jsonl"))).unwrap();
    assert!(text.contains("\"session_id\":\"abc\""), "{text}");
    assert!(!text.contains("secret-prompt-canary"), "{text}");
    assert_eq!(store::read_one(&w.state, me).activity, Activity::Busy);

    // A harness that never closes the pipe holds the hook for a bounded time.
    let started = Instant::now();
    let mut child = hook_command(&w, &["--dir", dir_arg, "--event", "Stop"])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    let stdin = child.stdin.take().unwrap();
    let out = child.wait_with_output().unwrap();
    drop(stdin);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(store::read_one(&w.state, me).activity, Activity::Idle);
}

/// A hook whose harness cannot be proven files nothing, whatever its parent
/// looks like, and says why in the debug log (never the payload).
#[test]
fn a_hook_that_cannot_prove_its_harness_files_nothing_and_says_so() {
    let w = World::new();
    let dir = w.state.join("activity");
    let dir_arg = dir.to_str().unwrap();
    let me = std::process::id() as i32;
    let start = store::process_start(me).unwrap();
    for named in [
        None,
        Some("garbage".to_owned()),
        Some(format!("{me}:{}", start + 1)),
        Some("2:1".to_owned()),
    ] {
        let mut cmd = unnamed_hook_command(&w, &["--dir", dir_arg, "--event", "UserPromptSubmit"]);
        if let Some(named) = &named {
            cmd.env(the_loop::activity::lineage::VARIABLE, named);
        }
        let mut child = cmd.stdin(Stdio::piped()).spawn().unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(br#"{"session_id":"abc","prompt":"secret-prompt-canary"}"#)
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{named:?}");
        assert!(out.stdout.is_empty() && out.stderr.is_empty(), "{out:?}");
    }
    let filed: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".jsonl"))
        .collect();
    assert!(
        filed.is_empty(),
        "filed under a process it could not prove: {filed:?}"
    );
    let log = std::fs::read_to_string(dir.join(store::UNFILED_LOG)).unwrap();
    assert_eq!(log.lines().count(), 4, "{log}");
    assert!(
        log.lines()
            .all(|l| l.contains("UserPromptSubmit filed under no harness")),
        "{log}"
    );
    assert!(log.contains("no THE_LOOP_HARNESS_PROCESS"), "{log}");
    assert!(log.contains("not <pid>:<start>"), "{log}");
    assert!(log.contains("not among the hook's"), "{log}");
    assert!(
        !log.contains("secret-prompt-canary") && !log.contains("abc"),
        "{log}"
    );
}

/// The claims (`.swept-<interval>`) in the activity directory.
fn sweep_claims(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".swept-"))
        .collect();
    names.sort();
    names
}

/// A roll starts hundreds of harnesses within seconds; each SessionStart
/// hook used to sweep the whole directory (every file, every file's
/// process), so a roll of N cost N² reads, about 10 s of CPU at 500. Now
/// the first harness start of each minute sweeps, and the rest do not.
#[test]
fn harness_starts_within_a_minute_sweep_once() {
    let w = World::new();
    let dir = w.state.join("activity");
    let dir_arg = dir.to_str().unwrap();
    // A pid far above pid_max: its process has gone.
    let stale = |n: i32| {
        let path = dir.join(format!("{}.jsonl", i32::MAX - n));
        std::fs::write(
            &path,
            "{\"event\":\"Stop\",\"at_ms\":1,\"session_id\":\"x\",\"pid\":1,\"start\":1}\n",
        )
        .unwrap();
        path
    };
    let start = || {
        let mut child = hook_command(&w, &["--dir", dir_arg, "--event", "SessionStart"])
            .stdin(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(b"{\"session_id\":\"abc\",\"source\":\"startup\"}")
            .unwrap();
        assert_eq!(child.wait_with_output().unwrap().status.code(), Some(0));
    };
    std::fs::create_dir_all(&dir).unwrap();
    for _attempt in 0..3 {
        for claim in sweep_claims(&dir) {
            std::fs::remove_file(dir.join(claim)).unwrap();
        }
        let first = stale(1);
        start();
        let claims = sweep_claims(&dir);
        let second = stale(2);
        start();
        if sweep_claims(&dir) != claims {
            // The minute turned between the two starts: try again.
            continue;
        }
        assert_eq!(claims.len(), 1, "{claims:?}");
        assert!(!first.exists(), "the minute's first start swept");
        assert!(second.exists(), "the minute's second start swept too");
        return;
    }
    panic!("a minute turned between two hook runs three times in a row");
}
