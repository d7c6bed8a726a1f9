//! Issue 47: the plan's summary line names what it counts. It once ended
//! `0 unmanaged.` right under the list of "Harnesses the-loop does not
//! manage": the count was of `loop-*` tmux sessions no record names, the
//! list of harnesses a person started by hand, and one word meant both.

use crate::support::*;
use crate::unmanaged::{by_hand, harness_beneath, world};

#[test]
fn the_summary_counts_loop_sessions_without_a_record_not_the_harnesses_listed_above_it() {
    let w = world();
    let (mut s, pane) = by_hand(&w, "mywork", "mine", "--session-id 0000-mine");
    s.session_id = "0000-mine".into();
    harness_beneath(&w, pane.pid, &s);
    // A `loop-*` session no record names: the one thing the count counts.
    w.unrecorded_loop_session("loop-stranger");

    let text = stdout(&w.the_loop(&["plan"]));
    assert!(
        text.contains("Harnesses the-loop does not manage"),
        "{text}"
    );
    let summary = text
        .lines()
        .find(|l| l.starts_with("Plan:"))
        .unwrap_or_else(|| panic!("a summary line:\n{text}"));
    assert!(
        !summary.contains("unmanaged"),
        "the summary's word for its count is not the list's: {summary}"
    );
    assert!(
        summary.ends_with(", 1 loop-* without a record."),
        "{summary}"
    );
    // The JSON keeps its field: a contract, documented as this count.
    let plan = json(&w.the_loop(&["plan", "--json"]));
    assert_eq!(plan["summary"]["unmanaged"], 1, "{plan:#}");
    assert_eq!(plan["unmanaged_harnesses"].as_array().unwrap().len(), 1);
}

/// Issue 46: a plan checks whether a session can be resumed only where its
/// roll would take it. An up-to-date session whose working directory is
/// gone is no `apply`'s, so `plan` says nothing of it being left alone
/// (checking 500 such sessions was a tenth of a plan's CPU); `sessions
/// restart`, which would take it, still says it leaves it alone.
#[test]
fn only_the_sessions_a_roll_takes_are_checked_for_resumability() {
    let w = World::new();
    w.write_env("SLACK_BOT_TOKEN=xoxb-resumable-1\n");
    let s = w.started_session("github:octo/repo#46", "github-octo-repo-46");
    std::fs::remove_dir_all(w.work.join("github-octo-repo-46")).unwrap();

    let plan = w.the_loop(&["plan", "--json"]);
    assert_eq!(code(&plan), Some(0), "{}", explain(&plan));
    let session = session_in(&json(&plan), &s.reference).clone();
    assert_eq!(session["action"], "none", "{session}");
    assert_eq!(session["left_alone"], serde_json::Value::Null, "{session}");

    let dry = w.the_loop(&["sessions", "restart", &s.reference, "--dry-run"]);
    assert!(
        stdout(&dry).contains("left alone"),
        "the restart still checks it: {}",
        explain(&dry)
    );
}
