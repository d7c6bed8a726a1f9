//! The reporter's case on a real tmux: a server frozen on a retired token,
//! sessions holding it, a rotation, and `plan` naming the drift by
//! fingerprint only. Also: sessions spawned after the rotation are not born stale.

use crate::support::*;

const RETIRED: &str = "xoxb-bot-b-RETIRED-canary-7f3a";
const ROTATED: &str = "xoxb-bot-a-ROTATED-canary-91c2";

#[test]
fn plan_names_sessions_still_on_the_retired_token() {
    let w = World::new();
    w.write_env(&format!("SLACK_BOT_TOKEN={RETIRED}\n"));
    w.start_server_holding(&[("SLACK_BOT_TOKEN", RETIRED)]);
    let a = w.legacy_session("github:octo/repo#15", "github-octo-repo-15");
    let b = w.legacy_session("github:octo/repo#16", "github-octo-repo-16");
    for s in [&a, &b] {
        let pid = w.pane(&s.name).unwrap().pid;
        assert_eq!(
            environ(pid).get("SLACK_BOT_TOKEN").map(String::as_str),
            Some(RETIRED),
            "born on the retired token"
        );
    }

    w.write_env(&format!("# rotated\nSLACK_BOT_TOKEN={ROTATED}\n"));
    let text = w.the_loop(&["plan", "--detailed-exitcode"]);
    assert_eq!(
        text.status.code(),
        Some(2),
        "drift observed: {}{}",
        stdout(&text),
        stderr(&text)
    );
    let shown = stdout(&text);
    assert!(
        shown.contains("github:octo/repo#15") && shown.contains("github:octo/repo#16"),
        "{shown}"
    );
    assert!(
        shown.contains(&fp(RETIRED)),
        "have fingerprint shown: {shown}"
    );
    assert!(shown.contains("stale"), "{shown}");

    let out = w.the_loop(&["plan", "--json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "plain plan exits 0 even with drift"
    );
    let plan = json(&out);
    assert_eq!(plan["format_version"], "1");
    for s in [&a, &b] {
        let session = plan["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["ref"] == s.reference.as_str())
            .expect("session in plan");
        assert_eq!(session["action"], "respawn");
        assert_eq!(session["observation"], "read");
        assert_eq!(session["tmux_target"], s.name.as_str());
        let change = session["changes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == "SLACK_BOT_TOKEN")
            .expect("token change");
        assert_eq!(change["have"], fp(RETIRED).as_str());
        assert_eq!(
            change["want"],
            serde_json::Value::Null,
            "withheld: must be absent"
        );
        assert_eq!(change["case"], "stale");
    }

    // A session spawned after the rotation holds no withheld name, even
    // though the tmux server and the caller both hold the retired value.
    let cwd = w.work.join("fresh");
    std::fs::create_dir_all(&cwd).unwrap();
    let started = w.the_loop_with(
        &[
            "sessions",
            "start",
            "github:octo/repo#17",
            "--cwd",
            cwd.to_str().unwrap(),
        ],
        &[("SLACK_BOT_TOKEN", RETIRED)],
    );
    assert!(started.status.success(), "start: {}", stderr(&started));
    let pane = w.pane("loop-github-octo-repo-17").expect("spawned");
    wait_for_harness(pane.pid);
    let env = environ(pane.pid);
    assert!(
        !env.contains_key("SLACK_BOT_TOKEN"),
        "withheld name reached the pane"
    );
    assert_eq!(
        env.get("THE_LOOP_WORK_ITEM").map(String::as_str),
        Some("github:octo/repo#17")
    );
    assert_eq!(
        env.get("THE_LOOP_CLI_CONFIG").map(PathBuf::from),
        Some(w.config_path.clone())
    );

    let after = w.the_loop(&["plan", "--json", "--target", "github:octo/repo#17"]);
    let plan = json(&after);
    assert_eq!(plan["sessions"][0]["action"], "none", "{plan}");

    for out in [&text, &out, &started, &after] {
        assert_no_canary(&out.stdout, &[RETIRED, ROTATED], "stdout");
        assert_no_canary(&out.stderr, &[RETIRED, ROTATED], "stderr");
    }
    for (path, bytes) in w.state_files() {
        assert_no_canary(&bytes, &[RETIRED, ROTATED], &path.display().to_string());
    }
}

use std::path::PathBuf;

#[test]
fn delivered_names_carry_the_files_value_at_spawn() {
    let w = World::new();
    w.write_config("  deliver: [SLACK_BOT_TOKEN]\n");
    w.write_env(&format!(
        "SLACK_BOT_TOKEN={ROTATED}\nOTHER_SECRET=sekrit-canary-5d1e\n"
    ));
    // The-loop starts the tmux server itself here; the caller holds the
    // retired value, which the server would otherwise freeze.
    let cwd = w.work.join("d");
    std::fs::create_dir_all(&cwd).unwrap();
    let out = w.the_loop_with(
        &[
            "sessions",
            "start",
            "github:octo/repo#21",
            "--cwd",
            cwd.to_str().unwrap(),
            "--prompt",
            "begin",
        ],
        &[
            ("SLACK_BOT_TOKEN", RETIRED),
            ("OTHER_SECRET", "sekrit-canary-5d1e"),
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let pane = w.pane("loop-github-octo-repo-21").unwrap();
    wait_for_harness(pane.pid);
    let env = environ(pane.pid);
    assert_eq!(
        env.get("SLACK_BOT_TOKEN").map(String::as_str),
        Some(ROTATED)
    );
    assert!(!env.contains_key("OTHER_SECRET"));
    // No value in any argv, the tmux server's included.
    let server_pid: i32 = w
        .tmux_ok(&["display-message", "-p", "#{pid}"])
        .trim()
        .parse()
        .unwrap();
    for pid in [server_pid, pane.pid] {
        assert_no_canary(
            cmdline(pid).join(" ").as_bytes(),
            &[RETIRED, ROTATED, "sekrit-canary-5d1e"],
            "argv",
        );
    }
    let plan = w.the_loop(&["plan", "--detailed-exitcode"]);
    assert_eq!(plan.status.code(), Some(0), "{}", stdout(&plan));

    // Rotate again: the delivered value is now stale.
    w.write_env("SLACK_BOT_TOKEN=next-canary-aa01\nOTHER_SECRET=sekrit-canary-5d1e\n");
    let plan = json(&w.the_loop(&["plan", "--json"]));
    let change = &plan["sessions"][0]["changes"][0];
    assert_eq!(change["name"], "SLACK_BOT_TOKEN");
    assert_eq!(change["have"], fp(ROTATED).as_str());
    assert_eq!(change["want"], fp("next-canary-aa01").as_str());
}

#[test]
fn exposed_unmanaged_skipped_and_unverified_are_told_apart() {
    let w = World::new();
    w.write_env(&format!("SLACK_BOT_TOKEN={ROTATED}\n"));
    w.start_server_holding(&[("SLACK_BOT_TOKEN", ROTATED)]);
    let exposed = w.legacy_session("github:octo/repo#1", "github-octo-repo-1");
    // A loop-* session with no record: unmanaged, left alone.
    w.unrecorded_loop_session("loop-stranger");
    // A registered session that is not running.
    let gone = w.legacy_session("github:octo/repo#2", "github-octo-repo-2");
    w.tmux_ok(&["kill-session", "-t", &format!("={}", gone.name)]);
    // A closed record.
    let closed = w.legacy_session("github:octo/repo#3", "github-octo-repo-3");
    w.write_record(&closed, "closed");

    let plan = json(&w.the_loop(&["plan", "--json"]));
    let by = |label: &str| {
        plan["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["ref"] == label || s["tmux_target"] == label)
            .cloned()
            .unwrap()
    };
    let e = by(&exposed.reference);
    assert_eq!(e["action"], "respawn");
    assert_eq!(e["changes"][0]["case"], "exposed");
    assert_eq!(e["changes"][0]["have"], fp(ROTATED).as_str());
    let u = by("loop-stranger");
    assert_eq!(u["kind"], "unmanaged");
    assert_eq!(u["action"], "skip");
    assert_eq!(by(&gone.reference)["reason"], "not running");
    assert_eq!(by(&closed.reference)["reason"], "record is closed");

    // Unreadable environments are unverified, never drift.
    let out = w.the_loop_with(
        &["plan", "--json", "--detailed-exitcode"],
        &[(
            "THE_LOOP_PROC_ROOT",
            w.root().join("no-proc").to_str().unwrap(),
        )],
    );
    assert_eq!(out.status.code(), Some(0), "unobserved drift is not drift");
    let plan = json(&out);
    let e = plan["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["ref"] == exposed.reference.as_str())
        .unwrap()
        .clone();
    assert_eq!(e["observation"], "unverified");
    assert_eq!(e["action"], "skip");
    assert!(e["reason"].as_str().unwrap().starts_with("unverified"));
}

#[test]
fn plan_refuses_without_an_env_file() {
    let w = World::new();
    w.write_raw_config(&format!("state:\n  root: {}\n", w.state.display()));
    let out = w.the_loop(&["plan"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("no env.file is configured"),
        "{}",
        stderr(&out)
    );
}

/// `attached` counts the tmux clients on each session (docs/contracts.md,
/// "Safe points"), read in the same pane listing: a control-mode client is one.
#[test]
fn plan_counts_the_clients_attached_to_each_session() {
    let w = World::new();
    w.write_env("SLACK_BOT_TOKEN=current-value-1234\n");
    let watched = w.legacy_session("github:octo/repo#15", "github-octo-repo-15");
    let alone = w.legacy_session("github:octo/repo#16", "github-octo-repo-16");
    let mut client = std::process::Command::new("tmux")
        .env_remove("TMUX")
        .env("TMUX_TMPDIR", &w.tmux_tmpdir)
        .args(["-f", "/dev/null", "-C", "attach", "-t", &watched.name])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("tmux -C attach");
    wait_for(|| w.clients().len() == 1, "the control client attached");
    let plan = json(&w.the_loop(&["plan", "--json"]));
    let attached = |s: &LegacySession| {
        plan["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["ref"] == s.reference.as_str())
            .expect("session in plan")["attached"]
            .clone()
    };
    assert_eq!(attached(&watched), 1, "{plan}");
    assert_eq!(attached(&alone), 0, "{plan}");
    drop(client.stdin.take());
    let _ = client.kill();
    let _ = client.wait();
}
