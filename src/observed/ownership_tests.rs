use super::*;

fn key(text: &str) -> SessionKey {
    SessionKey::work_item(text).unwrap()
}

const ONE: &str = "loop-github-octo-repo-1";
const TWO: &str = "loop-github-octo-repo-2";

fn claimant<'a>(key: &'a SessionKey, target: &'a str, ids: &'a [&'a str]) -> Claimant<'a> {
    Claimant {
        key,
        conversations: ids,
        target,
    }
}

#[test]
fn the_own_name_with_nothing_said_is_the_records() {
    let two = key("github:octo/repo#2");
    assert_eq!(
        judge(&claimant(&two, TWO, &["b"]), None, None),
        Ok(Proof::Name)
    );
    let quiet = Claims::default();
    assert_eq!(
        judge(&claimant(&two, TWO, &["b"]), None, Some(&quiet)),
        Ok(Proof::Name)
    );
}

#[test]
fn another_records_name_is_refused_unless_the_process_says_otherwise() {
    let two = key("github:octo/repo#2");
    let found = judge(
        &claimant(&two, ONE, &["b"]),
        Some("github:octo/repo#1"),
        None,
    );
    assert_eq!(
        found,
        Err(Found::AnothersName {
            owner: "github:octo/repo#1".into()
        })
    );
    // The harness in it runs conversation `a`, #1's: the process decides.
    let running_ones = Claims {
        launched: Some("a"),
        ..Claims::default()
    };
    assert_eq!(
        judge(
            &claimant(&two, ONE, &["b"]),
            Some("github:octo/repo#1"),
            Some(&running_ones)
        ),
        Err(Found::OtherConversation {
            running: "a".into()
        })
    );
    let holding_twos_ref = Claims {
        work_item: Some(b"github:octo/repo#2"),
        ..Claims::default()
    };
    assert_eq!(
        judge(
            &claimant(&two, ONE, &["b"]),
            Some("github:octo/repo#1"),
            Some(&holding_twos_ref)
        ),
        Ok(Proof::Process)
    );
}

#[test]
fn an_odd_name_needs_the_process_word() {
    let two = key("github:octo/repo#2");
    let odd = "loop-renamed";
    assert_eq!(
        judge(&claimant(&two, odd, &["b"]), None, None),
        Err(Found::Unproven {
            own_name: TWO.into()
        })
    );
    let running_b = Claims {
        launched: Some("b"),
        ..Claims::default()
    };
    assert_eq!(
        judge(&claimant(&two, odd, &["b"]), None, Some(&running_b)),
        Ok(Proof::Process)
    );
}

#[test]
fn a_conversation_moved_by_clear_is_still_the_records() {
    let two = key("github:octo/repo#2");
    // Launched on `a`, now in `c` after /clear; the record followed to `c`.
    let claims = Claims {
        launched: Some("a"),
        reported: Some("c"),
        ..Claims::default()
    };
    assert_eq!(
        judge(&claimant(&two, TWO, &["c", "a"]), None, Some(&claims)),
        Ok(Proof::Process)
    );
    // The record has not followed yet: the launch still names its id.
    assert_eq!(
        judge(&claimant(&two, TWO, &["a"]), None, Some(&claims)),
        Ok(Proof::Process)
    );
    // Neither is the record's.
    assert_eq!(
        judge(&claimant(&two, TWO, &["z"]), None, Some(&claims)),
        Err(Found::OtherConversation {
            running: "a".into()
        })
    );
    // A record with no conversation yet has nothing to compare with.
    assert_eq!(
        judge(&claimant(&two, TWO, &[]), None, Some(&claims)),
        Ok(Proof::Name)
    );
}

#[test]
fn the_work_item_the_harness_holds_wins() {
    let two = key("github:octo/repo#2");
    let ones = Claims {
        work_item: Some(b"github:octo/repo#1"),
        launched: Some("b"),
        ..Claims::default()
    };
    assert_eq!(
        judge(&claimant(&two, TWO, &["b"]), None, Some(&ones)),
        Err(Found::HeldByAnother {
            named: "github:octo/repo#1".into(),
            standing: false
        })
    );
    let standing = SessionKey::standing("ops").unwrap();
    let target = standing.tmux_name();
    assert_eq!(
        judge(&claimant(&standing, &target, &["s"]), None, Some(&ones)),
        Err(Found::HeldByAnother {
            named: "github:octo/repo#1".into(),
            standing: true
        })
    );
}
