//! Pause, stop and close: suppressed delivery, SIGTERM then SIGKILL, authorized cleanup on close.

use super::*;

#[test]
fn pause_suppresses_delivery_and_leaves_the_session_writable() {
    let w = world();
    let s = w.started_session("github:octo/repo#16", "github-octo-repo-16");
    let pane = w.pane(&s.name).unwrap();
    let out = w.the_loop(&["sessions", "pause", &s.reference]);
    assert!(out.status.success(), "{}", explain(&out));
    assert_eq!(w.record(&s.slug).unwrap()["status"], "paused");

    let held = deliver(&w, &s.reference, "held back", "p-1");
    assert_eq!(code(&held), Some(2), "{}", explain(&held));
    assert_eq!(json(&held)["outcome"], "suppressed");
    assert_eq!(w.pane(&s.name).unwrap(), pane, "tmux session untouched");

    // A person attached to the paused session can still type into it.
    let mut person = w.the_loop_in_pty(&["sessions", "attach", &s.reference]);
    wait_for(
        || w.clients().iter().any(|c| !c.read_only),
        "a read-write client is attached",
    );
    // Let the client finish talking to its terminal before typing.
    std::thread::sleep(Duration::from_millis(500));
    person.type_text("typed by a person\r");
    assert_eq!(wait_for_inputs(&w, &s, 1), ["typed by a person"]);
    drop(person);

    let out = w.the_loop(&["sessions", "resume", &s.reference]);
    assert!(out.status.success(), "{}", explain(&out));
    let through = deliver(&w, &s.reference, "let through", "p-1");
    assert_eq!(code(&through), Some(0), "{}", explain(&through));
    assert_eq!(
        wait_for_inputs(&w, &s, 2)[1],
        pasted("let through"),
        "the suppressed id was not recorded"
    );
    assert_eq!(w.events_named("session.paused").len(), 1);
    assert_eq!(w.events_named("session.resumed").len(), 1);
}

#[test]
fn stop_re_sets_remain_on_exit_and_ends_the_harness_with_sigterm() {
    let w = world();
    // A grace no loaded machine outlasts: the stand-in handles SIGTERM at
    // once, and this test is about SIGTERM, not about the grace (once, under
    // a load of 30, the 3 s grace ran out first and the ending was `killed`).
    write_routing(
        &w,
        "  tmux:\n    resumeProbeSeconds: 0.5\n    harnessKillGraceSeconds: 30\n",
    );
    let s = w.started_session("github:octo/repo#17", "github-octo-repo-17");
    // Someone turned remain-on-exit off; the close must turn it on again
    // before the harness ends, or the session would vanish with it.
    w.tmux_ok(&[
        "set-option",
        "-w",
        "-t",
        &format!("={}:", s.name),
        "remain-on-exit",
        "off",
    ]);
    let out = w.the_loop(&["sessions", "stop", &s.reference, "--json"]);
    assert!(out.status.success(), "{}", explain(&out));
    let report = json(&out);
    assert_eq!(report["close"]["tmux"], "retained");
    assert_eq!(report["close"]["harness"][0]["ending"], "terminated");
    assert!(w.transcript_text(&s).contains("\"signal\":\"TERM\""));
    assert!(
        w.pane(&s.name).expect("kept").dead,
        "record, not a live TUI"
    );
    assert_eq!(w.record(&s.slug).unwrap()["status"], "closed");
    assert_eq!(w.events_named("session.retained").len(), 1);
    assert_eq!(w.events_named("session.harness_terminated").len(), 1);
    // A closed session takes no deliveries.
    let out = deliver(&w, &s.reference, "too late", "late-1");
    assert_eq!(json(&out)["outcome"], "ignored");
}

#[test]
fn a_harness_that_ignores_sigterm_gets_sigkill_after_the_grace_period() {
    let w = world();
    let slug = "github-octo-repo-18";
    let cwd = w.work.join(slug);
    std::fs::create_dir_all(&cwd).unwrap();
    let probe = LegacySession {
        reference: "github:octo/repo#18".into(),
        slug: slug.into(),
        name: format!("loop-{slug}"),
        session_id: format!("0000-{slug}"),
        cwd: cwd.clone(),
    };
    std::fs::create_dir_all(w.transcript(&probe).parent().unwrap()).unwrap();
    std::fs::write(w.transcript(&probe), "{\"ignore-term\":true}\n").unwrap();
    let s = w.legacy_session(&probe.reference, slug);
    wait_for(
        || {
            stdout(&w.tmux(&["capture-pane", "-p", "-t", &format!("={}:", s.name)]))
                .contains("stand-in claude: conversation")
        },
        "the harness set its signal handlers",
    );

    let started = Instant::now();
    let out = w.the_loop(&["sessions", "stop", &s.reference, "--json"]);
    let took = started.elapsed();
    assert!(out.status.success(), "{}", explain(&out));
    assert_eq!(json(&out)["close"]["harness"][0]["ending"], "killed");
    assert!(
        w.transcript_text(&s).contains("TERM-ignored"),
        "SIGTERM came first"
    );
    assert!(
        took >= Duration::from_secs(3),
        "waited the grace ({took:?})"
    );
    assert!(w.pane(&s.name).unwrap().dead);
}

#[test]
fn close_kill_tmux_ends_the_harness_then_kills_the_session() {
    let w = world();
    let s = w.started_session("github:octo/repo#19", "github-octo-repo-19");
    let out = w.the_loop(&["sessions", "close", &s.reference, "--kill-tmux", "--json"]);
    assert!(out.status.success(), "{}", explain(&out));
    assert_eq!(json(&out)["close"]["tmux"], "killed");
    assert!(w.pane(&s.name).is_none());
    assert!(w.transcript_text(&s).contains("\"signal\":\"TERM\""));
    assert_eq!(w.record(&s.slug).unwrap()["status"], "closed");
}

#[test]
fn a_recorded_target_that_is_not_a_loop_session_is_never_signalled() {
    let w = world();
    let s = w.started_session("github:octo/repo#20", "github-octo-repo-20");
    w.tmux_ok(&["new-session", "-d", "-s", "work", "sleep 100000"]);
    let bystander = w.pane("work").unwrap();
    w.edit_record(&s.slug, |r| r["tmuxTarget"] = "work".into());

    // Nothing is pasted into it, and nothing is spawned under its name.
    let out = deliver(&w, &s.reference, "not for you", "foreign-1");
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    assert_eq!(json(&out)["outcome"], "failed");

    // Refused whole: the record stays as it was, to be mended
    // (tests/it/ownership.rs has the other ways a record can lie).
    let out = w.the_loop(&["sessions", "stop", &s.reference]);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    assert!(
        flat(&stderr(&out)).contains(&flat("which is not a the-loop session")),
        "{}",
        explain(&out)
    );
    assert_eq!(w.pane("work").unwrap(), bystander, "untouched");
    assert_eq!(w.record(&s.slug).unwrap()["status"], "active");
}

#[test]
fn close_cleans_up_only_for_an_authorized_actor() {
    let w = workspace_world("  authorizedUsers: [Octocat]\n");
    let s = w.started_session("github:octo/repo#21", "github-octo-repo-21");

    let out = w.the_loop(&["sessions", "close", &s.reference, "--json"]);
    assert!(out.status.success(), "{}", explain(&out));
    assert_eq!(json(&out)["cleanup_deferred"], "no-actor");
    let out = w.the_loop(&[
        "sessions",
        "close",
        &s.reference,
        "--actor",
        "mallory",
        "--json",
    ]);
    assert_eq!(json(&out)["cleanup_deferred"], "unauthorized-actor");
    assert!(
        s.cwd.is_dir() && w.record(&s.slug).is_some(),
        "nothing released"
    );
    let deferred: Vec<_> = w
        .events_named("cleanup.deferred")
        .iter()
        .map(|e| e["reason"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(deferred, ["no-actor", "unauthorized-actor"]);

    let out = w.the_loop(&[
        "sessions",
        "close",
        &s.reference,
        "--actor",
        "octocat",
        "--json",
    ]);
    assert!(out.status.success(), "{}", explain(&out));
    let report = json(&out);
    assert_eq!(report["cleanup"]["record_deleted"], true);
    assert!(w.record(&s.slug).is_none());
    assert!(
        !s.cwd.exists(),
        "the checkout inside the workspace root went"
    );
    assert!(w.pane(&s.name).is_none());
}
