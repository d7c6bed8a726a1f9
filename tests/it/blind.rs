//! Issue 35, points 1 and 2: a plan is never blind, yet clean.
//!
//! 1. The size of the env file sets no limit on what a plan can see: with
//!    300 long names, 1,100 short ones or 20,000, a drifted fleet is found
//!    drifted, and no tmux invocation is longer than tmux 3.3a takes (the
//!    sum of its arguments' bytes, each with its NUL, at most 16,364: past
//!    that its client says "failed to send command" or "command too long";
//!    one argument past 128 KiB is refused by exec itself, E2BIG).
//! 2. A tmux that fails or does not answer is an error, not a pass:
//!    `plan --detailed-exitcode` and `apply` exit 1 and name the cause
//!    (tmux's own words, or the timeout), and so does `watch`'s log.

use crate::support::*;
use std::process::Stdio;
use std::time::{Duration, Instant};

const RETIRED: &str = "xoxb-RETIRED-bl1nd-35a0";
const ROTATED: &str = "xoxb-ROTATED-bl1nd-35a1";
const CANARIES: &[&str] = &[RETIRED, ROTATED];

/// The most bytes of arguments (each with its NUL) tmux 3.3a's client
/// sends to its server in one message, measured here.
const TMUX_ARGV_LIMIT: usize = 16_364;

/// Three sessions born on the retired token, then an env file holding the
/// rotated one and `names`, each with a value of its own.
fn drifted_fleet_declaring(names: &[String]) -> World {
    let w = World::new();
    w.rotated_fleet(3, RETIRED, ROTATED);
    let mut file = format!("SLACK_BOT_TOKEN={ROTATED}\n");
    for (i, name) in names.iter().enumerate() {
        file.push_str(&format!("{name}=value-{i}\n"));
    }
    w.write_env(&file);
    w
}

/// `plan --detailed-exitcode --json` finds the three sessions drifted
/// (exit 2), and no tmux call was longer than tmux takes.
fn assert_plan_finds_the_drift(w: &World, declared: usize) {
    w.install_tmux_wrapper();
    let out = w.the_loop(&["plan", "--detailed-exitcode", "--json"]);
    assert_eq!(out.status.code(), Some(2), "{}", explain(&out));
    let plan = json(&out);
    assert_eq!(plan["tmux_unanswered"], serde_json::Value::Null, "{plan:#}");
    assert_eq!(plan["summary"]["respawn"], 3, "{}", plan["summary"]);
    assert_eq!(plan["summary"]["unverified"], 0, "{}", plan["summary"]);
    assert_eq!(
        plan["env_fingerprints"].as_object().unwrap().len(),
        declared + 1
    );
    assert_eq!(plan["residue"]["state"], "observed", "{}", plan["residue"]);
    assert_no_canary(&out.stdout, CANARIES, "plan stdout");
    assert_no_canary(&out.stderr, CANARIES, "plan stderr");
    let calls = w.tmux_invocations();
    assert!(!calls.is_empty());
    for argv in &calls {
        let bytes: usize = argv.iter().map(|a| a.len() + 1).sum();
        assert!(
            bytes <= TMUX_ARGV_LIMIT,
            "a tmux call of {bytes} bytes of arguments: {:?}",
            argv.iter().map(|a| a.chars().take(60).collect::<String>())
        );
    }
}

#[test]
fn three_hundred_long_names_plan_the_drift_and_apply_rolls_it() {
    let names: Vec<String> = (0..300)
        .map(|i| format!("ACME_PRODUCTION_PAYMENTS_GATEWAY_OAUTH_CLIENT_SECRET_{i:03}"))
        .collect();
    let w = drifted_fleet_declaring(&names);
    assert_plan_finds_the_drift(&w, names.len());
    let text = w.the_loop(&["plan", "--detailed-exitcode"]);
    assert_eq!(text.status.code(), Some(2), "{}", explain(&text));
    assert!(stdout(&text).contains("3 to respawn"), "{}", stdout(&text));

    let apply = w.the_loop(&["apply", "--auto-approve", "--json"]);
    assert_eq!(apply.status.code(), Some(0), "{}", explain(&apply));
    let restarted = json(&apply)["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["outcome"] == "restarted")
        .count();
    assert_eq!(restarted, 3, "{}", stdout(&apply));
    let after = w.the_loop(&["plan", "--detailed-exitcode"]);
    assert_eq!(after.status.code(), Some(0), "{}", explain(&after));
    assert_no_canary(&apply.stdout, CANARIES, "apply stdout");
}

#[test]
fn eleven_hundred_short_names_plan_the_drift() {
    let names: Vec<String> = (0..1_100).map(|i| format!("TOKEN_{i:04}")).collect();
    let w = drifted_fleet_declaring(&names);
    assert_plan_finds_the_drift(&w, names.len());
}

#[test]
fn twenty_thousand_names_plan_the_drift() {
    let names: Vec<String> = (0..20_000).map(|i| format!("TOKEN_{i:05}")).collect();
    let w = drifted_fleet_declaring(&names);
    assert_plan_finds_the_drift(&w, names.len());
}

/// A `tmux` ahead of the real one that refuses the pane listing with
/// tmux's own words for a client and server of different versions.
const MISMATCH: &str = "protocol version mismatch (client 8, server 7)";

fn refusing_listing(w: &World) {
    let script = format!(
        "#!/bin/sh\nif [ \"$1\" = list-panes ]; then echo '{MISMATCH}' >&2; exit 1; fi\nexec '{}' \"$@\"\n",
        real_tmux().display()
    );
    w.install_bin_settled("tmux", &script, "-V");
}

#[test]
fn a_tmux_that_refuses_the_listing_makes_plan_and_apply_exit_1_naming_why() {
    let w = World::new();
    let sessions = w.rotated_fleet(2, RETIRED, ROTATED);
    refusing_listing(&w);

    let out = w.the_loop(&["plan", "--detailed-exitcode"]);
    assert_eq!(out.status.code(), Some(1), "{}", explain(&out));
    let text = stdout(&out);
    assert!(text.contains(MISMATCH), "{text}");
    assert!(!text.contains("No drift"), "{text}");

    let out = w.the_loop(&["plan", "--detailed-exitcode", "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", explain(&out));
    let plan = json(&out);
    let failed = &plan["observation_failed"];
    assert!(
        failed["cause"].as_str().unwrap().contains(MISMATCH),
        "{plan:#}"
    );
    assert_eq!(
        failed["sessions"],
        serde_json::json!(["github:octo/repo#1", "github:octo/repo#2"]),
        "{plan:#}"
    );
    let reason = plan["sessions"][0]["reason"].as_str().unwrap();
    assert!(reason.contains(MISMATCH), "{reason}");

    for args in [
        &["apply", "--auto-approve"][..],
        &["apply", "--auto-approve", "--json"][..],
        &["sessions", "restart", "--all", "--json"][..],
    ] {
        let out = w.the_loop(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", explain(&out));
        assert!(
            stdout(&out).contains(MISMATCH),
            "{args:?}: {}",
            explain(&out)
        );
    }
    for s in &sessions {
        assert!(w.pane(&s.name).is_some_and(|p| !p.dead), "never touched");
    }
}

#[test]
fn a_tmux_that_never_answers_makes_plan_exit_1_naming_the_timeout() {
    let w = World::new();
    let s = LegacySession {
        reference: "github:octo/repo#1".into(),
        slug: "github-octo-repo-1".into(),
        name: "loop-github-octo-repo-1".into(),
        session_id: "0000-github-octo-repo-1".into(),
        cwd: w.work.join("github-octo-repo-1"),
    };
    std::fs::create_dir_all(&s.cwd).unwrap();
    w.write_record(&s, "active");
    w.write_env(&format!("SLACK_BOT_TOKEN={ROTATED}\n"));
    let _hung = HungSocket::bind(&w.tmux_tmpdir);
    let env = [("THE_LOOP_TMUX_TIMEOUT_MS", "300")];
    let out = w.the_loop_with(&["plan", "--detailed-exitcode"], &env);
    assert_eq!(out.status.code(), Some(1), "{}", explain(&out));
    assert!(
        stdout(&out).contains("did not answer within 300ms"),
        "{}",
        explain(&out)
    );
}

#[test]
fn watch_names_the_cause_tmux_gave() {
    let w = World::new();
    w.rotated_fleet(1, RETIRED, ROTATED);
    refusing_listing(&w);
    let log = w.root().join("watch.log");
    let mut child = w
        .the_loop_command(&["watch", "--interval", "1"])
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::from(std::fs::File::create(&log).unwrap()))
        .stderr(Stdio::from(
            std::fs::OpenOptions::new().append(true).open(&log).unwrap(),
        ))
        .spawn()
        .expect("spawn watch");
    let deadline = Instant::now() + Duration::from_secs(20);
    let text = loop {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        if text.contains(MISMATCH) || Instant::now() > deadline {
            break text;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let _ = child.kill();
    let _ = child.wait();
    assert!(text.contains(MISMATCH), "{text}");
    assert!(
        text.contains("could not observe 1 managed session"),
        "{text}"
    );
    assert!(!text.contains("tmux did not answer"), "{text}");
    assert!(!text.contains("no drift"), "blind is not clean: {text}");
}
