//! The ledger's tests (`ledger.rs`): what a seed set comes back out,
//! byte for byte, and what anyone changed since stays.

use super::*;
use crate::harness::codex::seed::{seed_noted, CodexSeed};
use crate::harness::seed::{seed_plugin_noted, seed_trust_noted, TrustSeed};

fn changed(merged: Merged) -> String {
    match merged {
        Merged::Changed(text) => text,
        other => panic!("expected a change, got {other:?}"),
    }
}

fn trust() -> TrustSeed {
    TrustSeed {
        exact: vec!["/w/repo".into()],
        widened: vec!["/w".into()],
        accept_bypass: true,
    }
}

/// A person's `.claude.json` as Claude Code writes it: pretty, two spaces.
const CLAUDE_JSON: &str = r#"{
  "numStartups": 42,
  "projects": {
    "/w/repo": {
      "allowedTools": [
        "Bash"
      ],
      "hasTrustDialogAccepted": false
    },
    "/mine": {
      "hasTrustDialogAccepted": true
    }
  },
  "theme": "dark"
}
"#;

#[test]
fn trust_and_the_plugin_come_back_out_byte_for_byte() {
    let (merged, steps) = seed_trust_noted(Some(CLAUDE_JSON.as_bytes()), &trust());
    let seeded = changed(merged);
    let keys: Vec<String> = steps.iter().map(Step::key).collect();
    insta::assert_debug_snapshot!(keys);
    let (merged, outcomes) = undo(Format::Json, Some(seeded.as_bytes()), &steps);
    assert_eq!(changed(merged), CLAUDE_JSON);
    assert!(outcomes.contains(&Outcome::Restored), "false came back");

    let settings = "{\n  \"model\": \"opus\"\n}\n";
    let (merged, steps) = seed_plugin_noted(Some(settings.as_bytes()), "o/the-loop");
    let seeded = changed(merged);
    let (merged, _) = undo(Format::Json, Some(seeded.as_bytes()), &steps);
    assert_eq!(changed(merged), settings);
}

#[test]
fn what_was_changed_since_stays() {
    let (merged, trust_steps) = seed_trust_noted(None, &trust());
    let mut value: Value = serde_json::from_str(&changed(merged)).unwrap();
    // The harness wrote into the project the-loop created; the person
    // turned the bypass disclaimer off again.
    value["projects"]["/w/repo"]["lastCost"] = Value::from(3);
    value["bypassPermissionsModeAccepted"] = Value::Bool(false);
    let text = serde_json::to_string_pretty(&value).unwrap();
    let (merged, outcomes) = undo(Format::Json, Some(text.as_bytes()), &trust_steps);
    let after: Value = serde_json::from_str(&changed(merged)).unwrap();
    insta::assert_snapshot!(serde_json::to_string_pretty(&after).unwrap());
    assert!(outcomes.contains(&Outcome::ChangedSince));

    // A plugin the person disabled since is theirs.
    let (merged, steps) = seed_plugin_noted(None, "o/the-loop");
    let disabled = changed(merged).replace(
        "\"the-loop@the-loop\": true",
        "\"the-loop@the-loop\": false",
    );
    let (merged, outcomes) = undo(Format::Json, Some(disabled.as_bytes()), &steps);
    let after: Value = serde_json::from_str(&changed(merged)).unwrap();
    assert_eq!(after["enabledPlugins"]["the-loop@the-loop"], false);
    assert!(after.get("extraKnownMarketplaces").is_none());
    assert!(outcomes.contains(&Outcome::ChangedSince));
}

#[test]
fn undo_twice_or_of_a_missing_file_changes_nothing() {
    let (merged, steps) = seed_trust_noted(None, &trust());
    let seeded = changed(merged);
    let (merged, _) = undo(Format::Json, Some(seeded.as_bytes()), &steps);
    let once = changed(merged);
    let (again, outcomes) = undo(Format::Json, Some(once.as_bytes()), &steps);
    assert_eq!(again, Merged::Unchanged);
    assert!(outcomes.iter().all(|o| *o == Outcome::Gone), "{outcomes:?}");
    assert_eq!(undo(Format::Json, None, &steps).0, Merged::Unchanged);
    let (refused, _) = undo(Format::Json, Some(b"not json"), &steps);
    assert!(matches!(refused, Merged::Refused(_)), "{refused:?}");
}

#[test]
fn codex_config_comes_back_out_byte_for_byte() {
    let before = "# mine\nmodel = \"o3\"\n\n[projects.\"/other\"]\ntrust_level = \"untrusted\"\n";
    let wanted = CodexSeed {
        projects: vec!["/work/octo repo".into(), "/other".into()],
        hooks: vec![(
            "/<session-flags>/config.toml:stop:0:0".into(),
            "sha256:ab".into(),
        )],
    };
    let (merged, steps) = seed_noted(Some(before.as_bytes()), &wanted);
    let seeded = changed(merged);
    let (merged, outcomes) = undo(Format::Toml, Some(seeded.as_bytes()), &steps);
    assert_eq!(changed(merged), before);
    assert!(outcomes.contains(&Outcome::Restored), "untrusted came back");
}

#[test]
fn the_ledger_reads_back_what_it_wrote_and_skips_a_cut_line() {
    let step = Step::new(&["projects", "/w/repo", "x"], None, Value::Bool(true));
    let mut text = line("/h/.claude.json".into(), Format::Json, step.clone());
    text.push_str("{\"file\": \"/h/.cl");
    let (entries, skipped) = parse(&text);
    assert_eq!(skipped, 1);
    assert_eq!(entries[0].step, step);
    assert_eq!(step.key(), "projects[\"/w/repo\"].x");
}

#[test]
fn a_file_the_loop_created_is_to_go_only_when_nothing_else_is_in_it() {
    let (merged, noted) = seed_plugin_noted(None, "o/the-loop");
    let steps: Vec<Step> = std::iter::once(Step::created_file()).chain(noted).collect();
    let seeded = changed(merged);
    let (merged, outcomes) = undo(Format::Json, Some(seeded.as_bytes()), &steps);
    assert_eq!(changed(merged), "{}\n");
    assert_eq!(outcomes[0], Outcome::Removed);
    let theirs = seeded.replacen('{', "{\n  \"model\": \"opus\",", 1);
    let (_, outcomes) = undo(Format::Json, Some(theirs.as_bytes()), &steps);
    assert_eq!(outcomes[0], Outcome::ChangedSince);
}
