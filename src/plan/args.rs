//! Launch-argument drift: what a running harness was launched with (its
//! argv, read from `/proc`) against what its record and the config resolve
//! to now (the record's model, effort and harness args, re-validated
//! against `routing.models`). Raw config is never the reference: a record
//! is the statement of what its session should run with, and a record that
//! stored no launch arguments is left alone.
//!
//! This goes beyond environment drift, so the plan keeps the two apart:
//! these changes are `args_changes`, never `changes`.

use super::model::{ArgsChange, ArgsField};
use crate::harness::models::Resolved;
use crate::harness::{Harness, LaunchArgs, ObservedLaunch};
use std::collections::BTreeMap;

fn words(value: &Option<String>) -> Vec<String> {
    value.iter().cloned().collect()
}

/// What differs between the running launch and the wanted one; empty when
/// nothing does.
pub fn args_changes(
    harness: &dyn Harness,
    observed: &ObservedLaunch,
    want: &Resolved,
) -> Vec<ArgsChange> {
    let want_tail = harness.launch_tail(&want.args);
    if observed.tail == want_tail {
        return Vec::new();
    }
    // An older spawner put a first prompt last without `--`.
    let legacy_prompt = observed.fresh
        && observed.tail.len() == want_tail.len() + 1
        && observed.tail.starts_with(&want_tail);
    if legacy_prompt {
        return Vec::new();
    }
    let mut have = harness.read_args(&observed.tail);
    if observed.fresh && (have.model.is_none() && have.effort.is_none()) {
        if let Some((_, rest)) = observed.tail.split_last() {
            let without_prompt = harness.read_args(rest);
            if without_prompt.model.is_some() || without_prompt.effort.is_some() {
                have = without_prompt;
            }
        }
    }
    let dropped = |what: &str| {
        want.dropped
            .iter()
            .find(|d| d.what == what)
            .map(|d| d.to_string())
    };
    // Field by field; an option compares the same as its words do.
    let fields = [
        (
            ArgsField::Model,
            words(&have.model),
            words(&want.args.model),
            dropped("model"),
        ),
        (
            ArgsField::Effort,
            words(&have.effort),
            words(&want.args.effort),
            dropped("effort"),
        ),
        (
            ArgsField::HarnessArgs,
            have.harness_args,
            want.args.harness_args.clone(),
            None,
        ),
    ];
    let mut changes: Vec<ArgsChange> = fields
        .into_iter()
        .filter(|(_, have, want, _)| have != want)
        .map(|(name, have, want, dropped)| ArgsChange {
            name,
            have,
            want,
            dropped,
        })
        .collect();
    if changes.is_empty() {
        // The words differ, but not field by field (an order the-loop never
        // writes): show the whole of both.
        changes.push(ArgsChange {
            name: ArgsField::HarnessArgs,
            have: observed.tail.clone(),
            want: want_tail,
            dropped: None,
        });
    }
    changes
}

/// Launch-argument drift of one session whose record stored launch
/// arguments (`recorded`, resolved against the config's `models`), from
/// its harness's argv; empty when the argv shows no launch of the-loop's.
pub fn drift(
    harness: &dyn Harness,
    recorded: &LaunchArgs,
    argv: &[String],
    models: &BTreeMap<String, Vec<String>>,
) -> Vec<ArgsChange> {
    match harness.read_launch(argv) {
        Some(observed) => args_changes(
            harness,
            &observed,
            &crate::harness::models::resolve(recorded, models),
        ),
        None => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::models::{resolve, Dropped};
    use crate::harness::CLAUDE_CODE;

    fn argv(words: &str) -> Vec<String> {
        words.split(' ').map(String::from).collect()
    }

    fn want(model: Option<&str>, effort: Option<&str>, harness_args: &[&str]) -> Resolved {
        Resolved {
            args: LaunchArgs {
                harness_args: harness_args.iter().map(|s| s.to_string()).collect(),
                model: model.map(String::from),
                effort: effort.map(String::from),
            },
            dropped: Vec::new(),
        }
    }

    #[test]
    fn the_same_launch_is_no_change() {
        let w = want(Some("opus"), Some("high"), &["--verbose"]);
        let resumed = CLAUDE_CODE
            .read_launch(&argv(
                "claude --resume abc --verbose --model opus --effort high",
            ))
            .unwrap();
        assert_eq!(args_changes(&CLAUDE_CODE, &resumed, &w), vec![]);
        let fresh = CLAUDE_CODE
            .read_launch(&argv(
                "claude --session-id abc --verbose --model opus --effort high -- go",
            ))
            .unwrap();
        assert_eq!(args_changes(&CLAUDE_CODE, &fresh, &w), vec![]);
        // An older spawner's prompt, with no `--` before it.
        let legacy = CLAUDE_CODE
            .read_launch(&argv(
                "claude --session-id abc --verbose --model opus --effort high go",
            ))
            .unwrap();
        assert_eq!(args_changes(&CLAUDE_CODE, &legacy, &w), vec![]);
    }

    #[test]
    fn differences_field_by_field() {
        let running = CLAUDE_CODE
            .read_launch(&argv(
                "claude --resume abc --verbose --model sonnet --effort low",
            ))
            .unwrap();
        let cases = [
            (
                "another model",
                want(Some("opus"), Some("low"), &["--verbose"]),
            ),
            ("effort removed", want(Some("sonnet"), None, &["--verbose"])),
            (
                "harness args changed",
                want(Some("sonnet"), Some("low"), &[]),
            ),
            (
                "everything",
                want(None, None, &["--permission-mode", "plan"]),
            ),
            (
                "harness args repeating a flag",
                want(
                    Some("sonnet"),
                    Some("low"),
                    &["--effort", "low", "--verbose"],
                ),
            ),
        ];
        let changes: Vec<(&str, Vec<ArgsChange>)> = cases
            .iter()
            .map(|(name, w)| (*name, args_changes(&CLAUDE_CODE, &running, w)))
            .collect();
        insta::assert_debug_snapshot!(changes);
    }

    #[test]
    fn a_legacy_prompt_is_not_read_as_an_argument() {
        let running = CLAUDE_CODE
            .read_launch(&argv(
                "claude --session-id abc --model sonnet --effort low go",
            ))
            .unwrap();
        let changes = args_changes(
            &CLAUDE_CODE,
            &running,
            &want(Some("opus"), Some("low"), &[]),
        );
        assert_eq!(changes.len(), 1, "{changes:?}");
        assert_eq!(changes[0].name, ArgsField::Model);
        assert_eq!(changes[0].have, vec!["sonnet".to_owned()]);
    }

    #[test]
    fn a_dropped_model_is_said_in_the_change() {
        let models = BTreeMap::from([("opus".to_owned(), vec![])]);
        let asked = LaunchArgs {
            model: Some("gpt-9".into()),
            ..LaunchArgs::default()
        };
        let resolved = resolve(&asked, &models);
        assert_eq!(
            resolved.dropped,
            vec![Dropped {
                what: "model",
                value: "gpt-9".into(),
                why: "not declared in routing.models (opus)".into()
            }]
        );
        let running = CLAUDE_CODE
            .read_launch(&argv("claude --resume abc --model gpt-9"))
            .unwrap();
        let changes = args_changes(&CLAUDE_CODE, &running, &resolved);
        assert_eq!(changes.len(), 1);
        assert!(changes[0].want.is_empty());
        assert_eq!(
            changes[0].dropped.as_deref(),
            Some("model \"gpt-9\" dropped: not declared in routing.models (opus)")
        );
    }
}
