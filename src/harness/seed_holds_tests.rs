//! The scan's tests (`seed_holds.rs`), with the full merge
//! ([`super::super::seed::seed_trust`]) as their oracle.

use super::*;
use crate::harness::seed::{seed_trust, Merged};

fn seed(exact: &[&str], widened: &[&str], bypass: bool) -> TrustSeed {
    TrustSeed {
        exact: exact.iter().map(|s| s.to_string()).collect(),
        widened: widened.iter().map(|s| s.to_string()).collect(),
        accept_bypass: bypass,
    }
}

fn full_merge_holds(text: &str, seed: &TrustSeed) -> bool {
    seed_trust(Some(text.as_bytes()), seed) == Merged::Unchanged
}

/// A project as Claude Code 2.1.332 leaves it after a session: the
/// trust keys among its last session's figures.
fn project(trust: &str, onboarding: Option<&str>) -> String {
    let onboarding = onboarding
        .map(|v| format!(r#""hasCompletedProjectOnboarding": {v}, "#))
        .unwrap_or_default();
    format!(
        r#"{{"allowedTools": [], "hasTrustDialogAccepted": {trust}, {onboarding}"lastCost": 0.5,
            "lastModelUsage": {{"m": {{"inputTokens": 3, "nested": [[{{"a": null}}]]}}}},
            "lastSessionId": "0000-1", "history": ["a \"quoted\" }} prompt"]}}"#
    )
}

/// A user config of `others` unrelated projects around the given ones.
fn config(projects: &[(&str, String)], bypass: Option<&str>, others: usize) -> String {
    let mut entries: Vec<String> = (0..others)
        .map(|i| format!(r#""/w/other-{i}": {}"#, project("true", Some("true"))))
        .collect();
    entries.extend(projects.iter().map(|(dir, p)| format!("{dir:?}: {p}")));
    let bypass = bypass
        .map(|v| format!(r#""bypassPermissionsModeAccepted": {v}, "#))
        .unwrap_or_default();
    format!(
        r#"{{"numStartups": 7, "tipsHistory": {{"x": 1}}, {bypass}"projects": {{{}}}, "userID": "u"}}"#,
        entries.join(",\n")
    )
}

#[test]
fn a_config_holding_the_seed_is_held_among_hundreds_of_projects() {
    let s = seed(&["/w/repo", "/real/repo"], &["/w"], true);
    let text = config(
        &[
            ("/w/repo", project("true", Some("true"))),
            ("/real/repo", project("true", Some("true"))),
            ("/w", project("true", None)),
        ],
        Some("true"),
        500,
    );
    assert!(full_merge_holds(&text, &s));
    assert!(trust_holds(text.as_bytes(), &s));
}

#[test]
fn a_key_written_with_escapes_is_the_directory_it_names() {
    let s = seed(&["/w/café \"q\""], &[], false);
    let text = format!(
        r#"{{"projects": {{"/w/caf\u00e9 \"q\"": {}}}}}"#,
        project("true", Some("true"))
    );
    assert!(full_merge_holds(&text, &s));
    assert!(trust_holds(text.as_bytes(), &s));
}

#[test]
fn anything_the_seed_would_still_set_is_not_held() {
    let s = seed(&["/w/repo"], &["/w"], true);
    // The repo's trust and onboarding values, the workspace root's entry
    // (its trust value, or a whole entry that is not an object), bypass.
    let held = |trust: &str, onboarding: Option<&str>, root: &str, bypass: Option<&str>| {
        let root = match root {
            "[]" => root.to_string(),
            trust => project(trust, None),
        };
        let text = config(
            &[("/w/repo", project(trust, onboarding)), ("/w", root)],
            bypass,
            3,
        );
        (
            trust_holds(text.as_bytes(), &s),
            full_merge_holds(&text, &s),
        )
    };
    assert_eq!(
        held("true", Some("true"), "true", Some("true")),
        (true, true)
    );
    for (trust, onboarding, root, bypass) in [
        ("false", Some("true"), "true", Some("true")),
        ("true", Some("false"), "true", Some("true")),
        ("true", None, "true", Some("true")),
        ("true", Some("\"true\""), "true", Some("true")),
        ("true", Some("1"), "true", Some("true")),
        ("true", Some("true"), "null", Some("true")),
        ("true", Some("true"), "true", Some("false")),
        ("true", Some("true"), "true", None),
        ("true", Some("true"), "[]", Some("true")),
    ] {
        let case = (trust, onboarding, root, bypass);
        assert_eq!(
            held(trust, onboarding, root, bypass),
            (false, false),
            "{case:?}"
        );
    }
}

#[test]
fn a_missing_project_file_or_projects_key_is_not_held() {
    let s = seed(&["/w/repo"], &[], false);
    for text in [
        r#"{}"#,
        r#"{"projects": {}}"#,
        r#"{"projects": {"/w/repo/sub": {"hasTrustDialogAccepted": true}}}"#,
    ] {
        assert!(!trust_holds(text.as_bytes(), &s), "{text}");
        assert!(!full_merge_holds(text, &s), "{text}");
    }
}

/// Shapes the full merge refuses or reads differently: the scan says no,
/// so the caller merges in full and says why.
#[test]
fn any_doubt_is_not_held() {
    let s = seed(&["/w/repo"], &[], true);
    let good = project("true", Some("true"));
    for text in [
        "[]".to_string(),
        "null".to_string(),
        "not json".to_string(),
        format!(
            r#"{{"bypassPermissionsModeAccepted": true, "projects": {{"/w/repo": {good}}}}} trailing"#
        ),
        format!(r#"{{"bypassPermissionsModeAccepted": true, "projects": {{"/w/repo": {good}"#),
        r#"{"bypassPermissionsModeAccepted": true, "projects": []}"#.to_string(),
        // Another project that is not an object: never written by Claude
        // Code, so the scan does not read on past it.
        format!(
            r#"{{"bypassPermissionsModeAccepted": true, "projects": {{"/w/repo": {good}, "/w/x": 3}}}}"#
        ),
        // Given twice: the full merge keeps the last, the scan does not guess.
        format!(
            r#"{{"bypassPermissionsModeAccepted": true, "projects": {{"/w/repo": {good}}}, "projects": {{"/w/repo": {good}}}}}"#
        ),
        format!(
            r#"{{"bypassPermissionsModeAccepted": true, "bypassPermissionsModeAccepted": true, "projects": {{"/w/repo": {good}}}}}"#
        ),
        format!(
            r#"{{"bypassPermissionsModeAccepted": true, "projects": {{"/w/repo": {good}, "/w/repo": {good}}}}}"#
        ),
    ] {
        assert!(!trust_holds(text.as_bytes(), &s), "{text}");
    }
}

/// Every combination of the keys a seed reads, each absent, `true`,
/// `false` or another value, under every seed shape: the scan says held
/// exactly when the full merge would write nothing.
#[test]
fn the_scan_agrees_with_the_full_merge_on_every_combination() {
    let values = [
        None,
        Some("true"),
        Some("false"),
        Some("\"yes\""),
        Some("{}"),
    ];
    let seeds = [
        seed(&["/w/repo"], &[], false),
        seed(&["/w/repo"], &["/w"], false),
        seed(&["/w/repo"], &["/w"], true),
        seed(&[], &[], true),
        seed(&[], &[], false),
    ];
    let mut agreed = 0;
    for trust in values {
        for onboarding in values {
            for root_trust in values {
                for bypass in values {
                    let repo = match trust {
                        Some(t) => project(t, onboarding),
                        None => "{}".into(),
                    };
                    let root = format!(
                        r#"{{"hasTrustDialogAccepted": {}}}"#,
                        root_trust.unwrap_or("null")
                    );
                    let text = config(&[("/w/repo", repo), ("/w", root)], bypass, 2);
                    for s in &seeds {
                        assert_eq!(
                            trust_holds(text.as_bytes(), s),
                            full_merge_holds(&text, s),
                            "{s:?} on {text}"
                        );
                        agreed += 1;
                    }
                }
            }
        }
    }
    assert_eq!(agreed, 5 * 5 * 5 * 5 * 5);
}

/// The remembered summary answers only for the very bytes it was read
/// from: a file rewritten between two respawns is read again.
#[test]
fn a_changed_file_is_read_again_not_answered_from_memory() {
    let s = seed(&["/w/repo"], &[], false);
    let held = config(&[("/w/repo", project("true", Some("true")))], None, 40);
    let asked_again = held.replace(
        r#""/w/repo": {"allowedTools": [], "hasTrustDialogAccepted": true"#,
        r#""/w/repo": {"allowedTools": [], "hasTrustDialogAccepted": false"#,
    );
    assert_ne!(held, asked_again, "the rewrite changed the project");
    for _ in 0..3 {
        assert!(trust_holds(held.as_bytes(), &s));
        assert!(!trust_holds(asked_again.as_bytes(), &s));
        assert!(!full_merge_holds(&asked_again, &s));
    }
    let summary = TrustSummary::of(held.as_bytes()).expect("read");
    assert!(summary.holds(&s));
    assert!(!summary.holds(&seed(&["/w/elsewhere"], &[], false)));
}
