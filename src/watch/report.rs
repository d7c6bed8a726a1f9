//! The lines `watch` logs, built as plain strings from fingerprints, names
//! and labels only, so they can be snapshot-tested and never hold a value.

use super::decide::{Assessment, Decision};
use crate::apply::{Outcome, SessionReport};
use crate::plan::change::{Change, ChangeCase};
use crate::plan::SessionPlan;
use crate::secret::Shown;
use std::collections::BTreeMap;
use std::fmt::Write;

/// The command that fixes drift by hand.
pub const FIX_COMMAND: &str = "the-loop apply";

/// How many session labels one line names before it counts the rest.
const MAX_LABELS: usize = 8;
/// How many distinct changes one line spells out before it counts the rest.
const MAX_CHANGE_GROUPS: usize = 6;

/// A fingerprint, `withheld` (a guessable value in `sha256` mode), or `absent`.
fn fingerprint_or_absent(fp: &Option<Shown>) -> String {
    fp.map_or_else(|| "absent".to_owned(), |f| f.to_string())
}

fn case_word(case: ChangeCase) -> &'static str {
    match case {
        ChangeCase::Stale => "stale",
        ChangeCase::Exposed => "exposed",
        ChangeCase::Missing => "missing",
        ChangeCase::Identifier => "identifier",
    }
}

pub fn labels(labels: &[&str]) -> String {
    let mut text = labels
        .iter()
        .take(MAX_LABELS)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if labels.len() > MAX_LABELS {
        let _ = write!(text, " and {} more", labels.len() - MAX_LABELS);
    }
    text
}

/// `left_alone` → `left alone`: the report's word, spaced for a sentence.
fn words(outcome: &Outcome) -> String {
    serde_json::to_value(outcome)
        .ok()
        .and_then(|v| v.as_str().map(|w| w.replace('_', " ")))
        .unwrap_or_default()
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// One line for the drift a cycle observed: how many sessions, which names
/// with their fingerprints (have → want, and the file's), which sessions,
/// and the command that fixes it. `rolling` is how many of them `watch`
/// rolls now, or `None` when it only reports.
pub fn drift_line(
    drifted: &[&SessionPlan],
    env_fingerprints: &BTreeMap<String, Shown>,
    rolling: Option<usize>,
) -> String {
    // Identifiers differ per session by design (each holds its own ref), so
    // they are grouped by name alone; every other change by its fingerprints.
    type Key<'a> = (&'a str, Option<Shown>, Option<Shown>, &'static str);
    let mut groups: BTreeMap<Key, usize> = BTreeMap::new();
    for change in drifted.iter().flat_map(|s| s.changes.iter()) {
        let Change {
            name,
            have,
            want,
            case,
        } = change;
        let key = match case {
            ChangeCase::Identifier => (name.as_str(), None, None, case_word(*case)),
            _ => (name.as_str(), *have, *want, case_word(*case)),
        };
        *groups.entry(key).or_default() += 1;
    }
    let mut changes: Vec<String> = groups
        .iter()
        .take(MAX_CHANGE_GROUPS)
        .map(|((name, have, want, case), count)| {
            let mut text = if *case == "identifier" {
                format!("{name} (identifier")
            } else {
                format!(
                    "{name} {} → {} ({case}",
                    fingerprint_or_absent(have),
                    fingerprint_or_absent(want)
                )
            };
            if let Some(file) = env_fingerprints
                .get(*name)
                .filter(|_| want.is_none() && *case != "identifier")
            {
                let _ = write!(text, "; file {file}");
            }
            text.push(')');
            if *count > 1 {
                let _ = write!(text, " ×{count}");
            }
            text
        })
        .collect();
    // Launch-argument drift (rolled like env drift): by field, with a count.
    let mut args: BTreeMap<String, usize> = BTreeMap::new();
    for change in drifted.iter().flat_map(|s| s.args_changes.iter()) {
        let field = serde_json::to_value(change.name)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        *args.entry(field).or_default() += 1;
    }
    for (field, count) in &args {
        let mut text = format!("launch args {field}");
        if *count > 1 {
            let _ = write!(text, " ×{count}");
        }
        changes.push(text);
    }
    if groups.len() > MAX_CHANGE_GROUPS {
        changes.push(format!(
            "{} more (see `the-loop plan`)",
            groups.len() - MAX_CHANGE_GROUPS
        ));
    }
    let names: Vec<&str> = drifted.iter().map(|s| s.label()).collect();
    let fix = match rolling {
        None => format!("fix with `{FIX_COMMAND}`"),
        Some(n) if n == drifted.len() => {
            format!("watch is rolling them now (by hand: `{FIX_COMMAND}`)")
        }
        Some(0) => {
            format!("watch holds them back (each is reported once); fix with `{FIX_COMMAND}`")
        }
        Some(n) => format!("watch is rolling {n} of them now; fix the rest with `{FIX_COMMAND}`"),
    };
    let what = if drifted.iter().all(|s| s.changes.is_empty()) {
        plural(
            drifted.len(),
            "session runs with stale launch arguments",
            "sessions run with stale launch arguments",
        )
    } else {
        plural(
            drifted.len(),
            "session holds a stale environment",
            "sessions hold a stale environment",
        )
    };
    format!(
        "env drift: {what}: {}; sessions: {}; {fix}",
        changes.join(", "),
        labels(&names),
    )
}

/// One line for sessions whose environment could not be read: they are
/// reported, never rolled.
pub fn unverified_line(unverified: &[&SessionPlan]) -> String {
    let parts: Vec<String> = unverified
        .iter()
        .map(|s| {
            format!(
                "{} ({})",
                s.label(),
                s.reason
                    .as_ref()
                    .map_or("unverified".into(), ToString::to_string)
            )
        })
        .collect();
    let names: Vec<&str> = parts.iter().map(String::as_str).collect();
    format!(
        "cannot observe {}, so watch will not roll them: {}",
        plural(unverified.len(), "session", "sessions"),
        labels(&names)
    )
}

/// One line for a drifted session `watch` is holding back.
pub fn hold_line(assessment: &Assessment) -> Option<String> {
    let label = &assessment.label;
    let by_hand = format!("`{FIX_COMMAND} --target {label}`");
    Some(match &assessment.decision {
        Decision::Roll { .. } => return None,
        Decision::AlreadyRolled { outcome } => format!(
            "{label} is still drifted after watch rolled it for this env file (outcome: {}); \
             watch rolls a session once per env file, so it is not rolled again; roll it by hand with {by_hand}",
            words(outcome)
        ),
        Decision::Unchanged { outcome, detail } => format!(
            "{label} is still drifted and was not rolled: its last attempt was {}{}; \
             watch retries when something about it changes",
            words(outcome),
            detail
                .as_deref()
                .map(|d| format!(" ({d})"))
                .unwrap_or_default()
        ),
        Decision::Backoff { until, outcome } => format!(
            "{label} changed since its last attempt ({}); retrying after {}",
            words(outcome),
            crate::clock::format_utc(*until)
        ),
    })
}

/// One line per rolled session.
pub fn roll_line(report: &SessionReport) -> String {
    let pids = match (report.old_pid, report.new_pid) {
        (Some(old), Some(new)) => format!(", pid {old} → {new}"),
        _ => String::new(),
    };
    format!("watch roll: {}: {}{pids}", report.label(), report.verdict())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observed::Probe;
    use crate::plan::{Action, EnvReading, SessionKind};

    fn fp(text: &str) -> Shown {
        Shown::Fingerprint(crate::secret::Fingerprint::of(text.as_bytes()))
    }

    fn drifted(reference: &str, have: &str) -> SessionPlan {
        SessionPlan {
            reference: Some(reference.into()),
            pane_id: Some("%1".into()),
            pane_pid: Some(10),
            activity: crate::activity::Activity::Idle,
            action: Action::Respawn,
            observation: EnvReading::Read,
            changes: vec![
                Change {
                    name: "SLACK_BOT_TOKEN".into(),
                    have: Some(fp(have)),
                    want: None,
                    case: ChangeCase::Stale,
                },
                Change {
                    name: "THE_LOOP_WORK_ITEM".into(),
                    have: None,
                    want: Some(fp(reference)),
                    case: ChangeCase::Identifier,
                },
            ],
            ..SessionPlan::new(SessionKind::WorkItem, "loop-x".into(), Probe::Live)
        }
    }

    #[test]
    fn the_drift_line_groups_changes_and_names_the_fix() {
        let a = drifted("github:octo/repo#1", "retired");
        let b = drifted("github:octo/repo#2", "retired");
        let c = drifted("github:octo/repo#3", "older");
        let mut env = BTreeMap::new();
        env.insert("SLACK_BOT_TOKEN".to_owned(), fp("rotated"));
        insta::assert_snapshot!("drift_line_by_hand", drift_line(&[&a, &b, &c], &env, None));
        insta::assert_snapshot!("drift_line_auto", drift_line(&[&a], &env, Some(1)));
        let mut argv = drifted("github:octo/repo#4", "retired");
        argv.changes.clear();
        argv.args_changes = vec![crate::plan::model::ArgsChange {
            name: crate::plan::model::ArgsField::Model,
            have: vec![],
            want: vec!["--model".into(), "opus".into()],
            dropped: None,
        }];
        insta::assert_snapshot!(
            "drift_line_launch_args",
            [
                drift_line(&[&argv], &env, None),
                drift_line(&[&a, &argv], &env, None)
            ]
            .join("\n")
        );
        insta::assert_snapshot!(
            "drift_line_auto_some_held",
            [Some(2), Some(0)]
                .map(|rolling| drift_line(&[&a, &b, &c], &env, rolling))
                .join("\n")
        );
    }

    #[test]
    fn long_lists_of_sessions_are_counted() {
        let many: Vec<String> = (1..=11).map(|i| format!("s{i}")).collect();
        let refs: Vec<&str> = many.iter().map(String::as_str).collect();
        assert_eq!(labels(&refs), "s1, s2, s3, s4, s5, s6, s7, s8 and 3 more");
    }

    #[test]
    fn hold_lines_say_why_and_what_to_do() {
        let lines: Vec<String> = [
            Decision::AlreadyRolled {
                outcome: Outcome::Mismatch,
            },
            Decision::Unchanged {
                outcome: Outcome::LeftAlone,
                detail: Some("unresumable: no transcript".into()),
            },
            Decision::Backoff {
                until: 1_796_000_000,
                outcome: Outcome::LeftAlone,
            },
        ]
        .into_iter()
        .filter_map(|decision| {
            hold_line(&Assessment {
                label: "github:octo/repo#1".into(),
                desired: crate::secret::Fingerprint::of(b"d"),
                signature: crate::secret::Fingerprint::of(b"x"),
                decision,
                report: true,
            })
        })
        .collect();
        insta::assert_snapshot!(lines.join("\n"));
    }
}
