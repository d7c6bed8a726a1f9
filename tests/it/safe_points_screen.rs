//! Safe points the hooks cannot see, on a real tmux with the stand-in
//! harness: "unknown" is never "rolls now" (a harness whose hooks never
//! spoke is rolled only when its screen shows it between turns, and held,
//! then left alone, when the screen says nothing known either), and a `!`
//! command, which fires no hook, is called busy and waited for by `plan`
//! and `apply` alike; a tool's shell left running in the background, which
//! the screen need not show, is read from the harness's children.

use crate::support::*;

fn pane_tty(w: &World, name: &str) -> String {
    w.tmux_ok(&["display", "-p", "-t", &format!("={name}:"), "#{pane_tty}"])
        .trim()
        .to_owned()
}

/// Draws `text` over the pane's screen from outside, as a harness's own
/// redraw would, without touching its process.
fn draw(w: &World, name: &str, text: &str) {
    std::fs::write(pane_tty(w, name), format!("\x1b[2J\x1b[H{text}")).unwrap();
}

fn plan_row(w: &World, reference: &str) -> serde_json::Value {
    session_in(&json(&w.the_loop(&["plan", "--json"])), reference).clone()
}

#[test]
fn a_harness_whose_hooks_never_spoke_is_rolled_only_when_its_screen_says_so() {
    let w = World::new();
    let sessions = w.rotated_fleet(1, "xoxb-RETIRED-screen-1", "xoxb-ROTATED-screen-1");
    let s = &sessions[0];
    let first = w.pane(&s.name).unwrap();
    // A screen no reader understands, and no hook has spoken.
    wait_for(
        || w.transcript_text(s).contains("\"type\":\"ready\""),
        "the stand-in is ready",
    );
    draw(&w, &s.name, "something no reader understands\r\n");
    let row = plan_row(&w, &s.reference);
    assert_eq!(row["activity"], "unknown", "{row:#}");
    assert_eq!(row["screen"], "unknown", "{row:#}");
    assert_eq!(row["apply_will"], "wait_unknown", "{row:#}");
    let text = stdout(&w.the_loop(&["plan"]));
    assert!(
        text.contains("neither its hooks nor its screen say it is between turns"),
        "{text}"
    );
    assert!(!text.contains("rolls now"), "{text}");

    // Held for the drain, then left alone with the reason: exit 1.
    let out = w.the_loop(&["apply", "--auto-approve", "--json", "--drain-timeout", "2s"]);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    let report = json(&out);
    let row = session_in(&report, &s.reference);
    assert_eq!(row["outcome"], "deferred", "{report:#}");
    assert_eq!(
        row["detail"], "held: neither its hooks nor its screen say it is between turns",
        "{report:#}"
    );
    assert_eq!(w.pane(&s.name).unwrap().pid, first.pid, "not ended");
    assert!(!w.transcript_text(s).contains("\"type\":\"signal\""));

    // Its screen shows it between turns: the screen decides, it rolls.
    draw(
        &w,
        &s.name,
        &format!(
            "{}\r\n  ⏵⏵ auto mode on (shift+tab to cycle)\r\n",
            "─".repeat(40)
        ),
    );
    let row = plan_row(&w, &s.reference);
    assert_eq!(row["screen"], "between", "{row:#}");
    assert_eq!(row["apply_will"], "roll_now", "{row:#}");
    let out = w.the_loop(&["apply", "--auto-approve", "--json"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    assert_eq!(
        session_in(&json(&out), &s.reference)["outcome"],
        "restarted"
    );
}

#[test]
fn a_bang_command_is_called_busy_by_the_plan_and_waited_for() {
    let w = World::new();
    w.write_config("  deliver: [EXTRA]\n");
    w.write_env("EXTRA=one\n");
    let s = w.started_session("github:octo/repo#1", "github-octo-repo-1");
    wait_for(
        || plan_row(&w, &s.reference)["activity"] == "idle",
        "the hooks say idle",
    );
    w.write_env("EXTRA=two\n");
    let target = format!("={}:", s.name);
    w.tmux_ok(&["send-keys", "-t", &target, "-l", "/bang 8"]);
    w.tmux_ok(&["send-keys", "-t", &target, "Enter"]);
    wait_for(
        || plan_row(&w, &s.reference)["screen"] == "running",
        "the screen shows the command",
    );
    // No hook speaks for a `!` command: the hooks still say idle, the
    // plan says what the screen shows.
    let row = plan_row(&w, &s.reference);
    assert_eq!(row["activity"], "idle", "{row:#}");
    assert_eq!(row["apply_will"], "wait_busy", "{row:#}");
    let text = stdout(&w.the_loop(&["plan"]));
    assert!(text.contains("[busy: waits for its turn to end]"), "{text}");
    // `sessions list` and `status` look at the screen as the plan does,
    // and say what it says: the same fields, the same word, the same why.
    let listed = json(&w.the_loop(&["sessions", "list", "--json"]));
    let row = session_in(&listed, &s.reference);
    assert_eq!(row["activity"], "idle", "{row:#}");
    assert_eq!(row["screen"], "running", "{row:#}");
    let text = stdout(&w.the_loop(&["sessions", "list"]));
    let line = text.lines().find(|l| l.contains(&s.reference)).unwrap();
    assert!(line.contains(" busy "), "{text}");
    let status = json(&w.the_loop(&["status", "--json"]));
    assert_eq!(
        session_in(&status, &s.reference)["held"],
        "busy: its screen shows a running turn or shell command",
        "{status:#}"
    );

    let out = w.the_loop(&[
        "apply",
        "--auto-approve",
        "--json",
        "--drain-timeout",
        "60s",
    ]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    assert_eq!(
        session_in(&json(&out), &s.reference)["outcome"],
        "restarted"
    );
    let transcript = w.transcript_text(&s);
    let done = transcript.find("bang-done").expect("the command finished");
    let signal = transcript
        .find("\"type\":\"signal\"")
        .expect("then the roll");
    assert!(done < signal, "{transcript}");
}

/// A tool's shell the turn left running (the model's `run_in_background`,
/// or Ctrl-B twice) is a child of the harness: ending the harness ends it.
/// The stand-in's footer does not count it, so only `/proc` tells; the plan
/// and the roll hold the session, and it rolls once the shell has ended.
#[test]
fn a_tool_shell_left_running_past_its_turn_holds_the_roll() {
    let w = World::new();
    w.write_config("  deliver: [EXTRA]\n");
    w.write_env("EXTRA=one\n");
    let s = w.started_session("github:octo/repo#1", "github-octo-repo-1");
    let harness = w.pane(&s.name).unwrap().pid;
    let target = format!("={}:", s.name);
    w.tmux_ok(&["send-keys", "-t", &target, "-l", "/background 6"]);
    w.tmux_ok(&["send-keys", "-t", &target, "Enter"]);
    wait_for(
        || w.transcript_text(&s).contains("\"type\":\"background\""),
        "the tool's shell started",
    );
    wait_for(
        || plan_row(&w, &s.reference)["activity"] == "idle",
        "the hooks say the turn ended",
    );
    w.write_env("EXTRA=two\n");
    let row = plan_row(&w, &s.reference);
    assert_eq!(row["screen"], "background", "{row:#}");
    assert_eq!(row["apply_will"], "wait_screen", "{row:#}");
    let text = stdout(&w.the_loop(&["plan"]));
    assert!(text.contains("a background shell or task runs"), "{text}");

    // Held for a short drain, then left alone with the reason; the shell
    // and the harness live on.
    let out = w.the_loop(&["apply", "--auto-approve", "--json", "--drain-timeout", "1s"]);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    let row = session_in(&json(&out), &s.reference).clone();
    assert_eq!(row["outcome"], "deferred", "{row:#}");
    assert_eq!(
        row["detail"], "held: a background shell or task runs",
        "{row:#}"
    );
    assert_eq!(
        w.pane(&s.name).unwrap().pid,
        harness,
        "the harness was ended"
    );
    let shell = the_tool_shell(harness).expect("the shell still runs");

    // A drain long enough for the shell to end: then it rolls.
    let out = w.the_loop(&[
        "apply",
        "--auto-approve",
        "--json",
        "--drain-timeout",
        "60s",
    ]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    assert_eq!(
        session_in(&json(&out), &s.reference)["outcome"],
        "restarted"
    );
    assert!(!alive(shell), "the shell outlived the roll's wait");
    let new = w.pane(&s.name).unwrap().pid;
    assert_ne!(new, harness);
    assert_eq!(environ(new).get("EXTRA").map(String::as_str), Some("two"));
}

/// The pid of the harness's child that runs the stand-in's tool shell.
fn the_tool_shell(harness: i32) -> Option<i32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .find(|pid| {
            let argv = cmdline(*pid);
            argv.first().map(String::as_str) == Some("bash")
                && argv.iter().any(|a| a.contains("shell-snapshots/snapshot-"))
                && the_loop::proc_env::ProcStat::read(std::path::Path::new("/proc"), *pid)
                    .map(|stat| stat.parent)
                    == Some(harness)
        })
}

/// A plan looks at the screens of the sessions a roll would take only: a
/// `!` command in a session already up to date holds no roll, and at 500
/// sessions that look is a tmux client drawing 150 screens (issue 46).
/// `sessions list` and `top`, which say what every session is doing, still
/// look at each.
#[test]
fn a_plan_looks_only_at_the_screens_of_sessions_a_roll_would_take() {
    let w = World::new();
    w.write_config("  deliver: [EXTRA]\n");
    w.write_env("EXTRA=one\n");
    let stale = w.started_session("github:octo/repo#1", "github-octo-repo-1");
    w.write_env("EXTRA=two\n");
    let current = w.started_session("github:octo/repo#2", "github-octo-repo-2");
    wait_for(
        || {
            let plan = json(&w.the_loop(&["plan", "--json"]));
            [&stale, &current]
                .iter()
                .all(|s| session_in(&plan, &s.reference)["activity"] == "idle")
        },
        "the hooks say idle",
    );
    let target = format!("={}:", current.name);
    w.tmux_ok(&["send-keys", "-t", &target, "-l", "/bang 30"]);
    w.tmux_ok(&["send-keys", "-t", &target, "Enter"]);
    wait_for(
        || {
            let listed = json(&w.the_loop(&["sessions", "list", "--json"]));
            session_in(&listed, &current.reference)["screen"] == "running"
        },
        "`sessions list` sees the command on the up-to-date session's screen",
    );
    let plan = json(&w.the_loop(&["plan", "--json"]));
    let row = session_in(&plan, &current.reference);
    assert_eq!(row["action"], "none", "{row:#}");
    assert_eq!(row["screen"], serde_json::Value::Null, "{row:#}");
    let row = session_in(&plan, &stale.reference);
    assert_eq!(row["action"], "respawn", "{row:#}");
    assert_eq!(row["screen"], "between", "{row:#}");
    assert_eq!(row["apply_will"], "roll_now", "{row:#}");
}
