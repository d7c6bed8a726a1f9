//! tmux not installed, not running, or never answering: nothing touched or respawned.

use super::*;

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
