//! One conversation, one harness, whatever a person does to tmux: a
//! renamed session keeps its harness, and no verb that would launch another
//! harness on the same conversation (a `deliver` that finds no session by
//! its name, a `start`) may do so. Checked on a real tmux from `/proc`:
//! which processes hold the conversation in their argv.

use crate::support::*;

/// The live processes whose argv names conversation `id`.
fn holding(id: &str) -> Vec<i32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        let argv = cmdline(pid);
        let names = argv
            .windows(2)
            .any(|w| (w[0] == "--resume" || w[0] == "--session-id") && w[1] == id);
        if names && argv.iter().any(|w| w.ends_with("/claude")) {
            found.push(pid);
        }
    }
    found
}

#[test]
fn a_renamed_session_gets_no_second_harness_on_its_conversation() {
    let w = World::new();
    w.write_env("EXTRA=one\n");
    let s = w.started_session("github:octo/repo#1", "github-octo-repo-1");
    let pane = w.pane(&s.name).unwrap();
    wait_for(|| holding(&s.session_id).len() == 1, "the harness runs");
    w.tmux_ok(&["rename-session", "-t", &format!("={}", s.name), "mywork"]);

    // What a webhook triggers: its session is not found by its name.
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
    assert_ne!(code(&out), Some(0), "{}", explain(&out));
    let report = json(&out);
    assert_eq!(report["outcome"], "failed", "{report:#}");
    let said = flat(report["reason"].as_str().unwrap_or_default());
    assert!(
        said.contains(&flat("is already held by a live harness")),
        "{}",
        explain(&out)
    );
    assert!(said.contains(&pane.id), "names its pane: {}", explain(&out));

    // A start is refused the same way.
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
        holding(&s.session_id),
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
    assert_eq!(holding(&s.session_id), vec![now.pid], "one harness");
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
    assert_eq!(holding(&s.session_id), vec![new_pid], "one harness");
}
