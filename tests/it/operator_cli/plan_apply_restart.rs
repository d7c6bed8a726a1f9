//! What plan, apply and restart say and do: footers, saved plans, `--lock-timeout`.

use super::*;

/// The plan predicts what apply does: a drifted session whose conversation
/// cannot be resumed is shown as left alone, not "will be respawned", and
/// apply then indeed leaves it alone.
#[test]
fn plan_predicts_that_apply_leaves_an_unresumable_session_alone() {
    let w = World::new();
    let sessions = w.rotated_fleet(2, "xoxb-RETIRED-un-1", "xoxb-ROTATED-un-2");
    let (lost, kept) = (&sessions[0], &sessions[1]);
    // The record now names a conversation with no transcript.
    w.edit_record(&lost.slug, |r| {
        r["harnessSessionId"] = "0-no-such-conversation".into()
    });
    let lost_pid = w.pane(&lost.name).unwrap().pid;

    let text = w.the_loop(&["plan", "--detailed-exitcode"]);
    assert_eq!(code(&text), Some(2), "still drift: {}", explain(&text));
    let shown = stdout(&text);
    let line = shown.lines().find(|l| l.contains(&lost.reference)).unwrap();
    assert!(
        line.contains("drifted, but will be left alone: unresumable: no transcript"),
        "{shown}"
    );
    assert!(!line.contains("will be respawned"), "{shown}");
    assert!(
        shown.contains("Plan: 1 to respawn, 1 drifted but left alone,"),
        "{shown}"
    );
    let planned = json(&w.the_loop(&["plan", "--json"]));
    assert_eq!(session_in(&planned, &lost.reference)["action"], "respawn");
    assert!(session_in(&planned, &lost.reference)["left_alone"]
        .as_str()
        .unwrap()
        .starts_with("unresumable"));
    assert_eq!(
        session_in(&planned, &kept.reference)["left_alone"],
        serde_json::Value::Null
    );

    let out = w.the_loop(&["apply", "--auto-approve", "--json"]);
    assert_eq!(code(&out), Some(1), "left stale: {}", explain(&out));
    let report = json(&out);
    assert_eq!(
        session_in(&report, &lost.reference)["outcome"],
        "left_alone"
    );
    assert_eq!(session_in(&report, &kept.reference)["outcome"], "restarted");
    assert_eq!(w.pane(&lost.name).unwrap().pid, lost_pid, "not touched");
}

/// `sessions restart REF` on a session with no drift: the footer says it
/// will restart that session (not "No drift … Run `the-loop apply`"), and
/// it does.
#[test]
fn restart_footer_says_what_the_restart_does() {
    let w = World::new();
    w.write_env("SLACK_BOT_TOKEN=xoxb-footer-1\n");
    let s = w.started_session("github:octo/repo#7", "github-octo-repo-7");
    let before = w.pane(&s.name).unwrap().pid;

    let dry = w.the_loop(&["sessions", "restart", &s.reference, "--dry-run"]);
    assert_eq!(code(&dry), Some(0), "{}", explain(&dry));
    assert!(
        stdout(&dry).contains("sessions restart would restart 1 session(s) in place (0 drifted)"),
        "{}",
        explain(&dry)
    );
    assert_eq!(
        w.pane(&s.name).unwrap().pid,
        before,
        "dry run touched nothing"
    );

    let out = w.the_loop(&["sessions", "restart", &s.reference]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let shown = stdout(&out);
    assert!(!shown.contains("No drift"), "{shown}");
    assert!(!shown.contains("Run `the-loop apply`"), "{shown}");
    assert!(
        shown.contains("sessions restart will restart 1 session(s) in place (0 drifted)"),
        "{shown}"
    );
    assert!(shown.contains("up to date; will be restarted"), "{shown}");
    assert_ne!(w.pane(&s.name).unwrap().pid, before, "it was restarted");

    // apply on the same clean fleet: nothing to do, and it says so.
    let out = w.the_loop(&["apply", "--auto-approve"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    assert!(stdout(&out).contains("No drift"), "{}", explain(&out));
}

/// `apply --plan FILE --target REF` applies the saved plan to that session
/// alone; it used to refuse the plan as stale, claiming the other sessions
/// were "no longer registered". `apply FILE` (Terraform's positional form)
/// does the same as `--plan FILE`.
#[test]
fn a_saved_plan_applies_to_a_target_and_as_a_positional_argument() {
    let w = World::new();
    let sessions = w.rotated_fleet(3, "xoxb-RETIRED-sp-1", "xoxb-ROTATED-sp-2");
    let pids: Vec<i32> = sessions
        .iter()
        .map(|s| w.pane(&s.name).unwrap().pid)
        .collect();
    let saved = w.root().join("fleet.plan");
    let out = w.the_loop(&["plan", "--out", saved.to_str().unwrap()]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));

    let out = w.the_loop(&[
        "apply",
        "--plan",
        saved.to_str().unwrap(),
        "--target",
        &sessions[0].reference,
        "--auto-approve",
        "--json",
    ]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let report = json(&out);
    assert_eq!(
        session_in(&report, &sessions[0].reference)["outcome"],
        "restarted"
    );
    assert_eq!(report["sessions"].as_array().unwrap().len(), 1, "{report}");
    assert_ne!(w.pane(&sessions[0].name).unwrap().pid, pids[0]);
    assert_eq!(
        w.pane(&sessions[1].name).unwrap().pid,
        pids[1],
        "not targeted"
    );
    assert_eq!(
        w.pane(&sessions[2].name).unwrap().pid,
        pids[2],
        "not targeted"
    );

    // The positional form; the session already rolled has moved on since the
    // plan was saved, so the plan is stale for it and refused…
    let out = w.the_loop(&["apply", saved.to_str().unwrap(), "--auto-approve"]);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    assert!(stderr(&out).contains("is stale"), "{}", explain(&out));
    assert!(
        stderr(&out).contains(&format!("pane pid of {}", sessions[0].reference)),
        "{}",
        explain(&out)
    );
    assert_eq!(
        w.pane(&sessions[1].name).unwrap().pid,
        pids[1],
        "refused: untouched"
    );
    // …but still good for the sessions that have not.
    let out = w.the_loop(&[
        "apply",
        saved.to_str().unwrap(),
        "--target",
        &sessions[1].reference,
        "--target",
        &sessions[2].reference,
        "--auto-approve",
    ]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    assert_ne!(w.pane(&sessions[1].name).unwrap().pid, pids[1]);
    assert_ne!(w.pane(&sessions[2].name).unwrap().pid, pids[2]);

    // Both forms at once is a usage error.
    let out = w.the_loop(&["apply", "a.plan", "--plan", "b.plan"]);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    // A target the saved plan does not hold is refused, naming it.
    let one = w.root().join("one.plan");
    let out = w.the_loop(&[
        "plan",
        "--target",
        &sessions[0].reference,
        "--out",
        one.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let out = w.the_loop(&[
        "apply",
        one.to_str().unwrap(),
        "--target",
        &sessions[1].reference,
        "--auto-approve",
    ]);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    assert!(
        stderr(&out).contains(&sessions[1].reference),
        "{}",
        explain(&out)
    );
}

/// Two real applies at once: with `--lock-timeout` the second waits for the
/// first, saying who holds the lock, then runs; without it (or with too
/// short a wait) it refuses, naming the holder.
#[test]
fn lock_timeout_waits_for_a_running_apply_and_names_the_holder() {
    let w = World::new();
    let sessions = w.rotated_fleet(1, "xoxb-RETIRED-lk-1", "xoxb-ROTATED-lk-2");
    // The harness ignores SIGTERM, so the first roll waits out the 3 s grace.
    std::fs::write(w.transcript(&sessions[0]), "{\"test\":\"ignore-term\"}\n").unwrap();
    let mut first = w
        .the_loop_command(&["apply", "--auto-approve"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    wait_for(
        || std::fs::read_to_string(w.state.join("apply.lock")).is_ok_and(|t| t.contains("pid")),
        "the first apply holds the lock",
    );
    let holder = format!("pid {} (apply", first.id());

    let short = w.the_loop(&["sessions", "restart", "--all", "--lock-timeout", "300ms"]);
    assert_eq!(code(&short), Some(1), "{}", explain(&short));
    assert!(
        stderr(&short).contains("waiting up to 1s for the apply lock, held by"),
        "{}",
        explain(&short)
    );
    assert!(
        stderr(&short).contains("another apply or restart is running"),
        "{}",
        explain(&short)
    );
    assert!(stderr(&short).contains(&holder), "{}", explain(&short));

    // That it waited is shown by its own words below and by finding the
    // first apply's work done; a wall-clock bound would only add a race
    // with the first apply's remaining time.
    let second = w.the_loop(&["apply", "--auto-approve", "--lock-timeout", "2m"]);
    let first_status = first.wait().unwrap();
    assert!(first_status.success(), "the first apply finished");
    assert_eq!(code(&second), Some(0), "{}", explain(&second));
    assert!(
        stderr(&second).contains(&format!(
            "waiting up to 120s for the apply lock, held by {holder}"
        )),
        "{}",
        explain(&second)
    );
    // The first one rolled the session; the second found nothing left to do.
    assert!(stdout(&second).contains("No drift"), "{}", explain(&second));

    for bad in ["5x", "25h", "-1s", "99999999999999999999h"] {
        let out = w.the_loop(&["apply", &format!("--lock-timeout={bad}")]);
        assert_eq!(code(&out), Some(1), "{bad}: {}", explain(&out));
        assert!(stderr(&out).contains("--lock-timeout"), "{}", explain(&out));
    }
}
