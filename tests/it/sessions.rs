//! `sessions start`, `sessions list` and `status` on a real tmux.

use crate::support::*;

const RETIRED: &str = "xoxb-RETIRED-canary-5a5a";
const ROTATED: &str = "xoxb-ROTATED-canary-c3c3";

fn start(w: &World, reference: &str, dir: &str, extra: &[&str]) -> std::process::Output {
    let cwd = w.work.join(dir);
    std::fs::create_dir_all(&cwd).unwrap();
    let mut args = vec![
        "sessions",
        "start",
        reference,
        "--cwd",
        cwd.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    w.the_loop(&args)
}

#[test]
fn status_reports_stale_sessions_in_one_line_and_never_fails_on_drift() {
    let w = World::new();
    w.write_env(&format!("SLACK_BOT_TOKEN={ROTATED}\n"));
    let clean = start(&w, "github:octo/repo#1", "a", &[]);
    assert!(clean.status.success(), "{}", stderr(&clean));
    let out = w.the_loop(&["status"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        !stdout(&out).contains("stale"),
        "a clean fleet gains no line: {}",
        stdout(&out)
    );

    // A second tmux server frozen on the retired token cannot exist beside the
    // first, so the stale session is born in this one with the value set.
    w.tmux_ok(&["set-environment", "-g", "SLACK_BOT_TOKEN", RETIRED]);
    let stale = w.legacy_session("github:octo/repo#2", "github-octo-repo-2");
    let out = w.the_loop(&["status"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "drift never changes status's exit code"
    );
    assert!(
        stdout(&out)
            .contains("1 running session(s) hold a stale environment; fix with `the-loop apply`"),
        "{}",
        stdout(&out)
    );

    let report = json(&w.the_loop(&["status", "--json"]));
    assert_eq!(report["stale_sessions"], 1);
    let facts: Vec<_> = report["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["ref"].as_str().unwrap().to_owned(),
                s["environment"].clone(),
            )
        })
        .collect();
    assert!(
        facts.contains(&("github:octo/repo#1".into(), "clean".into())),
        "{report}"
    );
    assert!(
        facts.contains(&(stale.reference.clone(), "stale".into())),
        "{report}"
    );

    // Unreadable environments: no drift claimed, no failure.
    let out = w.the_loop_with(
        &["status"],
        &[(
            "THE_LOOP_PROC_ROOT",
            w.root().join("nothing").to_str().unwrap(),
        )],
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(!stdout(&out).contains("stale"), "{}", stdout(&out));

    // No env file: status says nothing about the environment.
    w.write_raw_config(&format!("state:\n  root: {}\n", w.state.display()));
    let out = w.the_loop(&["status", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(json(&out)["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s["environment"].is_null()));
    assert_no_canary(&out.stdout, &[RETIRED, ROTATED], "stdout");
}

#[test]
fn list_shows_ref_harness_target_status_and_live_state() {
    let w = World::new();
    w.write_env("A=1\n");
    // A model is launched only when the operator declares it.
    w.write_config_with_routing("  models:\n    opus: [high]\n");
    assert!(start(
        &w,
        "github:octo/foo.js#3",
        "foo",
        &["--model", "opus", "--effort", "high"]
    )
    .status
    .success());
    let text = stdout(&w.the_loop(&["sessions", "list"]));
    assert!(
        text.contains("github:octo/foo.js#3")
            && text.contains("loop-github-octo-foo_js-3")
            && text.contains("live")
            && text.contains("opus (high)"),
        "{text}"
    );
    let listed = json(&w.the_loop(&["sessions", "list", "--json"]));
    let row = &listed["sessions"][0];
    assert_eq!(row["ref"], "github:octo/foo.js#3");
    assert_eq!(row["harness"], "claude");
    assert_eq!(row["tmux_target"], "loop-github-octo-foo_js-3");
    assert_eq!(row["status"], "active");
    assert_eq!(row["live"], "live");
    // The record is upstream-compatible and the slug keeps its dot.
    let record: serde_json::Value = serde_json::from_slice(
        &std::fs::read(w.state.join("local/github-octo-foo.js-3.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(record["tmuxTarget"], "loop-github-octo-foo_js-3");
    assert_eq!(record["status"], "active");
    assert_eq!(record["model"], "opus");
    assert!(
        record["harnessSessionId"].as_str().unwrap().len() == 36,
        "a uuid4"
    );
    // remain-on-exit is set on the spawned session.
    assert_eq!(
        w.tmux_ok(&[
            "show-options",
            "-w",
            "-v",
            "-t",
            "=loop-github-octo-foo_js-3:",
            "remain-on-exit"
        ])
        .trim(),
        "on"
    );
}

#[test]
fn start_never_spawns_over_a_live_occupant_and_clears_a_dead_one() {
    let w = World::new();
    w.write_env("A=1\n");
    assert!(start(&w, "github:octo/repo#7", "x", &[]).status.success());
    let pid = w.pane("loop-github-octo-repo-7").unwrap().pid;
    let again = start(&w, "github:octo/repo#7", "x", &[]);
    assert_eq!(again.status.code(), Some(1));
    assert!(
        stderr(&again).contains("is live") && stderr(&again).contains("sessions reset"),
        "names the remedy: {}",
        stderr(&again)
    );
    assert_eq!(
        w.pane("loop-github-octo-repo-7").unwrap().pid,
        pid,
        "occupant untouched"
    );

    // A dead (retained) occupant is cleared and replaced.
    unsafe_kill(pid);
    wait_for(
        || w.pane("loop-github-octo-repo-7").is_some_and(|p| p.dead),
        "pane dead",
    );
    let replaced = start(&w, "github:octo/repo#7", "x", &[]);
    assert!(replaced.status.success(), "{}", stderr(&replaced));
    let pane = w.pane("loop-github-octo-repo-7").unwrap();
    assert!(!pane.dead && pane.pid != pid);
}

fn unsafe_kill(pid: i32) {
    std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .unwrap();
}

#[test]
fn cursor_agent_is_refused_and_nothing_spawns() {
    let w = World::new();
    w.write_env("A=1\n");
    let out = start(
        &w,
        "github:octo/repo#8",
        "c",
        &["--harness", "cursor-agent"],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("cursor-agent cannot be hosted in tmux"),
        "{}",
        stderr(&out)
    );
    assert!(w.pane("loop-github-octo-repo-8").is_none());
}

#[test]
fn the_launcher_starts_only_a_harness_it_can_host() {
    let w = World::new();
    w.write_env("A=1\n");
    let config = w.config_path.to_str().unwrap();
    let exec = |harness: &[&str]| {
        let mut argv = vec![
            "exec",
            "--config",
            config,
            "--work-item",
            "github:octo/repo#9",
        ];
        argv.extend_from_slice(harness);
        argv.extend(["--", "/bin/true"]);
        w.the_loop(&argv)
    };
    // Named, and as a pane started before the flag existed says it: claude.
    assert_eq!(exec(&["--harness", "claude"]).status.code(), Some(0));
    assert_eq!(exec(&[]).status.code(), Some(0));
    let refused = exec(&["--harness", "cursor-agent"]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        stderr(&refused).contains("cursor-agent cannot be hosted in tmux"),
        "{}",
        stderr(&refused)
    );
}

/// Panes run `the-loop exec …` with the subcommand first, which the
/// binary parses apart from the rest of its commands: the same launch,
/// the same usage errors (exit 1), the same refusals.
#[test]
fn the_launcher_as_a_pane_runs_it_builds_the_session_and_reports_errors() {
    let w = World::new();
    w.write_env("A=1\n");
    let harness = w.work.join("print-identity");
    std::fs::write(&harness, "#!/bin/sh\necho \"item=$THE_LOOP_WORK_ITEM\"\n").unwrap();
    std::fs::set_permissions(
        &harness,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let config = w.config_path.to_str().unwrap();
    let launch = |program: &str| {
        w.the_loop_as_given(&[
            "exec",
            "--config",
            config,
            "--work-item",
            "github:octo/repo#9",
            "--",
            program,
        ])
    };
    let out = launch(harness.to_str().unwrap());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "item=github:octo/repo#9\n");

    let missing = launch("/nonexistent/harness");
    assert_eq!(missing.status.code(), Some(1));
    assert!(
        stderr(&missing).contains("cannot start the harness"),
        "{}",
        stderr(&missing)
    );

    let usage = w.the_loop_as_given(&["exec", "--config", config]);
    assert_eq!(usage.status.code(), Some(1), "a usage error exits 1");
    assert!(
        stderr(&usage).contains("the-loop exec"),
        "{}",
        stderr(&usage)
    );
    let help = w.the_loop_as_given(&["exec", "--help"]);
    assert_eq!(help.status.code(), Some(0));
    assert!(
        stdout(&help).contains("Usage: the-loop exec"),
        "{}",
        stdout(&help)
    );
}

#[test]
fn without_an_env_file_a_spawn_is_plain() {
    let w = World::new();
    w.write_raw_config(&format!("state:\n  root: {}\n", w.state.display()));
    let out = w.the_loop_with(
        &[
            "sessions",
            "start",
            "github:octo/repo#9",
            "--cwd",
            w.work.to_str().unwrap(),
        ],
        &[("SLACK_BOT_TOKEN", RETIRED)],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let pane = w.pane("loop-github-octo-repo-9").unwrap();
    wait_for_harness(pane.pid);
    let env = environ(pane.pid);
    assert_eq!(
        env.get("SLACK_BOT_TOKEN").map(String::as_str),
        Some(RETIRED),
        "nothing withheld without an env file"
    );
    assert_eq!(
        env.get("THE_LOOP_WORK_ITEM").map(String::as_str),
        Some("github:octo/repo#9")
    );
}

#[test]
fn a_bad_ref_and_a_broken_env_file_are_clear_errors() {
    let w = World::new();
    w.write_env("A=1\n");
    let out = start(&w, "octo/repo", "r", &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("not a work-item ref"),
        "{}",
        stderr(&out)
    );

    w.write_env("GOOD=1\nBROKEN=\"unterminated-canary-e1e1\nmore\n");
    let out = start(&w, "github:octo/repo#10", "r", &[]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains(".env:2:8"),
        "names the file, line and column: {err}"
    );
    assert_no_canary(err.as_bytes(), &["unterminated-canary-e1e1"], "stderr");
    assert!(w.pane("loop-github-octo-repo-10").is_none());
}
