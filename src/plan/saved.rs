//! Saved plans (`plan --out`, `apply --plan`). A saved plan holds
//! fingerprints only, and is refused when the world moved since it was made.

use super::change::Change;
use super::compute::Targets;
use super::model::{Plan, SessionKind, SessionPlan, FORMAT_VERSION};
use crate::secret::Shown;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum SavedPlanError {
    #[error("cannot write plan {path}: {}", crate::fsutil::IoKind(*.kind))]
    Write {
        path: PathBuf,
        kind: std::io::ErrorKind,
    },
    #[error("cannot read plan {path}: {}", crate::fsutil::IoKind(*.kind))]
    Read {
        path: PathBuf,
        kind: std::io::ErrorKind,
    },
    /// Not a regular file, or over [`crate::bounded_read::SAVED_PLAN`].
    #[error("cannot read plan {path}: {reason}")]
    Refused { path: PathBuf, reason: String },
    /// Not JSON at all (an env file, a config): where the parser stopped,
    /// never what it read there.
    #[error("{path} is not a saved plan: it is not JSON (line {line}, column {column})")]
    #[diagnostic(code(the_loop::plan::unreadable), help("{}", NOT_A_PLAN_HELP))]
    NotJson {
        path: PathBuf,
        line: usize,
        column: usize,
    },
    /// JSON, but not a plan (`status --json`, an apply report).
    #[error("{path} is not a saved plan: it is JSON, but not what `the-loop plan --out` writes")]
    #[diagnostic(code(the_loop::plan::unreadable), help("{}", NOT_A_PLAN_HELP))]
    NotAPlan { path: PathBuf },
    #[error("{path} has plan format {found}; this the-loop reads format {FORMAT_VERSION}")]
    #[diagnostic(
        code(the_loop::plan::version),
        help("save the plan again with this the-loop: `the-loop plan --out FILE`")
    )]
    Version { path: PathBuf, found: String },
    #[error("the saved plan {path} does not plan for target {target}")]
    #[diagnostic(
        code(the_loop::plan::target_not_in_plan),
        help("apply the plan without --target, or save a plan that covers it")
    )]
    TargetNotInPlan { path: PathBuf, target: String },
    #[error("the saved plan {path} is stale:\n{}", .changes.iter().map(|c| format!("  - {c}")).collect::<Vec<_>>().join("\n"))]
    #[diagnostic(
        code(the_loop::plan::stale),
        help("run `the-loop plan --out FILE` again and review the new plan (a candidate's plan: swap the candidate in first)")
    )]
    Stale { path: PathBuf, changes: Vec<String> },
    #[error("the saved plan {path} names values by {saved} fingerprints, and they are {now} now: its fingerprints cannot be compared with today's")]
    #[diagnostic(
        code(the_loop::plan::other_fingerprints),
        help("env.fingerprint (or the key in <state root>/fingerprint.key) changed since the plan was saved: run `the-loop plan --out FILE` again and review the new plan")
    )]
    OtherFingerprints {
        path: PathBuf,
        saved: crate::secret::FingerprintLabel,
        now: crate::secret::FingerprintLabel,
    },
}

pub fn write(plan: &Plan, path: &Path) -> Result<(), SavedPlanError> {
    let mut text = serde_json::to_string_pretty(plan).expect("a plan serialises");
    text.push('\n');
    crate::fsutil::write_atomic(path, text.as_bytes(), 0o600).map_err(|e| SavedPlanError::Write {
        path: path.into(),
        kind: e.kind(),
    })
}

pub fn read(path: &Path) -> Result<Plan, SavedPlanError> {
    let bytes = crate::bounded_read::read(path, &crate::bounded_read::SAVED_PLAN).map_err(|e| {
        match crate::bounded_read::refusal(&e) {
            Some(reason) => SavedPlanError::Refused {
                path: path.into(),
                reason,
            },
            None => SavedPlanError::Read {
                path: path.into(),
                kind: e.kind(),
            },
        }
    })?;
    // serde's messages are never passed on: they may quote what they read.
    let value: serde_json::Value =
        serde_json::from_slice(&bytes).map_err(|e| SavedPlanError::NotJson {
            path: path.into(),
            line: e.line(),
            column: e.column(),
        })?;
    let not_a_plan = || SavedPlanError::NotAPlan { path: path.into() };
    // Every plan has these two; a document without them is something else,
    // whatever its format_version says (`status --json` has one too).
    let found = match (value.get("format_version"), value.get("env_fingerprints")) {
        (Some(serde_json::Value::String(found)), Some(_)) => found.clone(),
        _ => return Err(not_a_plan()),
    };
    if found != FORMAT_VERSION {
        return Err(SavedPlanError::Version {
            path: path.into(),
            // Printed: so only when it is short and plain.
            found: if found.len() <= 8 && found.chars().all(|c| c.is_ascii_alphanumeric()) {
                found
            } else {
                "(not a version)".into()
            },
        });
    }
    serde_json::from_value(value).map_err(|_| not_a_plan())
}

const NOT_A_PLAN_HELP: &str =
    "a saved plan is the file `the-loop plan --out FILE` wrote; `the-loop show FILE` reads one";

/// The sessions a saved plan may act on: its own managed sessions, or the
/// `--target` subset of them. A target the plan does not hold is refused,
/// since the plan says nothing about it.
pub fn targets_within(
    path: &Path,
    saved: &Plan,
    targets: &Targets,
) -> Result<Targets, SavedPlanError> {
    let managed = || {
        saved
            .sessions
            .iter()
            .filter(|s| s.kind != SessionKind::Unmanaged)
    };
    if targets.is_all() {
        return Ok(Targets(managed().map(|s| s.label().to_owned()).collect()));
    }
    for target in &targets.0 {
        if !managed().any(|s| targets_session(target, s)) {
            return Err(SavedPlanError::TargetNotInPlan {
                path: path.into(),
                target: target.clone(),
            });
        }
    }
    Ok(targets.clone())
}

fn targets_session(target: &str, session: &SessionPlan) -> bool {
    target == session.label() || target == session.tmux_target
}

impl Plan {
    /// The saved plan as far as `targets` reach, for comparing with a plan
    /// computed now for the same targets.
    pub fn restricted_to(&self, targets: &Targets) -> Plan {
        let mut plan = self.clone();
        if !targets.is_all() {
            plan.sessions
                .retain(|s| targets.0.iter().any(|t| targets_session(t, s)));
        }
        plan
    }
}

/// Refuses a saved plan whose fingerprints were made another way (another
/// `env.fingerprint`, or another key) than a plan made now: every one of
/// them would differ, which says nothing about the world.
pub fn same_fingerprints(path: &Path, saved: &Plan, now: &Plan) -> Result<(), SavedPlanError> {
    if saved.fingerprints.comparable(&now.fingerprints) {
        return Ok(());
    }
    Err(SavedPlanError::OtherFingerprints {
        path: path.into(),
        saved: saved.fingerprints,
        now: now.fingerprints,
    })
}

/// What changed between a saved plan and one computed now; empty when the
/// saved plan still describes the world. Both are made under the same
/// fingerprints ([`same_fingerprints`]).
pub fn staleness(saved: &Plan, now: &Plan) -> Vec<String> {
    let mut changes = Vec::new();
    // A candidate's plan (`plan --env-file`) is for the file it would
    // replace, and holds once that file declares what the candidate did:
    // the fingerprint checks below are then the whole "swapped in" test.
    let applies_to = saved.candidate_for.as_ref().or(saved.env_file.as_ref());
    if applies_to != now.env_file.as_ref() {
        changes.push("the configured env file is a different file".to_owned());
    } else if let (Some(candidate), Some(configured)) = (&saved.env_file, &saved.candidate_for) {
        if saved.env_fingerprints != now.env_fingerprints {
            changes.push(format!(
                "the plan previews the candidate {}, and env.file ({}) does not hold it yet: \
                 swap it in, then apply",
                candidate.display(),
                configured.display()
            ));
        }
    }
    if let (Some(then), Some(seal)) = (saved.withheld_seal, now.withheld_seal) {
        // A value that came, went or became guessable is said name by name
        // below; this is one that changed behind a withheld fingerprint.
        if then != seal {
            changes.push(
                "a guessable value in the env file (its fingerprint withheld) changed".to_owned(),
            );
        }
    }
    for (name, fp) in &saved.env_fingerprints {
        match now.env_fingerprints.get(name) {
            None => changes.push(format!("env file no longer declares {name}")),
            Some(now_fp) if now_fp != fp => changes.push(if now_fp.is_withheld() {
                // Saved by a build that showed every fingerprint, or before
                // the value became guessable: nothing left to compare.
                format!("the fingerprint of {name} is withheld now (a guessable value), so whether it changed since the plan was saved cannot be told")
            } else {
                format!("env file value of {name} changed ({fp} → {now_fp})")
            }),
            Some(_) => {}
        }
    }
    for name in now
        .env_fingerprints
        .keys()
        .filter(|n| !saved.env_fingerprints.contains_key(*n))
    {
        changes.push(format!("env file now declares {name}"));
    }
    let current: BTreeMap<&str, _> = now.sessions.iter().map(|s| (s.label(), s)).collect();
    for session in saved.sessions.iter().filter(|s| s.action.acts()) {
        let label = session.label();
        let Some(fresh) = current.get(label) else {
            changes.push(format!("{label} is no longer registered or running"));
            continue;
        };
        if fresh.pane_pid != session.pane_pid {
            changes.push(format!(
                "pane pid of {label} changed ({} → {})",
                show(session.pane_pid),
                show(fresh.pane_pid)
            ));
        }
        if fresh.record_fingerprint != session.record_fingerprint {
            changes.push(format!("registry record of {label} changed"));
        }
        if fresh.args_changes != session.args_changes
            || withheld_like(&session.changes, &fresh.changes) != fresh.changes
        {
            changes.push(format!("the drift of {label} is not what the plan showed"));
        } else if fresh.changes != session.changes {
            changes.push(format!("the drift of {label} names fingerprints that are withheld now (guessable values), so whether it is what the plan showed cannot be told"));
        }
    }
    let planned: Vec<&str> = saved
        .sessions
        .iter()
        .filter(|s| s.action.acts())
        .map(|s| s.label())
        .collect();
    for fresh in now
        .sessions
        .iter()
        .filter(|s| s.action.acts() && !planned.contains(&s.label()))
    {
        changes.push(format!(
            "{} has drifted since the plan was saved",
            fresh.label()
        ));
    }
    changes
}

/// `saved`, with each fingerprint that `now` withholds withheld too.
fn withheld_like(saved: &[Change], now: &[Change]) -> Vec<Change> {
    let like = |saved: Option<Shown>, now: Option<Shown>| match now {
        Some(Shown::Withheld) if saved.is_some() => now,
        _ => saved,
    };
    saved
        .iter()
        .map(|change| match now.iter().find(|c| c.name == change.name) {
            Some(fresh) => Change {
                have: like(change.have, fresh.have),
                want: like(change.want, fresh.want),
                ..change.clone()
            },
            None => change.clone(),
        })
        .collect()
}

fn show(pid: Option<i32>) -> String {
    pid.map(|p| p.to_string()).unwrap_or_else(|| "none".into())
}
