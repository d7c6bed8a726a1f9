//! Turns what a person types into one session: a full ref, a short form
//! (`#15`, `repo#15`, `owner/repo#15`), a standing-session name, or the tmux
//! name `sessions list` shows. Only the registry is read, never tmux, so
//! verbs that do not drive tmux (`pause`, `resume`) can use it too.
//!
//! Like `registry::refs`, errors never repeat the text typed: it may have
//! been pasted from somewhere untrusted.

use crate::lifecycle::SessionKey;
use crate::registry::{
    normalise_tmux_target, standing_tmux_name, validate_standing_name, Registry,
};

/// A registered session as the resolver sees it.
struct Candidate {
    key: SessionKey,
    tmux_name: String,
}

fn candidates(registry: &Registry) -> Vec<Candidate> {
    let mut all = Vec::new();
    for (_, record) in registry.work_items().records {
        // Listings only hold records whose ref parses.
        if let Ok(r) = record.work_item_ref() {
            let tmux_name = record.tmux_target().unwrap_or_else(|| r.tmux_name());
            all.push(Candidate {
                key: SessionKey::WorkItem(r),
                tmux_name,
            });
        }
    }
    for (_, record) in registry.standing().records {
        let tmux_name = record
            .tmux_target()
            .unwrap_or_else(|| standing_tmux_name(&record.name));
        all.push(Candidate {
            key: SessionKey::Standing(record.name.clone()),
            tmux_name,
        });
    }
    all
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
/// none) is a fine answer.
pub fn resolve_all(registry: &Registry, text: &str) -> miette::Result<Vec<SessionKey>> {
    if let Ok(key) = SessionKey::work_item(text) {
        return Ok(vec![as_recorded(registry, key)]);
    }
    let all = candidates(registry);
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
}
