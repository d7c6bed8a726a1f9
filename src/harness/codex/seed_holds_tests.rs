//! The Codex summary's tests (`seed_holds.rs`), with the full merge
//! ([`super::super::seed::seed`]) as their oracle.

use super::*;
use crate::harness::seed::Merged;

fn wanted(projects: &[&str], hooks: &[(&str, &str)]) -> CodexSeed {
    CodexSeed {
        projects: projects.iter().map(|p| p.to_string()).collect(),
        hooks: hooks
            .iter()
            .map(|(k, h)| (k.to_string(), h.to_string()))
            .collect(),
    }
}

fn merge_holds(text: &str, seed: &CodexSeed) -> bool {
    super::super::seed::seed(Some(text.as_bytes()), seed) == Merged::Unchanged
}

const HOOK: &str = "/<session-flags>/config.toml:stop:0:0";

/// A config as a fleet of `others` projects leaves it, around `extra`.
fn config(update_check: bool, extra: &str, others: usize) -> String {
    let mut text = String::from("# the operator's\nmodel = \"o3\"\n");
    if update_check {
        text.push_str("check_for_update_on_startup = false\n");
    }
    for i in 0..others {
        text.push_str(&format!(
            "\n[projects.\"/w/other-{i}\"]\ntrust_level = \"trusted\"\n"
        ));
    }
    text.push_str(extra);
    text
}

#[test]
fn a_config_a_roll_wrote_holds_among_hundreds_of_projects() {
    let seed = wanted(&["/w/repo"], &[(HOOK, "sha256:ab")]);
    let extra = format!(
        "\n[projects.\"/w/repo\"]\ntrust_level = \"trusted\"\n\n[hooks.state.\"{HOOK}\"]\ntrusted_hash = \"sha256:ab\"\n"
    );
    let text = config(true, &extra, 500);
    assert!(merge_holds(&text, &seed));
    assert!(seed_holds(text.as_bytes(), &seed));
}

/// Every combination of what a seed reads, under every seed shape: the
/// summary says held exactly when the full merge would write nothing.
#[test]
fn the_summary_agrees_with_the_full_merge_on_every_combination() {
    let projects = [
        "",
        "\n[projects.\"/w/repo\"]\ntrust_level = \"trusted\"\n",
        "\n[projects.\"/w/repo\"]\ntrust_level = \"untrusted\"\n",
        "\n[projects.\"/w/repo\"]\ntrust_level = 1\n",
        "\n[projects]\n\"/w/repo\" = { trust_level = \"trusted\" }\n",
        "\n[projects]\n\"/w/repo\".trust_level = \"trusted\"\n",
        "\nprojects = 3\n",
        "\n[projects.\"/w/repo/sub\"]\ntrust_level = \"trusted\"\n",
    ];
    let hooks = [
        String::new(),
        format!("\n[hooks.state.\"{HOOK}\"]\ntrusted_hash = \"sha256:ab\"\n"),
        format!("\n[hooks.state.\"{HOOK}\"]\ntrusted_hash = \"sha256:old\"\n"),
        "\n[hooks]\nstate = 1\n".to_string(),
        format!("\n[hooks.state]\n\"{HOOK}\" = {{ trusted_hash = \"sha256:ab\" }}\n"),
    ];
    let seeds = [
        wanted(&["/w/repo"], &[(HOOK, "sha256:ab")]),
        wanted(&["/w/repo"], &[]),
        wanted(&[], &[(HOOK, "sha256:ab")]),
        wanted(&[], &[]),
    ];
    let mut agreed = 0;
    for update_check in [false, true] {
        for p in projects {
            for h in &hooks {
                let text = config(update_check, &format!("{h}{p}"), 3);
                for seed in &seeds {
                    assert_eq!(
                        seed_holds(text.as_bytes(), seed),
                        merge_holds(&text, seed),
                        "{seed:?} on {text}"
                    );
                    agreed += 1;
                }
            }
        }
    }
    assert_eq!(agreed, 2 * 8 * 5 * 4);
}

#[test]
fn text_that_is_not_toml_is_not_held() {
    let seed = wanted(&[], &[]);
    for bytes in [
        &b"check_for_update_on_startup = \n"[..],
        b"\xff\xfe",
        b"[a\n",
    ] {
        assert!(!seed_holds(bytes, &seed));
    }
}
