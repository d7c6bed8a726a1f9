//! The seeds' tests (`seed.rs`).

use super::*;

fn text(merged: &Merged) -> &str {
    match merged {
        Merged::Changed(text) => text,
        other => panic!("expected a change, got {other:?}"),
    }
}

fn seed(exact: &[&str], widened: &[&str], bypass: bool) -> TrustSeed {
    TrustSeed {
        exact: exact.iter().map(|s| s.to_string()).collect(),
        widened: widened.iter().map(|s| s.to_string()).collect(),
        accept_bypass: bypass,
    }
}

#[test]
fn trust_in_a_fresh_file() {
    let merged = seed_trust(None, &seed(&["/w/repo"], &["/w"], false));
    insta::assert_snapshot!(text(&merged));
}

#[test]
fn trust_merges_into_existing_keys() {
    let existing = br#"{
  "numStartups": 42,
  "theme": "dark",
  "projects": {
"/w/repo": {"allowedTools": ["Bash"], "hasTrustDialogAccepted": false, "history": [1, 2]},
"/elsewhere": {"hasTrustDialogAccepted": true}
  }
}"#;
    let merged = seed_trust(Some(existing), &seed(&["/w/repo"], &["/w"], true));
    insta::assert_snapshot!(text(&merged));
}

#[test]
fn trust_already_in_place_writes_nothing() {
    let first = seed_trust(None, &seed(&["/w/repo", "/real/repo"], &["/w"], true));
    let again = seed_trust(
        Some(text(&first).as_bytes()),
        &seed(&["/w/repo", "/real/repo"], &["/w"], true),
    );
    assert_eq!(again, Merged::Unchanged);
}

#[test]
fn the_workspace_root_gets_trust_but_not_onboarding() {
    let merged = seed_trust(None, &seed(&["/w/repo"], &["/w"], false));
    let value: Value = serde_json::from_str(text(&merged)).unwrap();
    assert_eq!(value["projects"]["/w"][TRUST_KEY], true);
    assert!(value["projects"]["/w"].get(ONBOARDING_KEY).is_none());
    assert_eq!(value["projects"]["/w/repo"][ONBOARDING_KEY], true);
    assert!(value.get(BYPASS_KEY).is_none(), "bypass only when asked");
}

#[test]
fn a_file_that_is_not_a_json_object_is_left_alone() {
    let cases: [(&str, &[u8]); 5] = [
        ("not json", b"{ this is not json"),
        ("array", b"[1, 2]"),
        ("empty", b""),
        ("projects not an object", br#"{"projects": []}"#),
        (
            "project entry not an object",
            br#"{"projects": {"/w/repo": true}}"#,
        ),
    ];
    let reasons: Vec<(&str, Merged)> = cases
        .iter()
        .map(|(name, bytes)| {
            (
                *name,
                seed_trust(Some(bytes), &seed(&["/w/repo"], &[], false)),
            )
        })
        .collect();
    insta::assert_debug_snapshot!(reasons);
}

#[test]
fn plugin_in_a_fresh_file() {
    let merged = seed_plugin(None, "MadaraUchiha-314/the-loop");
    insta::assert_snapshot!(text(&merged));
}

#[test]
fn plugin_keeps_existing_keys_and_the_operators_choices() {
    let existing = br#"{
  "model": "opus",
  "permissions": {"allow": ["Bash(ls:*)"]},
  "extraKnownMarketplaces": {"the-loop": {"source": {"source": "github", "repo": "fork/the-loop"}}},
  "enabledPlugins": {"other@market": true}
}"#;
    let merged = seed_plugin(Some(existing), "MadaraUchiha-314/the-loop");
    insta::assert_snapshot!(text(&merged));
}

#[test]
fn a_disabled_plugin_stays_disabled() {
    let existing = br#"{
  "extraKnownMarketplaces": {"the-loop": {"source": {"source": "github", "repo": "MadaraUchiha-314/the-loop"}}},
  "enabledPlugins": {"the-loop@the-loop": false}
}"#;
    assert_eq!(
        seed_plugin(Some(existing), "MadaraUchiha-314/the-loop"),
        Merged::Unchanged
    );
}

#[test]
fn plugin_refuses_non_objects() {
    assert_eq!(
        seed_plugin(Some(b"null"), "o/r"),
        Merged::Refused("the file holds JSON that is not an object".into())
    );
    assert_eq!(
        seed_plugin(Some(br#"{"enabledPlugins": ["x"]}"#), "o/r"),
        Merged::Refused("enabledPlugins is not a JSON object".into())
    );
}

#[test]
fn bypass_is_read_from_the_harness_arguments() {
    let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert!(asks_for_bypass(&args(&["--dangerously-skip-permissions"])));
    assert!(asks_for_bypass(&args(&[
        "--permission-mode",
        "bypassPermissions"
    ])));
    assert!(asks_for_bypass(&args(&[
        "--permission-mode=bypassPermissions"
    ])));
    assert!(!asks_for_bypass(&args(&["--permission-mode", "plan"])));
    assert!(!asks_for_bypass(&args(&[
        "--allow-dangerously-skip-permissions"
    ])));
    assert!(!asks_for_bypass(&[]));
}

fn forms(absolute: &str, real: Option<&str>) -> DirForms {
    DirForms {
        absolute: absolute.into(),
        real: real.map(PathBuf::from),
    }
}

#[test]
fn which_directories_are_trusted() {
    let home = forms("/home/op", Some("/data/home/op"));
    let dir = forms("/w/link/repo", Some("/data/w/repo"));
    let cases = [
        ("no root", None),
        ("root contains it", Some(forms("/w", None))),
        ("root contains its real path", Some(forms("/data/w", None))),
        ("root elsewhere", Some(forms("/other", None))),
        ("root is /", Some(forms("/", None))),
        ("root is home", Some(forms("/home/op", None))),
        (
            "root is home's real path",
            Some(forms("/data/home/op", None)),
        ),
        ("root is the directory", Some(forms("/w/link/repo", None))),
    ];
    let seeds: Vec<(&str, TrustSeed)> = cases
        .into_iter()
        .map(|(name, root)| {
            (
                name,
                trust_seed(&dir, root.as_ref(), Some(&home), false).unwrap(),
            )
        })
        .collect();
    insta::assert_debug_snapshot!(seeds);
}
