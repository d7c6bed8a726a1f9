//! Terraform's habits (issue 36): a saved plan is the approval (`apply
//! PLANFILE` asks nothing), `show PLANFILE` reviews one, `validate` checks
//! the config and the env file without tmux, and `plan --env-file` previews
//! a rotation before the new file is swapped in. On a real tmux server.

use crate::support::*;

/// Whether `text` says `want`, wherever a diagnostic wrapped it.
fn has(text: &str, want: &str) -> bool {
    flat(text).contains(&flat(want))
}
use std::time::{Duration, Instant};

fn saved_path(w: &World, name: &str) -> String {
    w.root().join(name).to_str().unwrap().to_owned()
}

/// Session and change lines, the env file line and the summary: what
/// `plan` and `show` must agree on (the footers differ, by design).
fn plan_body(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| {
            l.starts_with("env file:")
                || l.starts_with("Plan:")
                || ["~ ", "= ", "- ", "? ", "! "]
                    .iter()
                    .any(|p| l.starts_with(p))
                || l.starts_with("    ")
        })
        .collect()
}

/// `apply PLANFILE` rolls without a prompt and without a terminal; `apply`
/// of nothing saved still needs `--auto-approve` there, and says how else.
#[test]
fn a_saved_plan_is_the_approval() {
    let w = World::new();
    let sessions = w.rotated_fleet(2, "xoxb-RETIRED-th-1", "xoxb-ROTATED-th-2");
    let out = w.the_loop(&["apply"]);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    assert!(
        has(&stderr(&out), "`the-loop apply tfplan`"),
        "{}",
        explain(&out)
    );

    let saved = saved_path(&w, "tfplan");
    let out = w.the_loop(&["plan", "--out", &saved]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    assert!(
        stdout(&out).contains(&format!(
            "`the-loop apply {saved}` applies exactly it, without asking"
        )),
        "{}",
        explain(&out)
    );
    // stdin is not a terminal here, and no --auto-approve is given.
    let out = w.the_loop(&["apply", &saved]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let text = stdout(&out);
    assert_eq!(text.matches("restarted (verified)").count(), 2, "{text}");
    assert!(!text.contains("Only 'yes'"), "no prompt: {text}");
    let out = w.the_loop(&["plan", "--detailed-exitcode"]);
    assert_eq!(code(&out), Some(0), "rolled: {}", explain(&out));
    drop(sessions);
}

/// On a terminal too, `apply PLANFILE` asks nothing (a prompt would wait
/// for input that never comes, and the test would time out).
#[test]
fn a_saved_plan_is_applied_on_a_terminal_without_asking() {
    let w = World::new();
    let _sessions = w.rotated_fleet(1, "xoxb-RETIRED-th-3", "xoxb-ROTATED-th-4");
    let saved = saved_path(&w, "tfplan");
    let out = w.the_loop(&["plan", "--out", &saved]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let mut pty = w.the_loop_in_pty(&["apply", &saved]);
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = pty.child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "apply waited: {}", pty.screen());
        std::thread::sleep(Duration::from_millis(100));
    };
    let screen = pty.screen();
    assert_eq!(status.code(), Some(0), "{screen}");
    assert!(!screen.contains("Only 'yes'"), "{screen}");
    assert!(screen.contains("restarted (verified)"), "{screen}");
}

/// The staleness checks are as strict as ever: a saved plan whose env file
/// moved on is refused, whatever approves it, and nothing is touched.
#[test]
fn a_stale_saved_plan_is_still_refused_without_a_prompt() {
    let w = World::new();
    let sessions = w.rotated_fleet(1, "xoxb-RETIRED-th-5", "xoxb-ROTATED-th-6");
    let saved = saved_path(&w, "tfplan");
    assert_eq!(code(&w.the_loop(&["plan", "--out", &saved])), Some(0));
    let pid = w.pane(&sessions[0].name).unwrap().pid;
    w.write_env("SLACK_BOT_TOKEN=xoxb-ROTATED-AGAIN-th-7\n");
    let out = w.the_loop(&["apply", &saved]);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    assert!(has(&stderr(&out), "is stale"), "{}", explain(&out));
    assert!(has(&stderr(&out), "SLACK_BOT_TOKEN"), "{}", explain(&out));
    assert_eq!(w.pane(&sessions[0].name).unwrap().pid, pid, "untouched");
}

/// `show PLANFILE` renders the saved plan as `plan` did, and `--json` is
/// the plan itself; anything else is refused, naming the file and never
/// quoting it.
#[test]
fn show_renders_a_saved_plan_and_refuses_anything_else() {
    let w = World::new();
    let _sessions = w.rotated_fleet(2, "xoxb-RETIRED-th-8", "xoxb-ROTATED-th-9");
    let saved = saved_path(&w, "tfplan");
    let planned = w.the_loop(&["plan", "--out", &saved]);
    assert_eq!(code(&planned), Some(0), "{}", explain(&planned));

    let out = w.the_loop(&["show", &saved]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let shown = stdout(&out);
    assert!(
        shown.starts_with(&format!("Saved plan: {saved}")),
        "{shown}"
    );
    let planned_text = stdout(&planned);
    assert_eq!(
        plan_body(&shown),
        plan_body(&planned_text),
        "{shown}\n---\n{planned_text}"
    );
    assert!(plan_body(&shown).len() > 4, "{shown}");
    assert!(
        shown.contains(&format!("`the-loop apply {saved}` respawns these sessions")),
        "{shown}"
    );

    let out = w.the_loop(&["show", &saved, "--json"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&saved).unwrap()).unwrap();
    assert_eq!(json(&out), file);

    // The env file (a secret's home), a config and another document's JSON.
    let status = w.root().join("status.json");
    std::fs::write(&status, stdout(&w.the_loop(&["status", "--json"]))).unwrap();
    for (path, why) in [
        (w.env_path.clone(), "it is not JSON"),
        (w.config_path.clone(), "it is not JSON"),
        (status, "it is JSON, but not"),
    ] {
        let out = w.the_loop(&["show", path.to_str().unwrap()]);
        assert_eq!(code(&out), Some(1), "{}", explain(&out));
        let err = stderr(&out);
        assert!(
            has(&err, &format!("{} is not a saved plan", path.display())) && has(&err, why),
            "{err}"
        );
        assert!(
            !explain(&out).contains("xoxb-ROTATED-th-9"),
            "the env file was quoted: {err}"
        );
    }
}

/// `validate` passes a good config and env file, and gives the loaders'
/// own file:line:column errors for bad ones, in text and in JSON; it needs
/// neither tmux nor the state root.
#[test]
fn validate_checks_the_config_and_env_file_without_tmux() {
    let w = World::new();
    let state = w.root().join("state-not-made");
    w.write_raw_config(&format!(
        "state:\n  root: {}\nenv:\n  file: .env\n  deliver: [DELIVERED]\n",
        state.display()
    ));
    w.write_env("SLACK_BOT_TOKEN=xoxb-val-1\nDELIVERED=dlv-val-2\n");
    // No tmux anywhere: PATH holds nothing.
    let bare = [("PATH", "/nonexistent")];
    let out = w.the_loop_with(&["validate"], &bare);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    assert!(
        stdout(&out).contains("The configuration is valid."),
        "{}",
        explain(&out)
    );
    assert!(
        stdout(&out).contains("(2 names declared)"),
        "{}",
        explain(&out)
    );
    let out = w.the_loop_with(&["validate", "--json"], &bare);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let report = json(&out);
    assert_eq!(report["valid"], true);
    assert_eq!(report["names"], 2);
    assert_eq!(report["env_file"], w.env_path.to_str().unwrap());
    assert_eq!(report["errors"], serde_json::json!([]));

    // A candidate with an unterminated quote on line 2, column 11.
    let candidate = w.root().join("candidate.env");
    std::fs::write(
        &candidate,
        "SLACK_BOT_TOKEN=ok\nDELIVERED=\"dlv-secret-3\nREST=x\n",
    )
    .unwrap();
    let c = candidate.to_str().unwrap();
    let out = w.the_loop_with(&["validate", "--env-file", c], &bare);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    assert!(
        has(&stderr(&out), &format!("{c}:2:11: unterminated")),
        "{}",
        explain(&out)
    );
    let out = w.the_loop_with(&["validate", "--env-file", c, "--json"], &bare);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    let report = json(&out);
    assert_eq!(report["valid"], false);
    assert_eq!(report["candidate"], true);
    let error = &report["errors"][0];
    assert_eq!(error["code"], "the_loop::envfile::syntax");
    assert_eq!(
        (
            error["file"].as_str(),
            error["line"].as_u64(),
            error["column"].as_u64()
        ),
        (Some(c), Some(2), Some(11))
    );
    assert!(
        !explain(&out).contains("dlv-secret-3"),
        "a value was printed"
    );

    // A candidate that drops a delivered name breaks the policy.
    std::fs::write(&candidate, "SLACK_BOT_TOKEN=ok\n").unwrap();
    let out = w.the_loop_with(&["validate", "--env-file", c], &bare);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    assert!(
        has(&stderr(&out), "env.deliver names DELIVERED"),
        "{}",
        explain(&out)
    );
    // The configured file is still fine: the candidate was checked instead.
    assert_eq!(code(&w.the_loop_with(&["validate"], &bare)), Some(0));

    // A config mistake: its file, line, column and key.
    w.write_raw_config("env:\n  file: .env\n  delivr: [DELIVERED]\n");
    let out = w.the_loop_with(&["validate", "--json"], &bare);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    let error = &json(&out)["errors"][0];
    assert_eq!(error["code"], "the_loop::config::invalid");
    assert_eq!(
        (error["line"].as_u64(), error["column"].as_u64()),
        (Some(3), Some(3))
    );
    assert_eq!(error["help"], "did you mean `deliver`?");
    assert!(!state.exists(), "validate created the state root");

    // Every field is in the published schema.
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/schemas/validate.schema.json"
        ))
        .unwrap(),
    )
    .unwrap();
    for key in report.as_object().unwrap().keys() {
        assert!(
            schema["properties"].get(key).is_some(),
            "{key} is not in the schema"
        );
    }
}

/// `plan --env-file CANDIDATE` plans the rotation to the candidate while
/// env.file stays as it is; its saved plan is refused until env.file holds
/// what the candidate held, and applies once it does.
#[test]
fn a_candidate_env_file_previews_a_rotation_and_its_saved_plan_waits_for_the_swap() {
    let w = World::new();
    w.write_config("  deliver: [DELIVERED]\n");
    w.write_env(
        "SLACK_BOT_TOKEN=xoxb-now-cd-1-Lo8Ty3Eb6Sv1\nDELIVERED=dlv-now-cd-2-Qx7Lm9Pz4Rw8\n",
    );
    let a = w.started_session("github:octo/repo#31", "github-octo-repo-31");
    let b = w.started_session("github:octo/repo#32", "github-octo-repo-32");
    for s in [&a, &b] {
        wait_for_harness(w.pane(&s.name).unwrap().pid);
    }
    let out = w.the_loop(&["plan", "--detailed-exitcode"]);
    assert_eq!(code(&out), Some(0), "started up to date: {}", explain(&out));

    let candidate = w.root().join("next.env");
    std::fs::write(
        &candidate,
        "SLACK_BOT_TOKEN=xoxb-next-cd-3-Ap4Ge7Ur2Ni5\nDELIVERED=dlv-next-cd-4-Hs3Vt8Kn2Yb6\n",
    )
    .unwrap();
    let c = candidate.to_str().unwrap();
    let out = w.the_loop(&["plan", "--env-file", c, "--json", "--detailed-exitcode"]);
    assert_eq!(
        code(&out),
        Some(2),
        "the rotation is drift: {}",
        explain(&out)
    );
    let plan = json(&out);
    assert_eq!(plan["env_file"], c);
    assert_eq!(plan["candidate_for"], w.env_path.to_str().unwrap());
    for session in plan["sessions"].as_array().unwrap() {
        assert_eq!(session["action"], "respawn", "{session}");
        let change = &session["changes"][0];
        assert_eq!(change["name"], "DELIVERED");
        assert_eq!(change["have"], fp("dlv-now-cd-2-Qx7Lm9Pz4Rw8").as_str());
        assert_eq!(change["want"], fp("dlv-next-cd-4-Hs3Vt8Kn2Yb6").as_str());
    }
    // The candidate of the configured file itself is a plain plan.
    let out = w.the_loop(&["plan", "--env-file", w.env_path.to_str().unwrap(), "--json"]);
    assert_eq!(json(&out)["candidate_for"], serde_json::Value::Null);
    // env.file was neither read for the plan nor changed.
    assert_eq!(code(&w.the_loop(&["plan", "--detailed-exitcode"])), Some(0));

    let saved = saved_path(&w, "rotation.tfplan");
    let out = w.the_loop(&["plan", "--env-file", c, "--out", &saved]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let text = stdout(&out);
    assert!(
        text.contains(&format!(
            "a candidate for env.file {}",
            w.env_path.display()
        )),
        "{text}"
    );
    assert!(text.contains("Swap the candidate in, then apply"), "{text}");
    let pids: Vec<i32> = [&a, &b]
        .iter()
        .map(|s| w.pane(&s.name).unwrap().pid)
        .collect();

    // Before the swap: refused, untouched.
    let out = w.the_loop(&["apply", &saved]);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    assert!(
        has(&stderr(&out), "does not hold it yet"),
        "{}",
        explain(&out)
    );
    assert_eq!(
        pids,
        [&a, &b]
            .iter()
            .map(|s| w.pane(&s.name).unwrap().pid)
            .collect::<Vec<_>>()
    );
    // Another value still is not the candidate.
    w.write_env(
        "SLACK_BOT_TOKEN=xoxb-next-cd-3-Ap4Ge7Ur2Ni5\nDELIVERED=dlv-other-cd-5-Jd5Wq1Zc9Mf3\n",
    );
    let out = w.the_loop(&["apply", &saved]);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    assert!(
        has(&stderr(&out), "does not hold it yet"),
        "{}",
        explain(&out)
    );

    // Swapped in (as `mv next.env .env` would): applied, no prompt.
    std::fs::rename(&candidate, &w.env_path).unwrap();
    let out = w.the_loop(&["apply", &saved, "--json"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    for s in [&a, &b] {
        let pid = w.pane(&s.name).unwrap().pid;
        wait_for_harness(pid);
        assert_eq!(
            environ(pid).get("DELIVERED").map(String::as_str),
            Some("dlv-next-cd-4-Hs3Vt8Kn2Yb6")
        );
    }
    assert_eq!(code(&w.the_loop(&["plan", "--detailed-exitcode"])), Some(0));
}

/// A candidate needs an env.file to be a candidate for.
#[test]
fn a_candidate_without_a_configured_env_file_is_refused() {
    let w = World::new();
    w.write_raw_config(&format!("state:\n  root: {}\n", w.state.display()));
    let candidate = w.root().join("next.env");
    std::fs::write(&candidate, "A=1\n").unwrap();
    let out = w.the_loop(&["plan", "--env-file", candidate.to_str().unwrap()]);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    assert!(
        has(&stderr(&out), "no env.file is configured"),
        "{}",
        explain(&out)
    );
    // validate checks the candidate on its own.
    let out = w.the_loop(&["validate", "--env-file", candidate.to_str().unwrap()]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
}
