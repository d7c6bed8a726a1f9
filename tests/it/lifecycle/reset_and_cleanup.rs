//! Reset and cleanup: the live session ended, endpoints killed, checkouts removed inside the root.

use super::*;

#[test]
fn reset_reports_the_live_session_it_ended_and_deletes_the_record() {
    let w = world();
    let s = w.started_session("github:octo/repo#22", "github-octo-repo-22");
    let pane = w.pane(&s.name).unwrap();

    let dry = w.the_loop(&["sessions", "reset", &s.reference, "--dry-run", "--json"]);
    assert!(dry.status.success(), "{}", explain(&dry));
    assert_eq!(json(&dry)["sessions"][0]["ended_live_session"], true);
    assert_eq!(w.pane(&s.name).unwrap(), pane, "a dry run changes nothing");
    assert!(w.record(&s.slug).is_some());

    let out = w.the_loop(&["sessions", "reset", &s.reference]);
    assert!(out.status.success(), "{}", explain(&out));
    let text = stdout(&out);
    assert!(text.contains("ended its live session"), "{text}");
    assert!(
        text.contains(&format!("tmux attach -r -t {}", s.name)),
        "{text}"
    );
    assert!(w.record(&s.slug).is_none());
    assert!(
        w.pane(&s.name).unwrap().dead,
        "kept by policy, harness ended"
    );
    assert!(s.cwd.is_dir(), "a reset keeps the checkout");
    assert!(w.transcript_text(&s).contains("\"signal\":\"TERM\""));
}

/// The stand-in records a SIGTERM even while it waits on a child of its
/// own (here the sleep of a slow start; in CI, python3 or a hook on a loaded
/// machine). Bash runs a trap only between foreground commands, so a child
/// that outlasts the kill grace (3 s in these worlds) used to let the-loop's
/// SIGKILL end the stand-in before it wrote the signal down: a flaky
/// "no TERM in the transcript" in every test that ends a harness.
#[test]
fn a_harness_busy_in_a_child_of_its_own_still_records_the_sigterm() {
    let w = world();
    let cwd = w.root().join("work").join("github-octo-repo-29");
    std::fs::create_dir_all(&cwd).unwrap();
    std::fs::write(cwd.join(".standin-ready-delay"), "60").unwrap();
    let s = w.started_session_in("github:octo/repo#29", "github-octo-repo-29", &cwd);
    let pid = w.pane(&s.name).unwrap().pid;
    wait_for(
        || {
            let children = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
                .unwrap_or_default();
            children.split_whitespace().any(|child| {
                std::fs::read_to_string(format!("/proc/{child}/comm"))
                    .is_ok_and(|comm| comm.trim() == "sleep")
            })
        },
        "the stand-in waits on its slow start",
    );

    let out = w.the_loop(&["sessions", "reset", &s.reference]);
    assert!(out.status.success(), "{}", explain(&out));
    assert!(w.pane(&s.name).unwrap().dead, "the harness ended");
    let transcript = w.transcript_text(&s);
    assert!(
        transcript.contains("\"signal\":\"TERM\""),
        "the SIGTERM is recorded, not cut short by SIGKILL: {transcript}"
    );
}

#[test]
fn cleanup_kills_every_endpoint_removes_the_checkout_and_blocks_a_respawn() {
    let w = workspace_world("");
    let issue = w.started_session("github:octo/repo#23", "github-octo-repo-23");
    // The PR's own session outlived its record (a live record of its own
    // would refuse the link): an endpoint the cleanup must still end.
    let pr = w.legacy_session("github:octo/repo#24", "github-octo-repo-24");
    std::fs::remove_file(w.record_path(&pr.slug)).unwrap();
    let out = link_pr(&w, &issue, &pr);
    assert!(out.status.success(), "{}", explain(&out));
    std::fs::write(issue.cwd.join("uncommitted.txt"), "work").unwrap();

    let out = w.the_loop(&["sessions", "cleanup", &issue.reference, "--json"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let report = json(&out);
    let order: Vec<&str> = report["endpoints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["tmux_target"].as_str().unwrap())
        .collect();
    assert_eq!(
        order,
        [pr.name.as_str(), issue.name.as_str()],
        "the item's own last"
    );
    assert!(w.pane(&issue.name).is_none() && w.pane(&pr.name).is_none());
    for s in [&issue, &pr] {
        assert!(
            w.transcript_text(s).contains("\"signal\":\"TERM\""),
            "graceful first"
        );
    }
    assert!(!issue.cwd.exists(), "checkout removed");
    assert!(w.record(&issue.slug).is_none());
    assert_eq!(w.events_named("session.cleaned").len(), 1);

    // No later event re-spawns the item…
    let out = deliver(&w, &issue.reference, "after cleanup", "late");
    assert_eq!(code(&out), Some(2), "{}", explain(&out));
    assert_eq!(json(&out)["outcome"], "dropped");
    assert!(w.pane(&issue.name).is_none());
    // …but an explicit start does.
    std::fs::create_dir_all(&issue.cwd).unwrap();
    w.started_session(&issue.reference, &issue.slug);
}

#[test]
fn cleanup_never_deletes_a_directory_outside_the_workspace_root() {
    let w = world();
    let root = w.work.join("workspaces");
    std::fs::create_dir_all(&root).unwrap();
    write_workspace(&w, &root, "");
    // The session runs in a directory of the operator's own, outside the root.
    let s = w.started_session("github:octo/repo#25", "github-octo-repo-25");
    std::fs::write(s.cwd.join("precious.txt"), "keep me").unwrap();

    let out = w.the_loop(&["sessions", "cleanup", &s.reference, "--json"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let report = json(&out);
    assert_eq!(report["checkouts"][0]["action"], "kept");
    assert_eq!(
        report["checkouts"][0]["verdict"],
        "keep-outside-workspace-root"
    );
    assert!(s.cwd.join("precious.txt").is_file(), "never deleted");
    let text = stdout(&w.the_loop(&["sessions", "cleanup", &s.reference]));
    assert!(text.contains("There was no registry record"), "{text}");
    assert!(w.record(&s.slug).is_none());
}

#[test]
fn cleanup_works_from_the_ref_alone_without_a_record() {
    let w = workspace_world("");
    // Left behind by a crash: a session and a checkout, but no record.
    let s = w.legacy_session("github:octo/repo#26", "github-octo-repo-26");
    std::fs::remove_file(w.record_path(&s.slug)).unwrap();

    let out = w.the_loop(&["sessions", "cleanup", &s.reference, "--json"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let report = json(&out);
    assert_eq!(report["record_deleted"], false);
    assert_eq!(report["endpoints"][0]["tmux"], "killed");
    assert_eq!(report["checkouts"][0]["action"], "removed");
    assert!(w.pane(&s.name).is_none());
    assert!(!s.cwd.exists());
}
