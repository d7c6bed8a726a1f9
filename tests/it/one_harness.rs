//! One conversation, one harness, whatever a person does to tmux: a
//! renamed session keeps its harness, and no verb that would launch another
//! harness on the same conversation (a `deliver` that finds no session by
//! its name delivers into the renamed one, a `start` is refused) may do so. Checked on a real tmux from `/proc`:
//! which processes hold the conversation in their argv.

use crate::support::*;

#[test]
fn a_renamed_session_gets_no_second_harness_on_its_conversation() {
    let w = World::new();
    w.write_env("EXTRA=one\n");
    let s = w.started_session("github:octo/repo#1", "github-octo-repo-1");
    let pane = w.pane(&s.name).unwrap();
    wait_for(
        || holding_ours(&s.session_id).len() == 1,
        "the harness runs",
    );
    w.tmux_ok(&["rename-session", "-t", &format!("={}", s.name), "mywork"]);

    // What a webhook triggers: its session is not found by its name, but
    // its harness is, and the text goes there (`one_harness_moved.rs`).
    let out = w.the_loop(&[
        "sessions",
        "deliver",
        "github:octo/repo#1",
        "--message",
        "hello",
        "--delivery-id",
        "d-1",
        "--json",
    ]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let report = json(&out);
    assert_eq!(report["route"], "pasted", "{report:#}");
    assert_eq!(report["tmux_target"], "mywork", "{report:#}");
    // The stand-in's own subshells share its argv for a moment.
    wait_for(
        || holding_ours(&s.session_id) == vec![pane.pid],
        "one harness on the conversation",
    );

    // A start is refused: a second harness would interleave the first.
    let out = w.the_loop(&[
        "sessions",
        "start",
        "github:octo/repo#1",
        "--cwd",
        s.cwd.to_str().unwrap(),
    ]);
    assert_ne!(code(&out), Some(0), "{}", explain(&out));
    assert!(
        flat(&stderr(&out)).contains(&flat("is already held by a live harness")),
        "{}",
        explain(&out)
    );
    assert_eq!(
        holding_ours(&s.session_id),
        vec![pane.pid],
        "one harness on the conversation, the renamed session's"
    );
    assert!(
        !w.tmux_sessions().contains(&s.name),
        "no session was started under the old name: {:?}",
        w.tmux_sessions()
    );
}

#[test]
fn a_renamed_session_is_planned_and_rolled_where_it_lives_now() {
    let w = World::new();
    w.write_config("  deliver: [EXTRA]\n");
    w.write_env("EXTRA=one\n");
    let s = w.started_session("github:octo/repo#1", "github-octo-repo-1");
    let pane = w.pane(&s.name).unwrap();
    w.tmux_ok(&["rename-session", "-t", &format!("={}", s.name), "mywork"]);
    w.write_env("EXTRA=two\n");

    let plan = w.the_loop(&["plan", "--json", "--detailed-exitcode"]);
    assert_eq!(code(&plan), Some(2), "{}", explain(&plan));
    let row = session_in(&json(&plan), &s.reference).clone();
    assert_eq!(row["tmux_target"], "mywork", "{row:#}");
    assert_eq!(row["action"], "respawn", "{row:#}");
    assert_eq!(row["pane_id"], pane.id.as_str(), "{row:#}");

    let out = w.the_loop(&["apply", "--auto-approve", "--json"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    assert_eq!(
        session_in(&json(&out), &s.reference)["outcome"],
        "restarted"
    );
    let now = w.pane("mywork").expect("the renamed session");
    assert_eq!(now.id, pane.id, "rolled in place");
    assert_ne!(now.pid, pane.pid);
    assert_eq!(
        environ(now.pid).get("EXTRA").map(String::as_str),
        Some("two")
    );
    assert_eq!(holding_ours(&s.session_id), vec![now.pid], "one harness");
    assert!(!w.tmux_sessions().contains(&s.name));
    let plan = w.the_loop(&["plan", "--detailed-exitcode"]);
    assert_eq!(code(&plan), Some(0), "{}", explain(&plan));
}

#[test]
fn a_pane_moved_into_a_persons_session_is_rolled_there_and_their_pane_is_left_alone() {
    let w = World::new();
    w.write_config("  deliver: [EXTRA]\n");
    w.write_env("EXTRA=one\n");
    let s = w.started_session("github:octo/repo#1", "github-octo-repo-1");
    let pane = w.pane(&s.name).unwrap();
    w.tmux_ok(&["new-session", "-d", "-s", "mine"]);
    let theirs = w.pane("mine").unwrap();
    w.tmux_ok(&["join-pane", "-d", "-s", &pane.id, "-t", "=mine:"]);
    assert!(!w.tmux_sessions().contains(&s.name), "moved out");
    w.write_env("EXTRA=two\n");

    let plan = w.the_loop(&["plan", "--json", "--detailed-exitcode"]);
    assert_eq!(code(&plan), Some(2), "{}", explain(&plan));
    let row = session_in(&json(&plan), &s.reference).clone();
    assert_eq!(row["tmux_target"], "mine", "{row:#}");
    assert_eq!(row["pane_id"], pane.id.as_str(), "{row:#}");

    let out = w.the_loop(&["apply", "--auto-approve", "--json"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let panes = w.tmux_ok(&["list-panes", "-t", "=mine:", "-F", "#{pane_id} #{pane_pid}"]);
    let pids: std::collections::BTreeMap<String, i32> = panes
        .lines()
        .filter_map(|l| {
            let (id, pid) = l.split_once(' ')?;
            Some((id.to_owned(), pid.parse().ok()?))
        })
        .collect();
    assert_eq!(
        pids.get(&theirs.id),
        Some(&theirs.pid),
        "their pane untouched"
    );
    let new_pid = pids[&pane.id];
    assert_ne!(new_pid, pane.pid);
    assert_eq!(
        environ(new_pid).get("EXTRA").map(String::as_str),
        Some("two")
    );
    assert_eq!(holding_ours(&s.session_id), vec![new_pid], "one harness");
}

/// Two records naming one conversation (one copied by hand): the plan says
/// so, in its text and in each row's `conversation_shared_with`, and a roll
/// leaves both alone rather than resume either.
#[test]
fn two_records_naming_one_conversation_are_reported_and_neither_is_rolled() {
    let w = World::new();
    w.write_config("  deliver: [EXTRA]\n");
    w.write_env("EXTRA=one\n");
    let s = w.started_session("github:octo/repo#1", "github-octo-repo-1");
    let pane = w.pane(&s.name).unwrap();
    let mut copy = w.record(&s.slug).unwrap();
    copy["workItem"]["ref"] = "github:octo/repo#2".into();
    copy["workItem"]["number"] = 2.into();
    copy["tmuxTarget"] = "loop-github-octo-repo-2".into();
    std::fs::write(
        w.record_path("github-octo-repo-2"),
        serde_json::to_vec_pretty(&copy).unwrap(),
    )
    .unwrap();
    set_mode(&w.record_path("github-octo-repo-2"), 0o600);
    w.write_env("EXTRA=two\n");

    let out = w.the_loop(&["plan", "--json", "--detailed-exitcode"]);
    assert_eq!(code(&out), Some(2), "{}", explain(&out));
    let plan = json(&out);
    let one = session_in(&plan, &s.reference);
    assert_eq!(
        one["conversation_shared_with"],
        serde_json::json!(["github:octo/repo#2"]),
        "{one:#}"
    );
    let words = one["left_alone"].as_str().expect("left alone");
    assert!(words.contains(&s.session_id), "{words}");
    assert!(words.contains("github:octo/repo#2"), "{words}");
    let two = session_in(&plan, "github:octo/repo#2");
    assert_eq!(
        two["conversation_shared_with"],
        serde_json::json!([s.reference.as_str()]),
        "{two:#}"
    );
    let text = stdout(&w.the_loop(&["plan", "--no-color"]));
    assert!(
        flat(&text).contains(&flat("is named by another record too")),
        "{text}"
    );

    let out = w.the_loop(&["apply", "--auto-approve", "--json"]);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    let report = json(&out);
    assert_eq!(
        session_in(&report, &s.reference)["outcome"],
        "left_alone",
        "{report:#}"
    );
    let now = w.pane(&s.name).unwrap();
    assert_eq!(now.pid, pane.pid, "not rolled");
    assert!(!w
        .tmux_sessions()
        .contains(&"loop-github-octo-repo-2".to_owned()));
    assert_eq!(holding_ours(&s.session_id), vec![pane.pid]);

    // `sessions list` reports them as the plan does.
    let out = w.the_loop(&["sessions", "list", "--json"]);
    let listed = json(&out);
    let rows = listed["sessions"].as_array().unwrap();
    let row = |r: &str| rows.iter().find(|x| x["ref"] == r).unwrap().clone();
    assert_eq!(
        row(&s.reference)["conversation_shared_with"][0],
        "github:octo/repo#2",
        "{listed:#}"
    );
    assert_eq!(
        row("github:octo/repo#2")["conversation_shared_with"][0],
        s.reference.as_str(),
        "{listed:#}"
    );
    let out = w.the_loop(&["sessions", "list"]);
    assert!(
        flat(&stderr(&out)).contains(&flat("names the conversation of")),
        "{}",
        explain(&out)
    );
}

/// The live harnesses holding conversation `id`.
fn holding_ours(id: &str) -> Vec<i32> {
    crate::support::holders::holding(id, true)
}
