//! The fleet outlives its tmux server: after a `tmux kill-server`, `plan`
//! says how many sessions are down and names the command, and
//! `sessions start --all` brings every active one back in place, each on
//! its own conversation and holding the env file's values (read from
//! `/proc`), leaving alone what is stopped or cannot be resumed.

use crate::support::*;

fn count(text: &str, needle: &str) -> usize {
    text.matches(needle).count()
}

#[test]
fn after_a_kill_server_start_all_brings_the_active_sessions_back_verified() {
    let w = World::new();
    // Delivered: each new process must hold the file's value.
    w.write_config("  deliver: [SLACK_BOT_TOKEN]\n");
    let sessions = w.rotated_fleet(20, "retired-value", "rotated-value");
    // One stopped by a person.
    ok(w.the_loop(&["sessions", "stop", &sessions[19].reference]));
    w.tmux_ok(&["kill-server"]);
    // One whose transcript is gone (removed once its harness has exited:
    // the stand-in writes to it until then).
    wait_for(
        || !w.transcript_text(&sessions[18]).is_empty() && w.tmux_sessions().is_empty(),
        "the server is gone",
    );
    std::thread::sleep(std::time::Duration::from_millis(300));
    std::fs::remove_file(w.transcript(&sessions[18])).unwrap();
    let starts_before: Vec<usize> = sessions[..18]
        .iter()
        .map(|s| count(&w.transcript_text(s), "\"type\":\"resume\""))
        .collect();

    // The plan cannot see the sessions' server: never a pass, and it says
    // how many are down and what brings them up.
    let out = w.the_loop(&["plan", "--detailed-exitcode"]);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    let text = flat(&stdout(&out));
    assert!(
        text.contains(&flat("19 registered sessions are down")),
        "{}",
        explain(&out)
    );
    assert!(
        text.contains(&flat("the-loop sessions start --all")),
        "{}",
        explain(&out)
    );
    let plan = json(&w.the_loop(&["plan", "--json"]));
    assert_eq!(plan["down"].as_array().map(Vec::len), Some(19), "{plan:#}");

    // --dry-run starts nothing.
    let out = w.the_loop(&["sessions", "start", "--all", "--dry-run", "--json"]);
    let dry = json(&out);
    let outcomes = |doc: &serde_json::Value, outcome: &str| {
        doc["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["outcome"] == outcome)
            .count()
    };
    assert_eq!(outcomes(&dry, "would_start"), 18, "{dry:#}");
    assert_eq!(outcomes(&dry, "left_alone"), 1, "{dry:#}");
    assert!(w.tmux_sessions().is_empty(), "a dry run starts nothing");

    let out = w.the_loop(&["sessions", "start", "--all", "--json"]);
    assert_eq!(code(&out), Some(1), "one was left alone: {}", explain(&out));
    let report = json(&out);
    assert_eq!(outcomes(&report, "started"), 18, "{report:#}");
    let unresumable = report["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["ref"] == sessions[18].reference.as_str())
        .expect("the unresumable one is reported");
    assert_eq!(unresumable["outcome"], "left_alone", "{report:#}");
    assert!(
        unresumable["detail"]
            .as_str()
            .is_some_and(|d| d.contains("transcript")),
        "{report:#}"
    );

    for (s, before) in sessions[..18].iter().zip(starts_before) {
        let pane = w.pane(&s.name).expect("back in its own tmux session");
        wait_for_harness(pane.pid);
        let env = environ(pane.pid);
        assert_eq!(
            env.get("SLACK_BOT_TOKEN").map(String::as_str),
            Some("rotated-value"),
            "{} holds the env file's value",
            s.name
        );
        let argv = cmdline(pane.pid);
        assert!(
            argv.windows(2)
                .any(|p| p[0] == "--resume" && p[1] == s.session_id),
            "{} resumes its conversation: {argv:?}",
            s.name
        );
        assert_eq!(
            std::fs::read_link(format!("/proc/{}/cwd", pane.pid)).unwrap(),
            s.cwd.canonicalize().unwrap(),
            "{} runs in its recorded directory",
            s.name
        );
        wait_for(
            || {
                let text = w.transcript_text(s);
                count(&text, "\"type\":\"resume\"") > before
                    && text.contains(&format!("\"type\":\"resume\",\"pid\":{}", pane.pid))
            },
            "the same transcript grows with the new process's resume",
        );
    }
    let names = w.tmux_sessions();
    assert!(!names.contains(&sessions[18].name), "{names:?}");
    assert!(!names.contains(&sessions[19].name), "stopped stays down");

    // A second run starts nothing.
    let out = w.the_loop(&["sessions", "start", "--all", "--json"]);
    let again = json(&out);
    assert_eq!(outcomes(&again, "started"), 0, "{again:#}");
    assert_eq!(again["summary"]["down"], 1, "{again:#}");
    // And the plan now sees the fleet: drift-free but for the one down.
    let out = w.the_loop(&["plan", "--json"]);
    let plan = json(&out);
    assert_eq!(plan["down"].as_array().map(Vec::len), Some(1), "{plan:#}");
}

#[test]
fn a_session_that_never_began_comes_back_on_its_own_id() {
    let w = World::new();
    w.write_env("EXTRA=one\n");
    let cwd = w.work.join("fresh");
    std::fs::create_dir_all(&cwd).unwrap();
    let started = w.start_session("github:octo/repo#7", &cwd);
    let id = started["harness_session_id"].as_str().unwrap().to_owned();
    let name = started["tmux_target"].as_str().unwrap().to_owned();
    // No first prompt was typed: the stand-in keeps no transcript until one.
    let s = LegacySession {
        reference: "github:octo/repo#7".into(),
        slug: "github-octo-repo-7".into(),
        name: name.clone(),
        session_id: id.clone(),
        cwd: cwd.canonicalize().unwrap(),
    };
    w.tmux_ok(&["kill-server"]);
    std::thread::sleep(std::time::Duration::from_millis(300));
    let _ = std::fs::remove_file(w.transcript(&s));
    let out = w.the_loop(&["sessions", "start", "--all", "--json"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let report = json(&out);
    assert_eq!(report["sessions"][0]["outcome"], "started", "{report:#}");
    assert_eq!(report["sessions"][0]["resumed"], false, "{report:#}");
    let pane = w.pane(&name).expect("started");
    wait_for_harness(pane.pid);
    let argv = cmdline(pane.pid);
    assert!(
        argv.windows(2)
            .any(|p| p[0] == "--session-id" && p[1] == id),
        "begun on its pre-assigned id: {argv:?}"
    );
}

/// Run from a pane of another tmux server (another `$TMUX`), `plan` reads
/// the fleet's own server, names it, and gives the answer it gives there;
/// with that server gone it never passes.
#[test]
fn a_plan_from_another_servers_pane_reads_the_fleets_server() {
    let w = World::new();
    w.write_config("  deliver: [EXTRA]\n");
    w.write_env("EXTRA=one\n");
    let s = w.started_session("github:octo/repo#3", "github-octo-repo-3");
    w.write_env("EXTRA=two\n");
    let fleet_socket = w.tmux_tmpdir.join(format!(
        "tmux-{}/default",
        std::fs::metadata(&w.state)
            .map(|m| std::os::unix::fs::MetadataExt::uid(&m))
            .unwrap()
    ));
    let other = w.root().join("other.sock");
    let mut person = std::process::Command::new("tmux");
    w.configure_tmux(&mut person);
    let started = person
        .args(["-S", other.to_str().unwrap(), "-f", "/dev/null"])
        .args(["new-session", "-d", "-s", "theirs", "sleep", "600"])
        .status()
        .unwrap();
    assert!(started.success());
    let from_there = [("TMUX", format!("{},1,0", other.display()))];
    let env: Vec<(&str, &str)> = from_there.iter().map(|(k, v)| (*k, v.as_str())).collect();

    let here = w.the_loop(&["plan", "--detailed-exitcode"]);
    let there = w.the_loop_with(&["plan", "--detailed-exitcode"], &env);
    assert_eq!(code(&here), Some(2), "{}", explain(&here));
    assert_eq!(code(&there), Some(2), "{}", explain(&there));
    assert!(
        stdout(&there).contains(&format!("tmux server: {}", fleet_socket.display())),
        "{}",
        explain(&there)
    );
    let plan = json(&w.the_loop_with(&["plan", "--json"], &env));
    assert_eq!(
        session_in(&plan, &s.reference)["action"],
        "respawn",
        "{plan:#}"
    );

    w.tmux_ok(&["kill-server"]);
    let there = w.the_loop_with(&["plan", "--detailed-exitcode"], &env);
    assert_eq!(code(&there), Some(1), "{}", explain(&there));
    let mut end = std::process::Command::new("tmux");
    w.configure_tmux(&mut end);
    let _ = end
        .args(["-S", other.to_str().unwrap(), "kill-server"])
        .status();
}

/// Two records naming one conversation (one copied by hand): neither is
/// brought back, each left alone with the reason.
#[test]
fn two_records_naming_one_conversation_are_both_left_alone() {
    let w = World::new();
    let sessions = w.rotated_fleet(2, "retired-value", "rotated-value");
    let shared = sessions[0].session_id.clone();
    w.tmux_ok(&["kill-server"]);
    w.edit_record(&sessions[1].slug, |r| {
        r["harnessSessionId"] = serde_json::Value::String(shared.clone());
    });
    let out = w.the_loop(&["sessions", "start", "--all", "--json"]);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    let report = json(&out);
    for row in report["sessions"].as_array().unwrap() {
        assert_eq!(row["outcome"], "left_alone", "{report:#}");
        assert!(
            row["detail"]
                .as_str()
                .is_some_and(|d| d.contains("named by another record too")),
            "{report:#}"
        );
    }
    assert!(w.tmux_sessions().is_empty(), "nothing started");
}
