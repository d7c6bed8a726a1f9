//! Unit tests of `observation.rs`: the listing's gate.

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
