//! Turns what a person types into one session: a full ref, a short form
//! (`#15`, `repo#15`, `owner/repo#15`), a standing-session name, or the tmux
//! name `sessions list` shows. Only the registry is read, never tmux, so
//! verbs that do not drive tmux (`pause`, `resume`) can use it too.
//!
//! Like `registry::refs`, errors never repeat the text typed: it may have
//! been pasted from somewhere untrusted.

use crate::lifecycle::{Record, SessionKey};
use crate::registry::identity::same_item;
use crate::registry::{
    normalise_tmux_target, standing_tmux_name, validate_standing_name, RefError, Registry,
    WorkItemRef,
};

/// A registered session as the resolver sees it.
struct Candidate {
    key: SessionKey,
    tmux_name: String,
}

impl Candidate {
    /// `None` for a work item whose ref does not parse (listings only hold
    /// records whose ref parses, so it is never left out in practice).
    fn of(record: &Record) -> Option<Candidate> {
        Some(match record {
            Record::WorkItem(record) => {
                let r = record.work_item_ref().ok()?;
                Candidate {
                    tmux_name: record
                        .session
                        .tmux_target()
                        .unwrap_or_else(|| r.tmux_name()),
                    key: SessionKey::WorkItem(r),
                }
            }
            Record::Standing(record) => Candidate {
                tmux_name: record
                    .session
                    .tmux_target()
                    .unwrap_or_else(|| standing_tmux_name(&record.name)),
                key: SessionKey::Standing(record.name.clone()),
            },
        })
    }
}

fn candidates(registry: &Registry) -> Vec<Candidate> {
    let works = registry.work_items().records.into_iter();
    let standing = registry.standing().records.into_iter();
    works
        .map(|(_, r)| Record::WorkItem(r))
        .chain(standing.map(|(_, r)| Record::Standing(r)))
        .filter_map(|r| Candidate::of(&r))
        .collect()
}

/// A work-item ref as typed: refused with the shape a ref takes, never
/// repeating the text.
pub fn parse_ref(text: &str) -> miette::Result<WorkItemRef> {
    text.parse().map_err(|e: RefError| {
        miette::miette!(
            code = "the_loop::ref::invalid",
            help = "a work-item ref looks like github:octo/repo#15 or github:ghe.example.com/octo/repo#15",
            "{e}"
        )
    })
}

/// A ref as the registry records it: `github:Octo/Repo#15` is the recorded
/// `github:octo/repo#15`, as GitHub matches owner and repository names
/// without regard to case.
pub fn resolve_ref(registry: &Registry, text: &str) -> miette::Result<WorkItemRef> {
    Ok(registry.canonical_ref(&parse_ref(text)?))
}

/// A full ref as the registry records it: GitHub matches owner and
/// repository names without regard to case, so `github:Octo/Repo#15` is the
/// recorded `github:octo/repo#15`.
fn as_recorded(registry: &Registry, key: SessionKey) -> SessionKey {
    match key {
        SessionKey::WorkItem(r) => SessionKey::WorkItem(registry.canonical_ref(&r)),
        other => other,
    }
}

/// The session `text` names. A full ref is taken as it is, registered or
/// not, so the caller can say "not registered" about it.
pub fn resolve(registry: &Registry, text: &str) -> miette::Result<SessionKey> {
    if let Ok(key) = SessionKey::work_item(text) {
        return Ok(as_recorded(registry, key));
    }
    let all = candidates(registry);
    let matches = matching(&all, text)?;
    match matches.as_slice() {
        [one] => Ok(one.key.clone()),
        [] => Err(miette::miette!(
            code = "the_loop::ref::not_registered",
            help = "`the-loop sessions list` shows the registered sessions and their refs",
            "no registered session matches that ref"
        )),
        many => {
            let listed: Vec<String> = many
                .iter()
                .map(|c| format!("  {} ({})", c.key.label(), c.tmux_name))
                .collect();
            Err(miette::miette!(
                code = "the_loop::ref::ambiguous",
                help = format!("name one of them in full:\n{}", listed.join("\n")),
                "that short ref matches {} registered sessions",
                many.len()
            ))
        }
    }
}

/// Every session `text` names, for a filter: unlike [`resolve`], many (or
/// none) is a fine answer. It looks only at `records`, which the caller has
/// already read (so `sessions list` reads each record once), and finds a
/// full ref's recorded spelling among them as
/// [`Registry::canonical_ref`] does.
pub fn resolve_all<'r>(
    records: impl IntoIterator<Item = &'r Record>,
    text: &str,
) -> miette::Result<Vec<SessionKey>> {
    let all: Vec<Candidate> = records.into_iter().filter_map(Candidate::of).collect();
    if let Ok(typed) = text.parse::<WorkItemRef>() {
        let recorded = || {
            all.iter().filter_map(|c| match &c.key {
                SessionKey::WorkItem(r) => Some(r),
                SessionKey::Standing(_) => None,
            })
        };
        let canonical = recorded()
            .find(|r| **r == typed)
            .or_else(|| recorded().find(|r| same_item(r, &typed)))
            .cloned()
            .unwrap_or(typed);
        return Ok(vec![SessionKey::WorkItem(canonical)]);
    }
    Ok(matching(&all, text)?
        .into_iter()
        .map(|c| c.key.clone())
        .collect())
}

fn matching<'a>(all: &'a [Candidate], text: &str) -> miette::Result<Vec<&'a Candidate>> {
    Ok(if text.starts_with("loop-") {
        let wanted = normalise_tmux_target(text);
        all.iter().filter(|c| c.tmux_name == wanted).collect()
    } else if let Some((prefix, number)) = text.rsplit_once('#') {
        let number: u64 = number.parse().map_err(|_| {
            miette::miette!(
                code = "the_loop::ref::short_form",
                help = "use #15, repo#15, owner/repo#15, a full ref (github:octo/repo#15), a standing name or the tmux name",
                "not a session ref: the text after '#' is not a number"
            )
        })?;
        all.iter()
            .filter(|c| match &c.key {
                SessionKey::WorkItem(r) => {
                    r.number == number
                        && (prefix.is_empty()
                            || prefix == r.repo
                            || prefix == format!("{}/{}", r.owner, r.repo))
                }
                SessionKey::Standing(_) => false,
            })
            .collect()
    } else if validate_standing_name(text).is_ok() {
        all.iter()
            .filter(|c| matches!(&c.key, SessionKey::Standing(n) if n == text))
            .collect()
    } else {
        Vec::new()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::{StandingRecord, Status, WorkItemRecord};

    fn registry_with(refs: &[&str], standing: &[&str]) -> (tempfile::TempDir, Registry) {
        let dir = tempfile::tempdir().unwrap();
        let registry = Registry::new(dir.path());
        for r in refs {
            let r = r.parse().unwrap();
            registry
                .save_work_item(&WorkItemRecord::new(&r, "claude", Status::Active))
                .unwrap();
        }
        for n in standing {
            registry
                .save_standing(&StandingRecord::new(*n, "claude", Status::Active))
                .unwrap();
        }
        (dir, registry)
    }

    fn label(registry: &Registry, text: &str) -> Result<String, String> {
        resolve(registry, text)
            .map(|k| k.label())
            .map_err(|e| format!("{:?}", e.code().map(|c| c.to_string())))
    }

    #[test]
    fn short_forms_resolve_when_unambiguous_and_list_candidates_when_not() {
        let (_dir, reg) = registry_with(
            &[
                "github:octo/repo#15",
                "github:octo/other#15",
                "github:octo/repo#16",
            ],
            &["triage"],
        );
        assert_eq!(label(&reg, "#16").unwrap(), "github:octo/repo#16");
        assert_eq!(label(&reg, "other#15").unwrap(), "github:octo/other#15");
        assert_eq!(label(&reg, "octo/repo#15").unwrap(), "github:octo/repo#15");
        assert_eq!(
            label(&reg, "loop-github-octo-other-15").unwrap(),
            "github:octo/other#15"
        );
        assert_eq!(label(&reg, "triage").unwrap(), "triage");
        assert_eq!(
            label(&reg, "loop-standing-triage").unwrap(),
            "triage",
            "the tmux name of a standing session"
        );
        let err = resolve(&reg, "#15").unwrap_err();
        let help = err.help().unwrap().to_string();
        assert!(
            help.contains("github:octo/repo#15") && help.contains("github:octo/other#15"),
            "{help}"
        );
        assert_eq!(
            label(&reg, "#17").unwrap_err(),
            "Some(\"the_loop::ref::not_registered\")"
        );
        assert_eq!(
            label(&reg, "#x").unwrap_err(),
            "Some(\"the_loop::ref::short_form\")"
        );
        // A full ref is taken as typed, registered or not.
        assert_eq!(
            label(&reg, "github:octo/repo#99").unwrap(),
            "github:octo/repo#99"
        );
    }

    #[test]
    fn errors_never_repeat_the_text_typed() {
        let (_dir, reg) = registry_with(&["github:octo/repo#15"], &[]);
        for typed in [
            "SECRET-canary#1",
            "#SECRET-canary",
            "loop-SECRET-canary",
            "SECRET canary",
        ] {
            let err = resolve(&reg, typed).unwrap_err();
            let shown = format!(
                "{err:?} {}",
                err.help().map(|h| h.to_string()).unwrap_or_default()
            );
            assert!(!shown.contains("SECRET"), "{shown}");
        }
    }

    #[test]
    fn a_filter_resolves_against_records_already_read() {
        let (_dir, reg) = registry_with(
            &["github:octo/repo#15", "github:octo/other#15"],
            &["triage"],
        );
        let records: Vec<Record> = reg
            .work_items()
            .records
            .into_iter()
            .map(|(_, r)| Record::WorkItem(r))
            .collect();
        // Gone from disk: the answer can only come from `records`.
        std::fs::remove_dir_all(reg.root()).unwrap();
        let labels = |text: &str| -> Vec<String> {
            resolve_all(&records, text)
                .unwrap()
                .iter()
                .map(SessionKey::label)
                .collect()
        };
        assert_eq!(labels("github:Octo/REPO#15"), ["github:octo/repo#15"]);
        assert_eq!(labels("github:octo/new#1"), ["github:octo/new#1"]);
        assert_eq!(labels("#15").len(), 2);
        assert!(labels("#16").is_empty());
    }
}
