//! Load (issue 6, point 6): plan and apply over 200 registered sessions on
//! one private tmux server. Nothing lost, every session accounted for.

use crate::support::*;
use std::collections::BTreeSet;
use std::time::{Duration, Instant};

const SESSIONS: usize = 200;
const RETIRED: &str = "xoxb-RETIRED-l0ad-0b5e";
const ROTATED: &str = "xoxb-ROTATED-l0ad-4d2c";

fn session(w: &World, i: usize) -> LegacySession {
    let slug = format!("github-octo-load-{i}");
    LegacySession {
        reference: format!("github:octo/load#{i}"),
        name: format!("loop-{slug}"),
        session_id: format!("0000-{slug}"),
        cwd: w.work.join(&slug),
        slug,
    }
}

/// Starts the sessions as an older the-loop did, many per tmux invocation.
fn start_fleet(w: &World) -> Vec<LegacySession> {
    let sessions: Vec<LegacySession> = (1..=SESSIONS).map(|i| session(w, i)).collect();
    for chunk in sessions.chunks(25) {
        let mut args: Vec<String> = Vec::new();
        for s in chunk {
            std::fs::create_dir_all(&s.cwd).unwrap();
            if !args.is_empty() {
                args.push(";".into());
            }
            args.extend(
                [
                    "new-session",
                    "-d",
                    "-s",
                    &s.name,
                    "-c",
                    s.cwd.to_str().unwrap(),
                    "--",
                    "claude",
                    "--session-id",
                    &s.session_id,
                    ";",
                    "set-option",
                    "-w",
                    "-t",
                    &format!("={}:", s.name),
                    "remain-on-exit",
                    "on",
                ]
                .map(String::from),
            );
            w.write_record(s, "active");
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        w.tmux_ok(&args);
    }
    let deadline = Instant::now() + Duration::from_secs(120);
    while !sessions.iter().all(|s| w.transcript(s).is_file()) {
        assert!(Instant::now() < deadline, "the fleet did not start");
        std::thread::sleep(Duration::from_millis(100));
    }
    sessions
}

#[test]
fn plan_and_apply_over_200_sessions_account_for_every_one() {
    let _alone = alone();
    let w = World::new();
    w.write_env(&format!("SLACK_BOT_TOKEN={RETIRED}\n"));
    w.start_server_holding(&[("SLACK_BOT_TOKEN", RETIRED)]);
    let sessions = start_fleet(&w);
    let refs: BTreeSet<String> = sessions.iter().map(|s| s.reference.clone()).collect();
    let before: Vec<i32> = sessions
        .iter()
        .map(|s| w.pane(&s.name).unwrap().pid)
        .collect();
    let registry = w.registry_files();
    w.write_env(&format!("SLACK_BOT_TOKEN={ROTATED}\n"));
    w.install_tmux_wrapper();

    let plan = w.the_loop(&["plan", "--json"]);
    assert_eq!(plan.status.code(), Some(0), "{}", stderr(&plan));
    let p = json(&plan);
    let planned: BTreeSet<String> = p["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["action"] == "respawn")
        .map(|s| s["ref"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(planned, refs, "every session planned for a respawn");
    assert_eq!(p["summary"]["respawn"], SESSIONS);
    // The preflight (`tmux -V`) and the pane listing, which reads tmux's
    // own layers (the residue) in the same call; besides them, one batch
    // of screen looks (`tmux_reading_calls` allows one).
    assert_eq!(
        w.tmux_reading_calls().len(),
        2,
        "a plan's tmux cost does not grow with the fleet"
    );

    let out = w.the_loop(&["apply", "--auto-approve", "--json", "--parallelism", "16"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report = json(&out);
    let reported = report["sessions"].as_array().unwrap();
    assert_eq!(reported.len(), SESSIONS, "every session in the report");
    let restarted: BTreeSet<String> = reported
        .iter()
        .filter(|s| s["outcome"] == "restarted")
        .map(|s| s["ref"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(restarted, refs, "every session restarted and verified");

    for (s, old) in sessions.iter().zip(&before) {
        let pane = w.pane(&s.name).expect("session kept");
        assert!(!pane.dead);
        assert_ne!(pane.pid, *old);
        assert!(!environ(pane.pid).contains_key("SLACK_BOT_TOKEN"));
        assert!(
            cmdline(pane.pid)
                .windows(2)
                .any(|a| a[0] == "--resume" && a[1] == s.session_id),
            "{} resumed its conversation",
            s.reference
        );
        let conversations = std::fs::read_dir(w.transcript(s).parent().unwrap())
            .unwrap()
            .count();
        assert_eq!(conversations, 1, "{}: no fresh conversation", s.reference);
    }
    assert_eq!(w.registry_files(), registry, "no record rewritten or lost");

    let again = w.the_loop(&["plan", "--json", "--detailed-exitcode"]);
    assert_eq!(again.status.code(), Some(0), "no drift left");
    assert_eq!(json(&again)["summary"]["up_to_date"], SESSIONS);
    for out in [&plan, &out, &again] {
        assert_no_canary(&out.stdout, &[RETIRED, ROTATED], "stdout");
        assert_no_canary(&out.stderr, &[RETIRED, ROTATED], "stderr");
    }
}
