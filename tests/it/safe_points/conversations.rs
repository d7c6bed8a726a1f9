//! Each respawn resumes the person's conversation and says whether the new harness confirmed it.

use super::*;

#[test]
fn a_resume_is_confirmed_by_the_new_harness_and_a_blocking_dialog_is_blocked() {
    let w = world();
    let fine = stale_session(&w, 1);
    let stuck = stale_session(&w, 2);
    rotate(&w);
    // The stand-in draws Claude Code's API-key dialog on its next resume.
    std::fs::OpenOptions::new()
        .append(true)
        .open(w.transcript(&stuck))
        .and_then(|mut f| {
            std::io::Write::write_all(&mut f, b"{\"type\":\"block-api-key-dialog\"}\n")
        })
        .unwrap();

    let out = w.the_loop(&["apply", "--auto-approve", "--json"]);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    let report = json(&out);
    let row = session_in(&report, &fine.reference);
    assert_eq!(row["outcome"], "restarted", "{report}");
    assert_eq!(row["conversation"], "confirmed", "{report}");
    let row = session_in(&report, &stuck.reference);
    assert_eq!(row["outcome"], "blocked", "{report}");
    assert_eq!(row["detail"], "stopped at the API-key dialog", "{report}");
    assert_eq!(row["conversation"], "unconfirmed", "{report}");
    // The dialog shows the end of a key: only its name is ever reported.
    assert!(!stdout(&out).contains("sk-ant"), "{}", stdout(&out));
    let blocked = w.events_named("session.blocked");
    assert_eq!(blocked.len(), 1, "{blocked:?}");
    assert_eq!(blocked[0]["screen"], "API-key dialog");
    let finished = w.events_named("apply.finished");
    let outcomes = finished.last().unwrap()["sessions"].clone();
    assert!(
        outcomes
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["outcome"] == "blocked" && s["conversation"] == "unconfirmed"),
        "{outcomes}"
    );
}

#[test]
fn a_session_without_hooks_rolls_at_once_and_its_new_harness_confirms_the_resume() {
    let w = World::new();
    let sessions = w.rotated_fleet(1, "xoxb-RETIRED-safe-1", "xoxb-ROTATED-safe-1");
    let s = &sessions[0];
    let row = plan_row(&w, s);
    assert_eq!(row["activity"], "unknown", "{row}");
    assert_eq!(row["apply_will"], "roll_now", "{row}");
    let out = w.the_loop(&["apply", "--auto-approve", "--json"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let report = json(&out);
    let row = session_in(&report, &s.reference);
    assert_eq!(row["outcome"], "restarted", "{report}");
    // The respawn runs through the launcher, which adds the hooks: the new
    // harness reports its resume although the old one could not.
    assert_eq!(row["conversation"], "confirmed", "{report}");
}

/// `/clear` starts another conversation in the same harness process. The
/// roll follows the person there: it never resumes the conversation from
/// before the clear; while the new one has no transcript (nothing typed
/// since) it leaves the session alone and says why; once it has one, it
/// writes it into the record (keeping the old id), resumes and confirms it.
#[test]
fn after_clear_the_roll_resumes_the_conversation_the_person_is_in() {
    let w = world();
    let s = stale_session(&w, 1);
    rotate(&w);
    type_line(&w, &s, "/clear");
    wait_for(
        || !plan_row(&w, &s)["conversation_moved"].is_null(),
        "the plan sees the new conversation",
    );
    let row = plan_row(&w, &s);
    let moved = &row["conversation_moved"];
    assert_eq!(moved["from"], s.session_id.as_str(), "{row}");
    let new_id = moved["to"].as_str().unwrap().to_owned();
    assert_ne!(new_id, s.session_id);
    let text = stdout(&w.the_loop(&["plan"]));
    assert!(
        text.contains(&format!("conversation {} → {new_id}", s.session_id)),
        "{text}"
    );
    // sessions list names the conversation the person is in.
    let list = json(&w.the_loop(&["sessions", "list", "--json"]));
    let listed = session_in(&list, &s.reference);
    assert_eq!(listed["conversation_id"], new_id.as_str(), "{list}");
    assert_eq!(
        listed["recorded_conversation_id"],
        s.session_id.as_str(),
        "{list}"
    );

    // Nothing typed since the clear: no transcript to resume, so nothing is
    // touched, and the old conversation is not brought back.
    let out = w.the_loop(&["apply", "--auto-approve", "--json"]);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    let report = json(&out);
    let row = session_in(&report, &s.reference);
    assert_eq!(row["outcome"], "left_alone", "{report}");
    assert!(
        row["detail"].as_str().unwrap().contains(&new_id),
        "{report}"
    );
    assert!(!signalled(&w, &s));

    type_line(&w, &s, "something after the clear");
    wait_for(
        || plan_row(&w, &s)["left_alone"].is_null(),
        "the new conversation has a transcript",
    );
    let out = w.the_loop(&["apply", "--auto-approve", "--json"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let report = json(&out);
    let row = session_in(&report, &s.reference);
    assert_eq!(row["outcome"], "restarted", "{report}");
    assert_eq!(row["conversation"], "confirmed", "{report}");
    assert_eq!(row["harness_session_id"], new_id.as_str(), "{report}");
    let now = w.pane(&s.name).unwrap();
    let argv = cmdline(now.pid);
    assert!(
        argv.windows(2)
            .any(|p| p[0] == "--resume" && p[1] == new_id),
        "{argv:?}"
    );
    let record = w.record(&s.slug).unwrap();
    assert_eq!(record["harnessSessionId"], new_id.as_str(), "{record}");
    assert_eq!(
        record["previousHarnessSessionIds"],
        serde_json::json!([s.session_id]),
        "{record}"
    );
    // Followed once: the next plan is clean.
    assert!(plan_row(&w, &s)["conversation_moved"].is_null());
}
