//! `apply` and `sessions restart` on a real tmux with the stand-in harness:
//! in-place respawns that resume the conversation, verified on /proc.

use crate::support::*;

const RETIRED: &str = "xoxb-RETIRED-canary-0b5e";
const ROTATED: &str = "xoxb-ROTATED-canary-4d2c";
const CANARIES: &[&str] = &[RETIRED, ROTATED];

/// A server frozen on the retired token, `n` sessions born on it, then the rotation.
fn rotated_world(n: usize) -> (World, Vec<LegacySession>) {
    let w = World::new();
    let sessions = w.rotated_fleet(n, RETIRED, ROTATED);
    (w, sessions)
}

fn assert_clean_outputs(outs: &[&std::process::Output]) {
    for out in outs {
        assert_no_canary(&out.stdout, CANARIES, "stdout");
        assert_no_canary(&out.stderr, CANARIES, "stderr");
    }
}

#[test]
fn restart_all_rolls_the_fleet_in_place_and_keeps_each_conversation() {
    let (w, sessions) = rotated_world(3);
    let before: Vec<Pane> = sessions.iter().map(|s| w.pane(&s.name).unwrap()).collect();

    let out = w.the_loop(&["sessions", "restart", "--all", "--json"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let report = json(&out);
    for (s, old) in sessions.iter().zip(&before) {
        assert_eq!(session_in(&report, &s.reference)["outcome"], "restarted");
        let now = w.pane(&s.name).expect("session survived");
        assert_ne!(now.pid, old.pid, "a new process");
        assert_eq!(
            (now.id.as_str(), now.window, now.session.as_str()),
            (old.id.as_str(), old.window, s.name.as_str()),
            "same pane, window, session"
        );
        // Regression (verification report): the respawned pane is handed the
        // file's state, not the tmux server's frozen environment.
        let env = environ(now.pid);
        assert!(
            !env.contains_key("SLACK_BOT_TOKEN"),
            "withheld name still held after respawn"
        );
        assert_eq!(env.get("THE_LOOP_WORK_ITEM"), Some(&s.reference));
        assert!(
            cmdline(now.pid)
                .windows(2)
                .any(|a| a[0] == "--resume" && a[1] == s.session_id),
            "resumed {}",
            s.session_id
        );
        let transcript = w.transcript_text(s);
        let term = transcript
            .find("\"signal\":\"TERM\"")
            .expect("SIGTERM reached the harness");
        let resume = transcript
            .find("\"type\":\"resume\"")
            .expect("the stand-in recorded the resume");
        assert!(
            term < resume,
            "ended gracefully, then resumed: {transcript}"
        );
    }
    // The registry keeps the same conversation id.
    let files = w.registry_files();
    for s in &sessions {
        let record: serde_json::Value =
            serde_json::from_slice(&files[&w.state.join("local").join(format!("{}.json", s.slug))])
                .unwrap();
        assert_eq!(record["harnessSessionId"], s.session_id.as_str());
    }
    let plan = w.the_loop(&["plan", "--detailed-exitcode"]);
    assert_eq!(
        plan.status.code(),
        Some(0),
        "clean after the roll: {}",
        stdout(&plan)
    );
    let events = std::fs::read_to_string(w.state.join("events.jsonl")).unwrap();
    assert_eq!(events.matches("\"session.respawned\"").count(), 3);
    assert_clean_outputs(&[&out, &plan]);
    for (path, bytes) in w.state_files() {
        assert_no_canary(&bytes, CANARIES, &path.display().to_string());
    }
}

#[test]
fn apply_needs_approval_when_not_interactive_and_rolls_with_auto_approve() {
    let (w, sessions) = rotated_world(1);
    let pid = w.pane(&sessions[0].name).unwrap().pid;
    let refused = w.the_loop(&["apply"]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        stderr(&refused).contains("without confirmation"),
        "{}",
        stderr(&refused)
    );
    assert_eq!(
        w.pane(&sessions[0].name).unwrap().pid,
        pid,
        "nothing touched"
    );

    let out = w.the_loop(&["apply", "--auto-approve"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    assert!(
        stdout(&out).contains("restarted (verified)"),
        "{}",
        stdout(&out)
    );
    assert_ne!(w.pane(&sessions[0].name).unwrap().pid, pid);
    assert_clean_outputs(&[&refused, &out]);
}

#[test]
fn restart_refuses_without_a_target() {
    let (w, sessions) = rotated_world(1);
    let pid = w.pane(&sessions[0].name).unwrap().pid;
    let out = w.the_loop(&["sessions", "restart"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("needs --all or a work-item ref"),
        "{}",
        stderr(&out)
    );
    assert_eq!(w.pane(&sessions[0].name).unwrap().pid, pid);
}

#[test]
fn restart_and_apply_refuse_without_an_env_file() {
    let (w, sessions) = rotated_world(1);
    w.write_raw_config(&format!("state:\n  root: {}\n", w.state.display()));
    let pid = w.pane(&sessions[0].name).unwrap().pid;
    for args in [
        &["sessions", "restart", "--all"][..],
        &["apply", "--auto-approve"][..],
    ] {
        let out = w.the_loop(args);
        assert_eq!(out.status.code(), Some(1));
        assert!(
            stderr(&out).contains("no env.file is configured"),
            "{}",
            stderr(&out)
        );
    }
    assert_eq!(w.pane(&sessions[0].name).unwrap().pid, pid);
}

#[test]
fn a_registered_session_that_is_not_running_is_skipped_and_never_started() {
    let (w, sessions) = rotated_world(2);
    w.tmux_ok(&["kill-session", "-t", &format!("={}", sessions[1].name)]);
    let out = w.the_loop(&["sessions", "restart", "--all", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report = json(&out);
    assert_eq!(
        session_in(&report, &sessions[1].reference)["outcome"],
        "skipped"
    );
    assert_eq!(
        session_in(&report, &sessions[1].reference)["detail"],
        "not running"
    );
    assert!(w.pane(&sessions[1].name).is_none(), "never started");
    assert_eq!(
        session_in(&report, &sessions[0].reference)["outcome"],
        "restarted"
    );
}

#[test]
fn an_unresumable_session_is_left_alone_with_its_pid_unchanged() {
    let (w, sessions) = rotated_world(2);
    std::fs::remove_file(w.transcript(&sessions[0])).unwrap();
    let pid = w.pane(&sessions[0].name).unwrap().pid;
    let out = w.the_loop(&["sessions", "restart", "--all", "--json"]);
    assert_eq!(out.status.code(), Some(1), "left stale means exit 1");
    let report = json(&out);
    let alone = session_in(&report, &sessions[0].reference);
    assert_eq!(alone["outcome"], "left_alone");
    assert!(
        alone["detail"].as_str().unwrap().contains("no transcript"),
        "{alone}"
    );
    assert_eq!(w.pane(&sessions[0].name).unwrap().pid, pid, "untouched");
    assert_eq!(
        environ(pid).get("SLACK_BOT_TOKEN").map(String::as_str),
        Some(RETIRED),
        "still the old process"
    );
    assert_eq!(
        session_in(&report, &sessions[1].reference)["outcome"],
        "restarted"
    );
    assert_clean_outputs(&[&out]);
}

#[test]
fn an_invalid_conversation_id_is_left_alone() {
    let (w, mut sessions) = rotated_world(1);
    sessions[0].session_id = "--model".into();
    w.write_record(&sessions[0], "active");
    let pid = w.pane(&sessions[0].name).unwrap().pid;
    let out = w.the_loop(&["sessions", "restart", "github:octo/repo#1", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(session_in(&json(&out), "github:octo/repo#1")["detail"]
        .as_str()
        .unwrap()
        .contains("safety check"));
    assert_eq!(w.pane(&sessions[0].name).unwrap().pid, pid);
}

#[test]
fn a_failed_resume_is_reported_and_no_fresh_conversation_is_started() {
    let (w, sessions) = rotated_world(1);
    let s = &sessions[0];
    std::fs::write(w.transcript(s), "{\"test\":\"fail-resume\"}\n").unwrap();
    let project = w.transcript(s).parent().unwrap().to_path_buf();
    let out = w.the_loop(&["sessions", "restart", &s.reference, "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert_eq!(
        session_in(&json(&out), &s.reference)["outcome"],
        "resume_failed"
    );
    let pane = w.pane(&s.name).expect("pane retained by remain-on-exit");
    assert!(pane.dead, "nothing fresh was started in its place");
    let conversations: Vec<_> = std::fs::read_dir(&project).unwrap().collect();
    assert_eq!(conversations.len(), 1, "no new conversation was created");
    let events = std::fs::read_to_string(w.state.join("events.jsonl")).unwrap();
    assert!(events.contains("session.resume_failed"));
}

/// A harness live at the probe that exits before it reports its resume
/// (a launcher slow to start on a loaded machine, then a resume that
/// fails) is a failed resume, not a restart: readiness watches the new
/// process until it reports.
#[test]
fn a_resume_that_fails_after_the_probe_is_reported_as_failed() {
    let (w, sessions) = rotated_world(1);
    let s = &sessions[0];
    std::fs::write(w.transcript(s), "{\"test\":\"exit-after-probe\"}\n").unwrap();
    let out = w.the_loop(&["sessions", "restart", &s.reference, "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let report = json(&out);
    let session = session_in(&report, &s.reference);
    assert_eq!(session["outcome"], "resume_failed", "{session}");
    assert!(
        session["detail"]
            .as_str()
            .unwrap()
            .contains("exited after the probe"),
        "{session}"
    );
    assert!(w.pane(&s.name).expect("kept by remain-on-exit").dead);
    let failed = w.events_named("session.resume_failed");
    assert_eq!(failed.len(), 1, "{failed:?}");
}

#[test]
fn a_mismatch_exits_1_naming_the_names_and_fingerprints() {
    let (w, sessions) = rotated_world(1);
    let s = &sessions[0];
    std::fs::write(w.transcript(s), "{\"tamper\":\"SLACK_BOT_TOKEN\"}\n").unwrap();
    let out = w.the_loop(&["sessions", "restart", &s.reference]);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    let text = stdout(&out);
    assert!(text.contains("mismatch (SLACK_BOT_TOKEN)"), "{text}");
    assert!(
        text.contains(&fp("tampered-by-stand-in")),
        "the fingerprint of what it holds: {text}"
    );
    assert_clean_outputs(&[&out]);
}

#[test]
fn an_unreadable_new_environment_is_unverified_and_exits_0() {
    let (w, sessions) = rotated_world(1);
    let s = &sessions[0];
    // A /proc view that shows only the process that was planned: the new
    // process after the respawn cannot be read.
    let proc_view = w.root().join("proc-view");
    std::fs::create_dir_all(&proc_view).unwrap();
    let pid = w.pane(&s.name).unwrap().pid;
    std::os::unix::fs::symlink(format!("/proc/{pid}"), proc_view.join(pid.to_string())).unwrap();
    let out = w.the_loop_with(
        &["sessions", "restart", "--all", "--json"],
        &[("THE_LOOP_PROC_ROOT", proc_view.to_str().unwrap())],
    );
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    assert_eq!(
        session_in(&json(&out), &s.reference)["outcome"],
        "restarted_unverified"
    );
    assert_ne!(w.pane(&s.name).unwrap().pid, pid);
}

#[test]
fn a_dry_run_changes_nothing() {
    let w = World::new();
    w.write_env(&format!("SLACK_BOT_TOKEN={RETIRED}\n"));
    w.start_server_holding(&[("SLACK_BOT_TOKEN", RETIRED)]);
    let s = w.legacy_session("github:octo/repo#5", "github-octo-repo-5");
    w.tmux_ok(&[
        "set-option",
        "-w",
        "-u",
        "-t",
        &format!("={}:", s.name),
        "remain-on-exit",
    ]);
    w.write_env(&format!("SLACK_BOT_TOKEN={ROTATED}\n"));
    let options = |w: &World| w.tmux_ok(&["show-options", "-w", "-t", &format!("={}:", s.name)]);
    let before = (
        w.pane(&s.name).unwrap(),
        w.state_files(),
        options(&w),
        w.transcript_text(&s),
    );
    for args in [
        &["sessions", "restart", "--all", "--dry-run"][..],
        &["apply", "--dry-run"][..],
    ] {
        let out = w.the_loop(args);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert!(
            stdout(&out).contains("would restart (SLACK_BOT_TOKEN stale"),
            "{}",
            stdout(&out)
        );
        assert_clean_outputs(&[&out]);
    }
    let after = (
        w.pane(&s.name).unwrap(),
        w.state_files(),
        options(&w),
        w.transcript_text(&s),
    );
    assert_eq!(
        before, after,
        "pids, state files, tmux options and transcript unchanged"
    );
}

#[test]
fn a_stale_saved_plan_is_refused_and_says_what_changed() {
    let (w, sessions) = rotated_world(1);
    let saved = w.root().join("plan.json");
    let out = w.the_loop(&["plan", "--out", saved.to_str().unwrap()]);
    assert!(out.status.success());
    assert_no_canary(&std::fs::read(&saved).unwrap(), CANARIES, "saved plan");
    let pid = w.pane(&sessions[0].name).unwrap().pid;
    w.write_env("SLACK_BOT_TOKEN=yet-another-canary-77aa\n");
    let out = w.the_loop(&["apply", "--plan", saved.to_str().unwrap(), "--auto-approve"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("stale") && stderr(&out).contains("SLACK_BOT_TOKEN"),
        "{}",
        stderr(&out)
    );
    assert_eq!(w.pane(&sessions[0].name).unwrap().pid, pid);
    assert_no_canary(&out.stderr, &["yet-another-canary-77aa"], "stderr");

    // A fresh saved plan applies.
    let out = w.the_loop(&["plan", "--out", saved.to_str().unwrap()]);
    assert!(out.status.success());
    let out = w.the_loop(&["apply", "--plan", saved.to_str().unwrap(), "--auto-approve"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
}

#[test]
fn a_second_apply_is_refused_while_one_runs() {
    let (w, sessions) = rotated_world(1);
    // The harness ignores SIGTERM, so the first apply waits out the grace period.
    std::fs::write(w.transcript(&sessions[0]), "{\"test\":\"ignore-term\"}\n").unwrap();
    let mut first = w
        .the_loop_command(&["sessions", "restart", "--all"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    wait_for(
        || std::fs::read_to_string(w.state.join("apply.lock")).is_ok_and(|t| t.contains("pid")),
        "first apply holds the lock",
    );
    let second = w.the_loop(&["apply", "--auto-approve"]);
    assert_eq!(second.status.code(), Some(1));
    assert!(
        stderr(&second).contains("another apply or restart is running"),
        "{}",
        stderr(&second)
    );
    assert!(
        stderr(&second).contains(&format!("pid {}", first.id())),
        "names the holder: {}",
        stderr(&second)
    );
    first.wait().unwrap();
}

#[test]
fn a_failed_canary_stops_the_roll() {
    let (w, sessions) = rotated_world(3);
    std::fs::write(w.transcript(&sessions[0]), "{\"test\":\"fail-resume\"}\n").unwrap();
    let pids: Vec<i32> = sessions
        .iter()
        .map(|s| w.pane(&s.name).unwrap().pid)
        .collect();
    let out = w.the_loop(&["sessions", "restart", "--all", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let report = json(&out);
    assert_eq!(
        session_in(&report, &sessions[0].reference)["outcome"],
        "resume_failed"
    );
    for (s, pid) in sessions.iter().zip(&pids).skip(1) {
        assert_eq!(
            session_in(&report, &s.reference)["outcome"],
            "not_attempted"
        );
        assert_eq!(w.pane(&s.name).unwrap().pid, *pid, "untouched");
    }
}
