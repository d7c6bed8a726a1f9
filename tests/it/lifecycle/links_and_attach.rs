//! Pull-request links into the issue's session, and `sessions attach`.

use super::*;

#[test]
fn a_linked_pull_request_is_delivered_into_the_issues_session() {
    let w = world();
    let s = w.started_session("github:octo/repo#27", "github-octo-repo-27");
    let out = w.the_loop(&[
        "sessions",
        "link-pr",
        &s.reference,
        "--pull-request",
        "github:octo/repo#28",
    ]);
    assert!(out.status.success(), "{}", explain(&out));
    let out = deliver(
        &w,
        "github:octo/repo#28",
        "review comment on the PR",
        "pr-1",
    );
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let report = json(&out);
    assert_eq!(report["ref"], s.reference.as_str());
    assert_eq!(report["via_pull_request"], "github:octo/repo#28");
    assert_eq!(
        wait_for_inputs(&w, &s, 1),
        [pasted("review comment on the PR")]
    );
    assert_eq!(
        w.tmux_sessions(),
        [s.name.as_str()],
        "no session for the PR"
    );
}

#[test]
fn a_pull_request_with_a_live_record_of_its_own_is_not_linked() {
    let w = world();
    let issue = w.started_session("github:octo/repo#29", "github-octo-repo-29");
    let pr = w.started_session("github:octo/repo#30", "github-octo-repo-30");
    let out = link_pr(&w, &issue, &pr);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    let said = stderr(&out);
    assert!(said.contains("has a live session of its own"), "{said}");
    assert!(
        said.contains(&format!("{}.json", pr.slug)),
        "names the record: {said}"
    );
    assert!(w.record(&issue.slug).unwrap()["pullRequests"].is_null());
    assert!(w.events_named("session.pr_linked").is_empty());
    // So a cleanup of the item leaves the PR's session and record alone.
    let out = w.the_loop(&["sessions", "cleanup", &issue.reference, "--json"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    assert_eq!(w.record(&pr.slug).unwrap()["status"], "active");
    assert!(!w.pane(&pr.name).unwrap().dead, "the PR's harness runs on");

    // Once the PR's session is closed, the link is allowed.
    let stop = w.the_loop(&["sessions", "stop", &pr.reference]);
    assert!(stop.status.success(), "{}", explain(&stop));
    w.started_session("github:octo/repo#31", "github-octo-repo-31");
    let out = w.the_loop(&[
        "sessions",
        "link-pr",
        "github:octo/repo#31",
        "--pull-request",
        &pr.reference,
    ]);
    assert!(out.status.success(), "{}", explain(&out));
}

#[test]
fn attach_is_read_only_for_a_closed_session_and_explains_what_is_missing() {
    let w = world();
    let s = w.started_session("github:octo/repo#29", "github-octo-repo-29");
    let out = w.the_loop(&["sessions", "stop", &s.reference]);
    assert!(out.status.success(), "{}", explain(&out));

    let viewer = w.the_loop_in_pty(&["sessions", "attach", &s.reference]);
    wait_for(|| !w.clients().is_empty(), "attached");
    assert_eq!(
        w.clients(),
        [Client {
            session: s.name.clone(),
            read_only: true
        }]
    );
    // The note is said on stderr and on tmux's status line: tmux flushes
    // the terminal's unread output as it starts, so the stderr line can be
    // gone before the terminal shows it; the status line is what stays.
    wait_for(
        || {
            let log = stdout(&w.tmux(&["show-messages"]));
            log.contains(&format!("{} is closed; attached read-only", s.reference))
        },
        "the note on the client's status line",
    );
    drop(viewer);

    w.edit_record(&s.slug, |r| r["tmuxTarget"] = "".into());
    let out = w.the_loop(&["sessions", "attach", &s.reference]);
    assert_eq!(code(&out), Some(1));
    assert!(
        stderr(&out).contains("attach::no_target"),
        "{}",
        explain(&out)
    );
    assert!(
        stderr(&out).contains("no tmux session recorded"),
        "{}",
        explain(&out)
    );

    w.edit_record(&s.slug, |r| r["tmuxTarget"] = s.name.as_str().into());
    w.tmux_ok(&["kill-session", "-t", &format!("={}", s.name)]);
    let out = w.the_loop(&["sessions", "attach", &s.reference]);
    assert_eq!(code(&out), Some(1));
    assert!(stderr(&out).contains("attach::absent"), "{}", explain(&out));
    assert!(
        stderr(&out).contains("nothing left to attach to"),
        "{}",
        explain(&out)
    );

    let out = w.the_loop(&["sessions", "attach", "github:octo/repo#404"]);
    assert!(
        stderr(&out).contains("attach::not_registered"),
        "{}",
        explain(&out)
    );
}
