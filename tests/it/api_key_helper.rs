//! A delivered `ANTHROPIC_API_KEY` reaches the harness through Claude
//! Code's `apiKeyHelper` (the-loop's hidden `api-key-helper`), never through
//! the pane's environment, so a rotation needs no respawn and never stops a
//! session at the API-key dialog. The helper prints only to a pipe.

use crate::support::*;

const OLD: &str = "sk-ant-canary-helper-OLD-7f3a";
const NEW: &str = "sk-ant-canary-helper-NEW-c41e";
const CANARIES: &[&str] = &[OLD, NEW];

fn helper_fp(w: &World, s: &LegacySession) -> Option<String> {
    w.transcript_text(s).lines().rev().find_map(|line| {
        let v: serde_json::Value = serde_json::from_str(line).ok()?;
        (v["type"] == "api_key").then(|| v["fp"].as_str().unwrap_or_default().to_owned())
    })
}

fn assert_clean(w: &World, outs: &[&std::process::Output]) {
    for out in outs {
        assert_no_canary(&out.stdout, CANARIES, "stdout");
        assert_no_canary(&out.stderr, CANARIES, "stderr");
    }
    for (path, bytes) in w.state_files() {
        assert_no_canary(&bytes, CANARIES, &path.display().to_string());
    }
}

#[test]
fn the_key_reaches_the_harness_through_the_helper_and_a_rotation_needs_no_respawn() {
    let w = World::new();
    w.write_config("  deliver: [ANTHROPIC_API_KEY, EXTRA]\n");
    w.write_env(&format!("ANTHROPIC_API_KEY={OLD}\nEXTRA=1\n"));
    let s = w.started_session("github:octo/repo#1", "octo-repo-1");
    wait_for(
        || helper_fp(&w, &s).is_some(),
        "the stand-in ran the helper",
    );
    assert_eq!(
        helper_fp(&w, &s),
        Some(fp(OLD)),
        "the helper handed over the key"
    );
    let pane = w.pane(&s.name).unwrap();
    let env = environ(pane.pid);
    assert!(
        !env.contains_key("ANTHROPIC_API_KEY"),
        "kept out of the pane"
    );
    assert_eq!(
        env.get("EXTRA").map(String::as_str),
        Some("1"),
        "others still delivered"
    );
    for pid in std::iter::once(pane.pid).chain(descendants(pane.pid)) {
        let argv = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        assert_no_canary(&argv, CANARIES, "argv");
    }
    let plan = w.the_loop(&["plan", "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&plan.stdout).unwrap();
    assert_eq!(json["sessions"][0]["action"], "none", "{json}");
    // `plan` names the key as delivered by the helper, in JSON and text.
    assert_eq!(
        json["delivered_by_helper"],
        serde_json::json!(["ANTHROPIC_API_KEY"]),
        "{json}"
    );
    let text = stdout(&w.the_loop(&["plan"]));
    assert!(
        text.lines().next().is_some_and(
            |l| l.ends_with("(2 names declared; ANTHROPIC_API_KEY delivered by helper)")
        ),
        "{text}"
    );

    // Rotated: nothing to respawn; the harness's next call gets the new key.
    w.write_env(&format!("ANTHROPIC_API_KEY={NEW}\nEXTRA=1\n"));
    let replan = w.the_loop(&["plan", "--json", "--detailed-exitcode"]);
    assert_eq!(replan.status.code(), Some(0), "{}", stdout(&replan));
    let settings = w.state.join("harness/claude-settings.json");
    let settings: serde_json::Value =
        serde_json::from_slice(&std::fs::read(settings).unwrap()).unwrap();
    let helper = settings["apiKeyHelper"].as_str().unwrap().to_owned();
    let piped = std::process::Command::new("sh")
        .args(["-c", &helper])
        .output()
        .unwrap();
    assert!(piped.status.success());
    assert_eq!(piped.stdout, NEW.as_bytes(), "the file's current value");
    assert_clean(&w, &[&plan, &replan]);
    for event in w.events() {
        assert_no_canary(event.to_string().as_bytes(), CANARIES, "event");
    }
}

#[test]
fn the_helper_refuses_a_terminal_and_says_why_without_the_value() {
    let w = World::new();
    w.write_config("  deliver: [ANTHROPIC_API_KEY]\n");
    w.write_env(&format!("ANTHROPIC_API_KEY={OLD}\n"));
    let bin = assert_cmd::cargo::cargo_bin("the-loop");
    let mark = w.root().join("helper-exit");
    w.tmux_ok(&[
        "new-session",
        "-d",
        "-s",
        "by-hand",
        "sh",
        "-c",
        &format!(
            "'{}' api-key-helper --config '{}'; echo $? > '{}'; sleep 60",
            bin.display(),
            w.config_path.display(),
            mark.display()
        ),
    ]);
    wait_for(|| mark.is_file(), "the helper ran on a terminal");
    assert_eq!(std::fs::read_to_string(&mark).unwrap().trim(), "1");
    let screen = w.tmux_ok(&["capture-pane", "-p", "-t", "=by-hand:"]);
    assert!(
        screen.contains("refusing to print ANTHROPIC_API_KEY"),
        "{screen}"
    );
    assert_no_canary(screen.as_bytes(), CANARIES, "the terminal");

    // Not delivered: refused with the reason, and nothing on stdout.
    w.write_config("  credentials: [ANTHROPIC_API_KEY]\n");
    let out = w.the_loop(&[
        "api-key-helper",
        "--config",
        w.config_path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(
        stderr(&out).contains("does not deliver ANTHROPIC_API_KEY"),
        "{}",
        stderr(&out)
    );
    assert_clean(&w, &[&out]);
}

/// `ANTHROPIC_API_KEY` added to `env.deliver` under a running session: the
/// harness was launched without the helper in its settings layer, and no
/// rotation of the key reaches it. The plan says so (`apiKeyHelper`
/// drift), and the roll relaunches it with the helper.
#[test]
fn a_key_newly_delivered_by_the_helper_is_drift_for_a_harness_launched_without_it() {
    let w = World::new();
    w.write_config("  deliver: [EXTRA]\n");
    w.write_env(&format!("ANTHROPIC_API_KEY={OLD}\nEXTRA=1\n"));
    let s = w.started_session("github:octo/repo#1", "octo-repo-1");
    let first = w.pane(&s.name).unwrap();
    assert!(!environ(first.pid).contains_key("THE_LOOP_KEY_HELPER"));
    let plan = w.the_loop(&["plan", "--json", "--detailed-exitcode"]);
    assert_eq!(code(&plan), Some(0), "{}", explain(&plan));

    w.write_config("  deliver: [ANTHROPIC_API_KEY, EXTRA]\n");
    let plan = w.the_loop(&["plan", "--json", "--detailed-exitcode"]);
    assert_eq!(code(&plan), Some(2), "{}", explain(&plan));
    let row = session_in(&json(&plan), &s.reference).clone();
    assert_eq!(row["action"], "respawn", "{row:#}");
    assert_eq!(row["args_changes"][0]["name"], "key_helper", "{row:#}");
    let text = stdout(&w.the_loop(&["plan"]));
    assert!(text.contains("apiKeyHelper"), "{text}");

    let out = w.the_loop(&["apply", "--auto-approve", "--json"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let now = w.pane(&s.name).unwrap();
    assert_ne!(now.pid, first.pid);
    assert_eq!(
        environ(now.pid)
            .get("THE_LOOP_KEY_HELPER")
            .map(String::as_str),
        Some("1")
    );
    wait_for(
        || helper_fp(&w, &s) == Some(fp(OLD)),
        "the new harness ran the helper",
    );
    let plan = w.the_loop(&["plan", "--detailed-exitcode"]);
    assert_eq!(code(&plan), Some(0), "{}", explain(&plan));
    assert_clean(&w, &[&out, &plan]);
}
