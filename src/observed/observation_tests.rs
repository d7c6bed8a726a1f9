//! Unit tests of `observation.rs`: the listing's gate and the pids read ahead.

use super::*;

#[test]
fn the_gate_rides_with_the_listing_only_while_the_call_fits() {
    let few: Vec<String> = (0..20).map(|i| format!("TOKEN_{i}")).collect();
    assert!(listing_markers(&few).gate().is_some());
    // Issue 35: 1,100 short names made tmux refuse the listing itself.
    for many in [1_100, 20_000] {
        let names: Vec<String> = (0..many).map(|i| format!("TOKEN_{i:05}")).collect();
        let markers = listing_markers(&names);
        assert_eq!(markers.gate(), None, "{many}");
        let call = residue::query_args(&markers, Some(LIST_PANES_FORMAT), &[]);
        assert!(argv_bytes(&call) <= residue::ARGV_BUDGET);
        assert!(!call.iter().any(|word| word.contains("TOKEN_")), "{many}");
    }
}

#[test]
fn a_pid_read_ahead_is_taken_the_others_are_read_and_the_rest_dropped() {
    let ahead = BTreeMap::from([(1, "ahead 1"), (2, "ahead 2"), (9, "never listed")]);
    let read = |pid: i32| if pid == 3 { "read 3" } else { "read again" };
    let values = taken_or_read(vec![1, 2, 3], ahead, read);
    assert_eq!(
        values,
        BTreeMap::from([(1, "ahead 1"), (2, "ahead 2"), (3, "read 3")])
    );
    assert!(taken_or_read(vec![], BTreeMap::from([(9, "x")]), read).is_empty());
}
