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
