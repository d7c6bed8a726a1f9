//! `apply --replace-server`: a tmux server born holding a retired value (in
//! its own process environment and its global environment, where no
//! respawn reaches) is replaced by a new one on the same socket; every
//! managed session comes back on its conversation, holding the env file's
//! value (read from `/proc`), and the plan's residue names no tmux layer.
//! A session the-loop does not manage stops it, by name, until named.

use crate::support::*;

const RETIRED: &str = "xoxb-retired-9d2f";
const ROTATED: &str = "xoxb-rotated-41c7";

#[test]
fn the_server_is_replaced_and_every_session_comes_back_clean() {
    let w = World::new();
    w.write_config("  deliver: [SLACK_BOT_TOKEN]\n");
    // The server keeps `keepalive`, a session the-loop does not manage.
    let sessions = w.rotated_fleet(3, RETIRED, ROTATED);
    let old_server = w.server_pid().expect("a server runs");
    let old_pids: Vec<i32> = sessions
        .iter()
        .map(|s| w.pane(&s.name).unwrap().pid)
        .collect();
    let plan = json(&w.the_loop(&["plan", "--json"]));
    assert!(
        plan["residue"]["entries"]
            .as_array()
            .is_some_and(|e| !e.is_empty()),
        "the server holds the retired value: {plan:#}"
    );

    // Refused, naming the person's session; nothing is ended.
    let out = w.the_loop(&["apply", "--replace-server", "--auto-approve"]);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    let said = flat(&stderr(&out));
    assert!(said.contains("keepalive"), "{}", explain(&out));
    assert!(
        said.contains(&flat("--end-session keepalive")),
        "{}",
        explain(&out)
    );
    assert_eq!(w.server_pid(), Some(old_server));
    let now: Vec<i32> = sessions
        .iter()
        .map(|s| w.pane(&s.name).unwrap().pid)
        .collect();
    assert_eq!(now, old_pids, "no harness was touched");

    // A dry run says what it would do and does nothing.
    let out = w.the_loop(&[
        "apply",
        "--replace-server",
        "--dry-run",
        "--end-session",
        "keepalive",
        "--json",
    ]);
    let dry = json(&out);
    assert_eq!(dry["moved"].as_array().map(Vec::len), Some(3), "{dry:#}");
    assert_eq!(dry["ended"][0], "keepalive", "{dry:#}");
    assert_eq!(w.server_pid(), Some(old_server));

    let out = w.the_loop(&[
        "apply",
        "--replace-server",
        "--auto-approve",
        "--end-session",
        "keepalive",
        "--json",
    ]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let report = json(&out);
    assert_eq!(report["started"]["summary"]["started"], 3, "{report:#}");
    let new_server = w.server_pid().expect("a new server runs");
    assert_ne!(new_server, old_server, "a new server");
    for s in &sessions {
        let pane = w.pane(&s.name).expect("back in its own session");
        wait_for_harness(pane.pid);
        assert_eq!(
            environ(pane.pid).get("SLACK_BOT_TOKEN").map(String::as_str),
            Some(ROTATED),
            "{} holds the env file's value",
            s.name
        );
        assert!(
            cmdline(pane.pid)
                .windows(2)
                .any(|p| p[0] == "--resume" && p[1] == s.session_id),
            "{} resumes its conversation",
            s.name
        );
    }
    // No layer of the new server holds the retired value, or any value.
    let server_env = std::fs::read(format!("/proc/{new_server}/environ")).unwrap();
    assert_no_canary(
        &server_env,
        &[RETIRED, ROTATED],
        "the new server's environment",
    );
    let plan = json(&w.the_loop(&["plan", "--json"]));
    assert_eq!(
        plan["residue"]["entries"].as_array().map(Vec::len),
        Some(0),
        "{plan:#}"
    );
    let out = w.the_loop(&["plan", "--detailed-exitcode"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    assert!(!w.tmux_sessions().contains(&"keepalive".to_owned()));
}

/// A replacement that died after it ended the server (its journal still
/// there) is completed by the next `apply --replace-server`: the records
/// still say what should run.
#[test]
fn a_replacement_cut_short_is_completed_by_the_next_one() {
    let w = World::new();
    w.write_config("  deliver: [SLACK_BOT_TOKEN]\n");
    let sessions = w.rotated_fleet(2, RETIRED, ROTATED);
    let journal = w.state.join("replace-server.json");
    std::fs::write(&journal, "{\"sessions\": []}\n").unwrap();
    w.tmux_ok(&["kill-server"]);
    let out = w.the_loop(&["apply", "--replace-server", "--auto-approve", "--json"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    assert_eq!(json(&out)["started"]["summary"]["started"], 2);
    for s in &sessions {
        let pane = w.pane(&s.name).expect("back");
        wait_for_harness(pane.pid);
        assert_eq!(
            environ(pane.pid).get("SLACK_BOT_TOKEN").map(String::as_str),
            Some(ROTATED)
        );
    }
    assert!(!journal.exists(), "the journal is cleared once done");
}
