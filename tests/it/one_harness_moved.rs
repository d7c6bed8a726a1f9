//! One conversation, one harness (issue 43), for the verbs a person runs on
//! a session they renamed, or whose harness pane they moved into a session
//! of their own: `sessions stop` ends the harness where it lives now,
//! `sessions deliver` pastes into it (never starting a second harness), and
//! `sessions list` says where it lives. Each acts only on a pane whose
//! process proves itself the record's; a pane that merely claims the
//! record's name in its start command is left alone. Real tmux, stand-in
//! harness; which processes hold the conversation is read from `/proc`.

use crate::support::*;

/// A started session whose tmux session a person renamed to `mywork`.
fn renamed(w: &World) -> (LegacySession, Pane) {
    w.write_env("EXTRA=one\n");
    let s = w.started_session("github:octo/repo#1", "github-octo-repo-1");
    let pane = w.pane(&s.name).unwrap();
    wait_for(
        || holding_ours(&s.session_id).len() == 1,
        "the harness runs",
    );
    w.tmux_ok(&["rename-session", "-t", &format!("={}", s.name), "mywork"]);
    (s, pane)
}

#[test]
fn a_renamed_session_is_stopped_where_it_lives() {
    let w = World::new();
    let (s, pane) = renamed(&w);

    let out = w.the_loop(&["sessions", "stop", &s.reference, "--json"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let report = json(&out);
    assert_eq!(report["close"]["tmux_target"], "mywork", "{report:#}");
    assert_eq!(
        report["close"]["record_target"],
        s.name.as_str(),
        "{report:#}"
    );
    assert_eq!(report["close"]["tmux"], "retained", "{report:#}");
    assert_eq!(
        report["close"]["harness"][0]["pid"], pane.pid,
        "the proven harness was ended: {report:#}"
    );
    wait_for(|| !alive(pane.pid), "the harness ended");
    assert!(holding_ours(&s.session_id).is_empty());
    assert_eq!(w.record(&s.slug).unwrap()["status"], "closed");
    assert!(
        w.pane("mywork").is_some_and(|p| p.dead),
        "kept, its pane dead"
    );
    assert!(!w.tmux_sessions().contains(&s.name));
}

#[test]
fn a_moved_pane_is_stopped_and_only_its_pane_is_killed() {
    let w = World::new();
    w.write_env("EXTRA=one\n");
    let s = w.started_session("github:octo/repo#1", "github-octo-repo-1");
    let pane = w.pane(&s.name).unwrap();
    w.tmux_ok(&["new-session", "-d", "-s", "mine"]);
    let theirs = w.pane("mine").unwrap();
    w.tmux_ok(&["join-pane", "-d", "-s", &pane.id, "-t", "=mine:"]);

    let out = w.the_loop(&["sessions", "stop", &s.reference, "--kill-tmux"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let said = stdout(&out);
    assert!(!said.contains("There was no tmux session"), "{said}");
    assert!(said.contains("mine"), "{said}");
    wait_for(|| !alive(pane.pid), "the harness ended");
    let left = w.tmux_ok(&["list-panes", "-s", "-t", "=mine", "-F", "#{pane_id}"]);
    assert_eq!(left.trim(), theirs.id, "only their pane is left: {left}");
    assert!(alive(theirs.pid), "their shell untouched");
}

#[test]
fn a_renamed_session_gets_its_delivery_and_no_second_harness() {
    let w = World::new();
    let (s, pane) = renamed(&w);

    let out = w.the_loop(&[
        "sessions",
        "deliver",
        &s.reference,
        "--message",
        "hello from the webhook",
        "--delivery-id",
        "d-1",
        "--json",
    ]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let report = json(&out);
    assert_eq!(report["outcome"], "delivered", "{report:#}");
    assert_eq!(report["route"], "pasted", "{report:#}");
    assert_eq!(report["tmux_target"], "mywork", "{report:#}");
    wait_for(
        || {
            w.inputs(&s)
                .iter()
                .any(|i| i.contains("hello from the webhook"))
        },
        "the text reached the renamed session's harness",
    );
    // The stand-in's own subshells share its argv for a moment.
    wait_for(
        || holding_ours(&s.session_id) == vec![pane.pid],
        "one harness on the conversation",
    );
    assert!(!w.tmux_sessions().contains(&s.name), "nothing started");

    // The same id again is a duplicate, not a second paste.
    let again = w.the_loop(&[
        "sessions",
        "deliver",
        &s.reference,
        "--message",
        "hello from the webhook",
        "--delivery-id",
        "d-1",
        "--json",
    ]);
    assert_eq!(json(&again)["outcome"], "duplicate", "{}", explain(&again));
}

#[test]
fn the_list_says_where_a_renamed_session_lives() {
    let w = World::new();
    let (s, _) = renamed(&w);

    let out = w.the_loop(&["sessions", "list", "--json"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let list = json(&out);
    let rows = list["sessions"].as_array().unwrap();
    let row = session_in(&list, &s.reference);
    assert_eq!(row["tmux_target"], s.name.as_str(), "{row:#}");
    assert_eq!(row["lives_in"], "mywork", "{row:#}");
    assert_eq!(row["live"], "live", "{row:#}");
    assert!(
        rows.iter().all(|r| r["tmux_target"] != "mywork"),
        "not listed again as another session: {list:#}"
    );
    let text = stdout(&w.the_loop(&["sessions", "list"]));
    assert!(text.contains("mywork"), "{text}");
}

/// A pane whose start command claims the record's session, but whose
/// process says nothing of the record, is not the record's: nothing is
/// signalled or typed into it.
#[test]
fn a_pane_that_only_claims_the_name_is_left_alone() {
    let w = World::new();
    w.write_env("EXTRA=one\n");
    let s = w.started_session("github:octo/repo#1", "github-octo-repo-1");
    let pane = w.pane(&s.name).unwrap();
    w.tmux_ok(&["kill-session", "-t", &format!("={}", s.name)]);
    wait_for(|| !alive(pane.pid), "the harness ended with its session");
    let impostor = w.install_bin_settled(
        "impostor",
        "#!/bin/sh\n[ \"$1\" = probe ] && exit 0\nexec sleep 300\n",
        "probe",
    );
    w.tmux_ok(&[
        "new-session",
        "-d",
        "-s",
        "theirs",
        "--",
        impostor.to_str().unwrap(),
        "exec",
        "--work-item",
        &s.reference,
        "--",
        "claude",
    ]);
    let theirs = w.pane("theirs").unwrap();

    let out = w.the_loop(&["sessions", "stop", &s.reference, "--json"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let report = json(&out);
    assert_eq!(report["close"]["tmux"], "absent", "{report:#}");
    assert!(report["close"]["harness"].as_array().unwrap().is_empty());
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(alive(theirs.pid), "the impostor was not signalled");
    assert!(!theirs.dead && w.pane("theirs").is_some_and(|p| !p.dead));
}

/// The live harnesses holding conversation `id`.
fn holding_ours(id: &str) -> Vec<i32> {
    crate::support::holders::holding(id, true)
}
