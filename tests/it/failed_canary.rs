//! Issue 43, fault 2 on a real tmux with the stand-in harness: a harness
//! that exits at once when resumed must not be taken as the canary by every
//! later `apply`, which left the rest of the fleet `not attempted` for good.
//! Its failure is remembered (by session and conversation): the next roll
//! leaves it alone, saying what happened, and takes another canary. (This
//! replaces issue 11's test of a dead canary retried first by every apply:
//! what it also asked, that the dead one is reported and never "not
//! running", and that it comes back on its own conversation once its cause
//! is mended, is checked here.)

use crate::support::*;

const RETIRED: &str = "xoxb-RETIRED-canary-7a10";
const ROTATED: &str = "xoxb-ROTATED-canary-93fe";

/// `n` sessions born on a server holding the retired token, which the env
/// file delivers, then the rotation. Conversation ids are made from the
/// refs, so each test names a repository of its own: a harness of another
/// test's world never holds one of its conversations.
fn rotated_fleet(repo: &str, n: usize) -> (World, Vec<LegacySession>) {
    let w = World::new();
    w.write_config("  deliver: [SLACK_BOT_TOKEN]\n");
    w.write_env(&format!("SLACK_BOT_TOKEN={RETIRED}\n"));
    w.start_server_holding(&[("SLACK_BOT_TOKEN", RETIRED)]);
    let sessions = (1..=n)
        .map(|i| {
            w.legacy_session(
                &format!("github:octo/{repo}#{i}"),
                &format!("github-octo-{repo}-{i}"),
            )
        })
        .collect();
    w.write_env(&format!("SLACK_BOT_TOKEN={ROTATED}\n"));
    (w, sessions)
}

fn apply(w: &World) -> serde_json::Value {
    let out = w.the_loop(&["apply", "--auto-approve", "--json"]);
    assert_ne!(code(&out), Some(101), "{}", explain(&out));
    let report = json(&out);
    assert_eq!(code(&out), Some(1), "a session is left stale: {report}");
    report
}

/// The session `apply` takes as its canary: the first it would roll.
fn first_to_roll<'a>(w: &World, sessions: &'a [LegacySession]) -> &'a LegacySession {
    let plan = json(&w.the_loop(&["plan", "--json"]));
    let first = plan["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["action"] == "respawn")
        .expect("a session to roll");
    sessions
        .iter()
        .find(|s| first["ref"] == s.reference.as_str())
        .unwrap()
}

fn holds_the_rotated_token(w: &World, s: &LegacySession) -> bool {
    let pane = w.pane(&s.name).unwrap();
    !pane.dead && environ(pane.pid).get("SLACK_BOT_TOKEN").map(String::as_str) == Some(ROTATED)
}

#[test]
fn a_harness_that_cannot_resume_stops_one_roll_and_is_left_alone_by_the_next() {
    let (w, sessions) = rotated_fleet("canary43a", 10);
    let canary = first_to_roll(&w, &sessions);
    std::fs::write(w.transcript(canary), "{\"test\":\"fail-resume\"}\n").unwrap();

    // The first roll: the canary fails, so nothing else is touched.
    let first = apply(&w);
    assert_eq!(
        session_in(&first, &canary.reference)["outcome"],
        "resume_failed",
        "{first}"
    );
    for s in sessions.iter().filter(|s| s.reference != canary.reference) {
        assert_eq!(session_in(&first, &s.reference)["outcome"], "not_attempted");
    }

    // The plan still reports it, never as a session that is not running.
    let plan = json(&w.the_loop(&["plan", "--json"]));
    assert_ne!(
        session_in(&plan, &canary.reference)["action"],
        "skip",
        "{plan}"
    );

    // The second: the failed one is left alone, saying what happened, and
    // another canary takes the rest of the fleet to the new value.
    let second = apply(&w);
    let dead = session_in(&second, &canary.reference);
    assert_eq!(dead["outcome"], "left_alone", "{second}");
    let detail = dead["detail"].as_str().unwrap();
    assert!(
        detail.contains("its harness exited at once when resumed at "),
        "{detail}"
    );
    assert!(!detail.contains("never respawned"), "{detail}");
    assert!(
        w.pane(&canary.name).unwrap().dead,
        "left alone, not retried"
    );
    for s in sessions.iter().filter(|s| s.reference != canary.reference) {
        assert_eq!(
            session_in(&second, &s.reference)["outcome"],
            "restarted",
            "{second}"
        );
        assert!(holds_the_rotated_token(&w, s), "{} rolled", s.reference);
    }

    // A third changes nothing and says the same.
    let pids: Vec<i32> = sessions
        .iter()
        .map(|s| w.pane(&s.name).unwrap().pid)
        .collect();
    let third = apply(&w);
    assert_eq!(
        session_in(&third, &canary.reference)["outcome"],
        "left_alone"
    );
    let after: Vec<i32> = sessions
        .iter()
        .map(|s| w.pane(&s.name).unwrap().pid)
        .collect();
    assert_eq!(pids, after, "nothing touched: {third}");
    let status = stdout(&w.the_loop(&["status"]));
    assert!(
        flat(&status).contains(&flat("its harness exited at once when resumed at")),
        "{status}"
    );

    // Once the cause is mended, naming the session retries it, on its own
    // conversation, and the fleet is clean.
    std::fs::write(w.transcript(canary), "").unwrap();
    let out = w.the_loop(&["sessions", "restart", &canary.reference, "--json"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    assert!(holds_the_rotated_token(&w, canary));
    let argv = cmdline(w.pane(&canary.name).unwrap().pid);
    assert!(
        argv.windows(2)
            .any(|a| a[0] == "--resume" && a[1] == canary.session_id),
        "resumed its own conversation: {argv:?}"
    );
    let out = w.the_loop(&["apply", "--auto-approve", "--json"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    assert!(
        std::fs::read_dir(w.state.join("resume-failures"))
            .map(|d| d.count() == 0)
            .unwrap_or(true),
        "the memory of the failure is gone once it rolled well"
    );
}

/// Two harnesses that cannot resume look like a cause of the fleet's own:
/// no third canary is ended for it.
#[test]
fn a_second_harness_that_cannot_resume_stops_the_search_for_canaries() {
    let (w, sessions) = rotated_fleet("canary43b", 4);
    let first = first_to_roll(&w, &sessions);
    std::fs::write(w.transcript(first), "{\"test\":\"fail-resume\"}\n").unwrap();
    apply(&w);
    let second = first_to_roll(&w, &sessions);
    assert_ne!(second.reference, first.reference);
    std::fs::write(w.transcript(second), "{\"test\":\"fail-resume\"}\n").unwrap();
    let report = apply(&w);
    assert_eq!(
        session_in(&report, &second.reference)["outcome"],
        "resume_failed"
    );
    let pids: Vec<(String, i32)> = sessions
        .iter()
        .map(|s| (s.reference.clone(), w.pane(&s.name).unwrap().pid))
        .collect();
    let report = apply(&w);
    for (reference, pid) in &pids {
        let outcome = &session_in(&report, reference)["outcome"];
        if *reference == first.reference || *reference == second.reference {
            assert_eq!(outcome, "left_alone", "{report}");
        } else {
            assert_eq!(outcome, "not_attempted", "{report}");
            let s = sessions.iter().find(|s| s.reference == *reference).unwrap();
            assert_eq!(w.pane(&s.name).unwrap().pid, *pid, "untouched");
        }
    }
}

/// The plan says what happened to a canary whose harness exited at once
/// when resumed, as `apply` and `status` do: it was respawned, and its
/// harness exited; `apply` leaves it alone, and naming it retries it (so a
/// plan of that session alone predicts the retry).
#[test]
fn the_plan_says_a_failed_canary_was_respawned_and_exited_and_how_to_retry_it() {
    let (w, sessions) = rotated_fleet("canary43c", 2);
    let canary = first_to_roll(&w, &sessions);
    std::fs::write(w.transcript(canary), "{\"test\":\"fail-resume\"}\n").unwrap();
    apply(&w);

    let plan = json(&w.the_loop(&["plan", "--json"]));
    let row = session_in(&plan, &canary.reference);
    let reason = row["reason"].as_str().unwrap_or_default();
    assert!(!reason.contains("never respawned"), "{row:#}");
    assert!(
        reason.contains("was respawned") && reason.contains("exited at once when resumed"),
        "{row:#}"
    );
    let left_alone = row["left_alone"].as_str().expect("left alone by apply");
    for words in [
        "exited at once when resumed",
        &format!("the-loop sessions restart {}", canary.reference),
        &format!("the-loop apply --target {}", canary.reference),
    ] {
        assert!(left_alone.contains(words), "{words}: {row:#}");
    }
    assert_eq!(plan["summary"]["resume"], 0, "{plan:#}");
    assert_eq!(plan["summary"]["left_alone"], 1, "{plan:#}");

    let text = stdout(&w.the_loop(&["plan", "--no-color"]));
    assert!(!flat(&text).contains("never respawned"), "{text}");
    assert!(
        flat(&text).contains(&flat(&format!(
            "the-loop sessions restart {}",
            canary.reference
        ))),
        "{text}"
    );

    // Named, it is retried: the plan of that session alone says so.
    let plan = json(&w.the_loop(&["plan", "--json", "--target", &canary.reference]));
    let row = session_in(&plan, &canary.reference);
    assert_eq!(row["action"], "resume", "{row:#}");
    assert!(row["left_alone"].is_null(), "{row:#}");
    assert!(
        row["reason"]
            .as_str()
            .is_some_and(|r| r.contains("exited at once when resumed")),
        "{row:#}"
    );
}
