//! Standing sessions: create, say, stop, start and restart on the same runner, seen by `plan`.

use super::*;

#[test]
fn standing_sessions_share_the_runner_and_take_part_in_plan() {
    let w = world();
    let cwd = w.work.join("ops");
    std::fs::create_dir_all(&cwd).unwrap();
    let out = w.the_loop(&[
        "standing",
        "create",
        "ops-watch",
        "--cwd",
        cwd.to_str().unwrap(),
        "--json",
    ]);
    assert!(out.status.success(), "{}", explain(&out));
    let created = json(&out);
    let s = LegacySession {
        reference: "ops-watch".into(),
        slug: "standing/ops-watch".into(),
        name: "loop-standing-ops-watch".into(),
        session_id: created["harness_session_id"].as_str().unwrap().into(),
        cwd: cwd.canonicalize().unwrap(),
    };
    assert_eq!(created["tmux_target"], s.name.as_str());
    assert!(
        w.the_loop(&["standing", "create", "Bad_Name", "--cwd", "."])
            .status
            .code()
            == Some(1)
    );

    let out = w.the_loop(&[
        "standing",
        "say",
        "ops-watch",
        "--message",
        "status?",
        "--json",
    ]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    assert_eq!(wait_for_inputs(&w, &s, 1), [pasted("status?")]);
    let pid = w.pane(&s.name).unwrap().pid;
    assert_eq!(
        environ(pid).get("THE_LOOP_WORK_ITEM"),
        None,
        "a standing session belongs to no work item"
    );

    let plan = w.the_loop(&["plan", "--json"]);
    assert!(plan.status.success(), "{}", explain(&plan));
    let sessions = json(&plan)["sessions"].as_array().unwrap().clone();
    assert!(
        sessions.iter().any(|p| p["tmux_target"] == s.name.as_str()),
        "{sessions:?}"
    );

    let out = w.the_loop(&["standing", "stop", "ops-watch"]);
    assert!(out.status.success(), "{}", explain(&out));
    assert!(w.transcript_text(&s).contains("\"signal\":\"TERM\""));
    assert!(w.pane(&s.name).unwrap().dead);
    let list = json(&w.the_loop(&["standing", "list", "--json"]));
    assert_eq!(list["standing"][0]["status"], "closed");
    assert_eq!(list["standing"][0]["live"], "dead");

    let out = w.the_loop(&["standing", "start", "ops-watch", "--json"]);
    assert!(out.status.success(), "{}", explain(&out));
    assert_eq!(json(&out)["resumed"], true);
    let pane = w.pane(&s.name).unwrap();
    assert!(cmdline(pane.pid).contains(&s.session_id), "resumed");

    let out = w.the_loop(&["standing", "restart", "ops-watch", "--json"]);
    assert!(out.status.success(), "{}", explain(&out));
    assert_ne!(w.pane(&s.name).unwrap().pid, pane.pid, "rolled in place");
}
