//! Terraform's command-line habits, checked on the built binary and a real
//! tmux: usage errors exit 1, `--no-color` everywhere, no empty help text,
//! `--lock-timeout`, `apply PLANFILE`, JSON-lines progress, and footers that
//! say what actually happens.

use crate::support::*;
use clap::CommandFactory;

#[test]
fn no_command_argument_or_subcommand_has_an_empty_help_text() {
    fn check(cmd: &clap::Command, path: &str, empty: &mut Vec<String>) {
        if cmd
            .get_about()
            .is_none_or(|a| a.to_string().trim().is_empty())
        {
            empty.push(format!("{path} (command)"));
        }
        for arg in cmd.get_arguments() {
            let id = arg.get_id().as_str();
            if matches!(id, "help" | "version") || arg.is_hide_set() {
                continue;
            }
            if arg
                .get_help()
                .is_none_or(|h| h.to_string().trim().is_empty())
            {
                empty.push(format!("{path} {id}"));
            }
        }
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            check(sub, &format!("{path} {}", sub.get_name()), empty);
        }
    }
    let mut root = the_loop::cli::Cli::command();
    root.build();
    let mut empty = Vec::new();
    check(&root, "the-loop", &mut empty);
    assert!(empty.is_empty(), "empty help texts: {empty:#?}");
}

/// Usage errors exit 1, as Terraform's do: exit 2 is reserved for drift
/// (`plan --detailed-exitcode`) and "not delivered by rule" (`deliver`).
#[test]
fn usage_errors_exit_1_on_every_command() {
    let w = World::new();
    for path in subcommand_paths() {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--no-such-flag");
        let out = w.the_loop(&args);
        assert_eq!(code(&out), Some(1), "{args:?}: {}", explain(&out));
        assert!(
            stderr(&out).contains("--no-such-flag"),
            "{args:?} names the flag: {}",
            explain(&out)
        );
    }
    // A missing argument, a bad value, an unknown and a missing subcommand.
    for args in [
        &["sessions", "deliver"][..],
        &["apply", "--parallelism", "0"],
        &["apply", "--parallelism", "lots"],
        &["frobnicate"],
        &["sessions"],
        &[],
    ] {
        let out = w.the_loop(args);
        assert_eq!(code(&out), Some(1), "{args:?}: {}", explain(&out));
    }
    // Help and version are not errors.
    for args in [&["--help"][..], &["--version"], &["plan", "--help"]] {
        let out = w.the_loop(args);
        assert_eq!(code(&out), Some(0), "{args:?}: {}", explain(&out));
        assert!(!stdout(&out).is_empty());
    }
}

/// Runs `the-loop <args>` in a pseudo-terminal (tests/it/support/in-pty) with
/// the world's environment plus `env`, and returns what it wrote there.
fn in_pty(w: &World, args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, Vec<u8>) {
    let base = w.the_loop_command(args);
    let log = w.dir.path().join(format!("pty-{}.log", args.join("-")));
    let _ = std::fs::remove_file(&log);
    let mut cmd = std::process::Command::new("python3");
    for (k, v) in base.get_envs() {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    // A terminal that takes colour, unless `env` says otherwise.
    cmd.env("TERM", "xterm");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.arg(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/it/support/in-pty"
    ))
    .arg(&log)
    .arg("--")
    .arg(base.get_program())
    .args(base.get_args())
    .stdin(std::process::Stdio::null());
    let status = cmd.status().expect("python3 runs tests/it/support/in-pty");
    (status.code(), std::fs::read(&log).unwrap_or_default())
}

fn has_ansi(bytes: &[u8]) -> bool {
    bytes.windows(2).any(|w| w == b"\x1b[")
}

/// `--no-color` is accepted by every command (before or after the
/// subcommand), and on a terminal it turns colour off where it was on.
#[test]
fn no_color_is_accepted_everywhere_and_turns_colour_off_on_a_terminal() {
    let w = World::new();
    for path in subcommand_paths() {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--no-color");
        args.push("--help");
        let out = w.the_loop(&args);
        assert_eq!(code(&out), Some(0), "{args:?}: {}", explain(&out));
        let out = w.the_loop(&["--no-color", &path[0], "--help"]);
        assert_eq!(code(&out), Some(0), "{path:?}: {}", explain(&out));
    }

    // A drifted session, so the plan has something to paint.
    let _s = w.rotated_fleet(1, "xoxb-RETIRED-nc-1", "xoxb-ROTATED-nc-2");
    let (_, screen) = in_pty(&w, &["plan"], &[("NO_COLOR", "")]);
    assert!(has_ansi(&screen), "colour on a terminal by default");
    let (_, screen) = in_pty(&w, &["plan", "--no-color"], &[("NO_COLOR", "")]);
    assert!(screen.windows(5).any(|w| w == b"Plan:"), "the plan printed");
    assert!(!has_ansi(&screen), "--no-color: no escape codes");
    let (_, screen) = in_pty(&w, &["--no-color", "plan"], &[("NO_COLOR", "")]);
    assert!(!has_ansi(&screen), "--no-color before the command");
    let (_, screen) = in_pty(&w, &["plan"], &[("NO_COLOR", "1")]);
    assert!(!has_ansi(&screen), "NO_COLOR keeps working");
    // Errors and clap's own usage errors too.
    let (_, screen) = in_pty(&w, &["plan", "--no-color", "--bogus"], &[("NO_COLOR", "")]);
    assert!(!has_ansi(&screen), "a usage error without colour");
    let (_, screen) = in_pty(&w, &["plan", "--bogus"], &[("NO_COLOR", "")]);
    assert!(has_ansi(&screen), "clap paints usage errors on a terminal");
}

/// `--help` of the commands an operator scripts ends with examples: the
/// saved-plan recipe, watch under systemd, a Codex start; `sessions start`
/// says what it writes into the harness's settings and how to stop it.
/// `-h` stays short.
#[test]
fn long_help_has_examples_and_says_what_start_writes() {
    let w = World::new();
    let help = |args: &[&str]| {
        let out = w.the_loop(args);
        assert_eq!(code(&out), Some(0), "{args:?}: {}", explain(&out));
        stdout(&out)
    };
    for (command, wanted) in [
        (
            &["plan"][..],
            &[
                "Examples:",
                "the-loop plan --out tfplan",
                "the-loop apply tfplan",
                "plan --env-file .env.new",
            ][..],
        ),
        (
            &["apply"],
            &[
                "Examples:",
                "the-loop plan --out tfplan && the-loop apply tfplan",
            ],
        ),
        (
            &["watch"],
            &[
                "Examples:",
                "systemctl --user enable --now the-loop-watch.service",
            ],
        ),
        (
            &["sessions", "start"],
            &[
                "Examples:",
                "--harness codex --cwd ~/src/repo --prompt",
                "routing.harnessTrust: false",
                "routing.harnessPlugins: false",
            ],
        ),
    ] {
        let long = help(&[command, &["--help"]].concat());
        for want in wanted {
            assert!(
                long.contains(want),
                "{command:?} --help lacks {want:?}:\n{long}"
            );
        }
        let short = help(&[command, &["-h"]].concat());
        assert!(short.contains("Exit codes:"), "{command:?} -h:\n{short}");
        assert!(!short.contains("Examples:"), "{command:?} -h:\n{short}");
    }
}

/// One colour choice for every stream: miette's diagnostics (once painted
/// whatever `--no-color` said) follow `--no-color`, `NO_COLOR`, `CLICOLOR`,
/// `CLICOLOR_FORCE` and `TERM=dumb` exactly as the views and clap do.
#[test]
fn every_diagnostic_follows_the_one_colour_choice() {
    let w = World::new();
    w.write_env("SLACK_BOT_TOKEN=xoxb-cf-0\n");
    let unknown = ["plan", "--target", "nope"];
    let with = |extra: &[&str], env: &[(&str, &str)]| {
        let args: Vec<&str> = unknown.iter().chain(extra).copied().collect();
        let (code, screen) = in_pty(&w, &args, env);
        assert_eq!(code, Some(1), "{args:?} {env:?}");
        let text = String::from_utf8_lossy(&screen).into_owned();
        assert!(text.contains("the_loop::target::unknown"), "{text}");
        has_ansi(&screen)
    };
    let auto = [("NO_COLOR", "")];
    assert!(with(&[], &auto), "a diagnostic is painted on a terminal");
    assert!(!with(&["--no-color"], &auto), "--no-color reaches miette");
    assert!(!with(&[], &[("NO_COLOR", "1")]), "NO_COLOR");
    assert!(
        !with(&[], &[("NO_COLOR", ""), ("CLICOLOR", "0")]),
        "CLICOLOR=0"
    );
    assert!(
        !with(&[], &[("NO_COLOR", ""), ("TERM", "dumb")]),
        "TERM=dumb"
    );
    assert!(
        !with(
            &["--no-color"],
            &[("NO_COLOR", ""), ("CLICOLOR_FORCE", "1")]
        ),
        "--no-color wins over CLICOLOR_FORCE"
    );
    // CLICOLOR_FORCE colours a pipe, diagnostics and plans alike.
    let forced = [("NO_COLOR", ""), ("CLICOLOR_FORCE", "1")];
    let out = w.the_loop_with(&unknown, &forced);
    assert!(has_ansi(&out.stderr), "{}", explain(&out));
    let _s = w.rotated_fleet(1, "xoxb-RETIRED-cf-1", "xoxb-ROTATED-cf-2");
    let out = w.the_loop_with(&["plan"], &forced);
    assert!(has_ansi(&out.stdout), "{}", explain(&out));
    let out = w.the_loop_with(&["plan", "--no-color"], &forced);
    assert!(!has_ansi(&out.stdout), "{}", explain(&out));
}

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

/// Every key of `doc` is a property the published schema declares, at the
/// top level and in each session.
fn keys_in_schema(doc: &serde_json::Value, schema_file: &str) {
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("schemas")
                .join(schema_file),
        )
        .unwrap(),
    )
    .unwrap();
    let top = schema["properties"].as_object().unwrap();
    for key in doc.as_object().unwrap().keys() {
        assert!(top.contains_key(key), "{key} not in {schema_file}");
    }
    for req in schema["required"].as_array().unwrap() {
        assert!(doc.get(req.as_str().unwrap()).is_some(), "{req} missing");
    }
}

/// `status --json` carries format_version and matches its schema; when
/// tmux does not answer, status says so instead of "0 running".
#[test]
fn status_has_a_format_version_and_says_when_tmux_did_not_answer() {
    let w = World::new();
    let _s = w.rotated_fleet(2, "xoxb-RETIRED-st-1", "xoxb-ROTATED-st-2");
    let out = w.the_loop(&["status", "--json"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let doc = json(&out);
    assert_eq!(doc["format_version"], "1");
    assert_eq!(doc["tmux_unanswered"], serde_json::Value::Null);
    assert_eq!(doc["sessions"][0]["environment"], "stale");
    keys_in_schema(&doc, "status.schema.json");
    let text = stdout(&w.the_loop(&["status"]));
    assert!(text.contains("2 registered, 2 running"), "{text}");

    // Now tmux hangs: a socket that accepts and never answers.
    w.tmux(&["kill-server"]);
    let socket = w
        .tmux_tmpdir
        .join(format!("tmux-{}", nix::unistd::getuid().as_raw()))
        .join("default");
    let _ = std::fs::remove_file(socket);
    let _hung = HungSocket::bind(&w.tmux_tmpdir);
    let env = [("THE_LOOP_TMUX_TIMEOUT_MS", "300")];
    let out = w.the_loop_with(&["status"], &env);
    let text = stdout(&out);
    assert!(!text.contains("0 running"), "{text}");
    assert!(
        text.contains("2 registered; tmux did not answer (")
            && text.contains("whether they run is unknown"),
        "{}",
        explain(&out)
    );
    // The exit code keeps the status contract: services only (see README).
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let doc = json(&w.the_loop_with(&["status", "--json"], &env));
    assert!(
        doc["tmux_unanswered"]
            .as_str()
            .unwrap()
            .contains("did not answer"),
        "{doc}"
    );
    assert_eq!(doc["sessions"][0]["probe"], "unknown");
    keys_in_schema(&doc, "status.schema.json");
}

/// `apply --json-stream`: JSON lines, one event per line as it happens, in
/// order: every session planned, then for each session `respawning` before
/// its `verified`, and `finished` with the whole report last.
#[test]
fn json_stream_reads_as_json_lines_in_order() {
    let w = World::new();
    let sessions = w.rotated_fleet(2, "xoxb-RETIRED-js-1", "xoxb-ROTATED-js-2");
    let out = w.the_loop(&["apply", "--json-stream"]);
    assert_eq!(
        code(&out),
        Some(1),
        "needs --auto-approve: {}",
        explain(&out)
    );
    assert!(stderr(&out).contains("--auto-approve"), "{}", explain(&out));

    let out = w.the_loop(&[
        "apply",
        "--auto-approve",
        "--json-stream",
        "--parallelism",
        "1",
    ]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    assert_no_canary(
        &out.stdout,
        &["xoxb-RETIRED-js-1", "xoxb-ROTATED-js-2"],
        "stream",
    );
    let lines: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not a JSON line ({e}): {l}")))
        .collect();
    let types: Vec<&str> = lines.iter().map(|l| l["type"].as_str().unwrap()).collect();
    for line in &lines {
        assert_eq!(line["format_version"], "1");
        keys_in_schema(line, "apply-stream.schema.json");
    }
    assert_eq!(&types[..2], ["planned", "planned"], "{types:?}");
    assert_eq!(types.last(), Some(&"finished"), "{types:?}");
    for s in &sessions {
        let at = |t: &str| {
            lines
                .iter()
                .position(|l| l["type"] == t && l["ref"] == s.reference.as_str())
                .unwrap_or_else(|| panic!("no {t} for {}: {types:?}", s.reference))
        };
        assert!(at("planned") < at("respawning"), "{types:?}");
        assert!(at("respawning") < at("verified"), "{types:?}");
        assert_eq!(lines[at("planned")]["action"], "respawn");
        assert_eq!(lines[at("verified")]["outcome"], "restarted");
    }
    let report = &lines.last().unwrap()["report"];
    assert_eq!(report["sessions"].as_array().unwrap().len(), 2);
    // One canary first, then the rest: with parallelism 1 the lines follow
    // the roll, session by session.
    assert_eq!(
        &types[2..6],
        ["respawning", "verified", "respawning", "verified"],
        "{types:?}"
    );
}

/// `--input=false`: even on a terminal, apply never prompts; it refuses and
/// names the flag to add.
#[test]
fn input_false_never_prompts_and_names_the_flag() {
    let w = World::new();
    let _s = w.rotated_fleet(1, "xoxb-RETIRED-in-1", "xoxb-ROTATED-in-2");
    let (status, screen) = in_pty(&w, &["apply", "--input=false"], &[]);
    let screen = String::from_utf8_lossy(&screen);
    assert_eq!(status, Some(1), "{screen}");
    assert!(!screen.contains("Only 'yes'"), "no prompt: {screen}");
    assert!(screen.contains("--input=false forbids asking"), "{screen}");
    assert!(screen.contains("add --auto-approve"), "{screen}");
    // Not a terminal: the same refusal, saying why.
    let out = w.the_loop(&["apply"]);
    assert_eq!(code(&out), Some(1));
    let flat = |t: String| {
        t.split_whitespace()
            .filter(|w| *w != "│")
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert!(
        flat(stderr(&out)).contains("this run is not interactive"),
        "{}",
        explain(&out)
    );
    assert!(
        flat(stderr(&out)).contains("add --auto-approve"),
        "{}",
        explain(&out)
    );
}
