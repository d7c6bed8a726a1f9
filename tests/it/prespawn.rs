//! Issue 11, class 1: a roll must never end a harness whose replacement
//! cannot start. Each fault below makes the new launch impossible; `apply`
//! is then run three times, because the reported failure was "every further
//! apply takes the next live session as canary and kills it". After all
//! three, every harness must still be the very process it was (same pid,
//! alive), no SIGTERM may have been sent, every run exits 1, and the report
//! names the reason but never a value.

use crate::support::*;

const RETIRED: &str = "xoxb-RETIRED-pr3sp4wn-0b5e";
const ROTATED: &str = "xoxb-ROTATED-pr3sp4wn-4d2c";
/// Marks every value the faults deliver, so a leak is found wherever it lands.
const MARK: &str = "pr3sp4wnVALUE";

/// Three drifted sessions, then `fault` makes their relaunch impossible;
/// three applies must leave every one of them untouched and say `reason`.
fn three_applies_touch_nothing(fault: impl FnOnce(&World), reason: &str) {
    let w = World::new();
    let sessions = w.rotated_fleet(3, RETIRED, ROTATED);
    let before: Vec<i32> = sessions
        .iter()
        .map(|s| w.pane(&s.name).expect("pane").pid)
        .collect();
    fault(&w);
    for run in 1..=3 {
        let out = w.the_loop(&["apply", "--auto-approve", "--json"]);
        assert_eq!(
            out.status.code(),
            Some(1),
            "apply #{run} must exit 1: {}{}",
            stdout(&out),
            stderr(&out)
        );
        assert_no_canary(&out.stdout, &[MARK, ROTATED], "apply stdout");
        assert_no_canary(&out.stderr, &[MARK, ROTATED], "apply stderr");
        let report = json(&out);
        for s in &sessions {
            let entry = report["sessions"]
                .as_array()
                .unwrap()
                .iter()
                .find(|e| e["ref"] == s.reference.as_str())
                .unwrap_or_else(|| panic!("{} not in {report}", s.reference));
            assert_eq!(entry["outcome"], "left_alone", "apply #{run}: {entry}");
            let detail = entry["detail"].as_str().unwrap_or_default();
            assert!(detail.contains(reason), "apply #{run}: {detail}");
        }
    }
    for (s, pid) in sessions.iter().zip(before) {
        let pane = w.pane(&s.name).expect("the session is still there");
        assert_eq!(pane.pid, pid, "{} was respawned", s.name);
        assert!(!pane.dead && alive(pid), "{} is dead", s.name);
    }
    assert!(
        w.events_named("session.harness_terminated").is_empty(),
        "a harness was signalled"
    );
    assert_no_canary(
        std::fs::read_to_string(w.state.join("events.jsonl"))
            .unwrap_or_default()
            .as_bytes(),
        &[MARK, ROTATED],
        "event log",
    );
}

#[test]
fn a_missing_harness_binary_leaves_every_session_alone() {
    three_applies_touch_nothing(
        |w| {
            w.write_config_with_routing(&format!(
                "  harnessBinary:\n    claude: {}\n",
                w.root().join("no-such-dir/claude").display()
            ))
        },
        "harness",
    );
}

#[test]
fn a_harness_missing_from_the_delivered_path_leaves_every_session_alone() {
    three_applies_touch_nothing(
        |w| {
            w.write_config("  deliver: [PATH]\n");
            let empty = w.root().join("empty-bin");
            std::fs::create_dir_all(&empty).unwrap();
            w.write_env(&format!(
                "SLACK_BOT_TOKEN={ROTATED}\nPATH={}\n",
                empty.display()
            ));
        },
        "harness",
    );
}

#[test]
fn a_delivered_value_over_the_per_string_exec_limit_leaves_every_session_alone() {
    three_applies_touch_nothing(
        |w| {
            w.write_config("  deliver: [BIG_TOKEN]\n");
            let big = MARK.repeat(131_072 / MARK.len() + 1);
            w.write_env(&format!("SLACK_BOT_TOKEN={ROTATED}\nBIG_TOKEN={big}\n"));
        },
        "BIG_TOKEN",
    );
}

#[test]
fn delivered_values_over_the_total_exec_limit_leave_every_session_alone() {
    three_applies_touch_nothing(
        |w| {
            // Each value fits on its own; together they pass ARG_MAX.
            let names: Vec<String> = (0..40).map(|i| format!("BIG_{i}")).collect();
            w.write_config(&format!("  deliver: [{}]\n", names.join(", ")));
            let value = MARK.repeat(100_000 / MARK.len());
            let mut text = format!("SLACK_BOT_TOKEN={ROTATED}\n");
            for name in &names {
                text.push_str(&format!("{name}={value}\n"));
            }
            w.write_env(&text);
        },
        "exec limit",
    );
}

/// The reporter's example: a NUL inside a delivered value. The env file no
/// longer parses, so apply refuses before it looks at any session, names the
/// file and line, and shows nothing of the value.
#[test]
fn a_nul_in_a_delivered_value_is_a_parse_error_and_nothing_is_touched() {
    let w = World::new();
    let sessions = w.rotated_fleet(2, RETIRED, ROTATED);
    let before: Vec<i32> = sessions
        .iter()
        .map(|s| w.pane(&s.name).expect("pane").pid)
        .collect();
    w.write_config("  deliver: [API_TOKEN]\n");
    std::fs::write(
        w.root().join(".env"),
        format!("SLACK_BOT_TOKEN={ROTATED}\nAPI_TOKEN=abc{MARK}\0def\n"),
    )
    .unwrap();
    for _ in 0..3 {
        let out = w.the_loop(&["apply", "--auto-approve"]);
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains(".env:2:"), "{err}");
        assert!(err.contains("NUL"), "{err}");
        assert_no_canary(&out.stdout, &[MARK, ROTATED], "stdout");
        assert_no_canary(&out.stderr, &[MARK, ROTATED], "stderr");
    }
    for (s, pid) in sessions.iter().zip(before) {
        let pane = w.pane(&s.name).unwrap();
        assert_eq!(pane.pid, pid);
        assert!(!pane.dead && alive(pid));
    }
    assert!(w.events_named("session.harness_terminated").is_empty());
}

/// The delivery's respawn path asks the same check before `new-session`: a
/// session that died while its harness binary went missing is not replaced
/// by a pane that dies at once (which would leave a dead session and the
/// pending text undeliverable). The delivery fails, naming the harness, and
/// no `loop-*` session is created.
#[test]
fn a_delivery_respawn_whose_harness_cannot_start_spawns_nothing() {
    let w = World::new();
    w.write_env("EXAMPLE_SETTING=not-secret\n");
    let s = w.started_session("github:octo/repo#9", "github-octo-repo-9");
    w.tmux_ok(&["kill-session", "-t", &format!("={}", s.name)]);
    w.write_config_with_routing(&format!(
        "  harnessBinary:\n    claude: {}\n",
        w.root().join("no-such-dir/claude").display()
    ));
    let out = w.the_loop(&[
        "sessions",
        "deliver",
        &s.reference,
        "--message",
        "after the crash",
        "--delivery-id",
        "p-1",
        "--json",
    ]);
    assert_ne!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert_ne!(out.status.code(), Some(101), "{}", stderr(&out));
    let said = format!("{}{}", stdout(&out), stderr(&out));
    assert!(said.contains("the new launch cannot start"), "{said}");
    assert!(said.contains("harness"), "{said}");
    assert!(w.pane(&s.name).is_none(), "a session was spawned");
    // The conversation is still the recorded one, for the next attempt.
    assert_eq!(
        w.record(&s.slug).unwrap()["harnessSessionId"],
        s.session_id.as_str()
    );
}
