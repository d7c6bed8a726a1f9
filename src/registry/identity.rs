//! One work item, one session: the checks that keep two refs from sharing
//! a record file or a tmux session.
//!
//! The slug and the tmux name are lossy (`octo/repo/extra` and
//! `octo/repo-extra` share a slug; `.repo` and `_repo` share a tmux name).
//! If two refs were allowed to meet there, a later roll would end one
//! conversation and resume the other in its pane. GitHub itself matches
//! owner and repository names without regard to case, so `Octo/Repo#15`
//! and `octo/repo#15` are one issue and must be one session.

use super::record::WorkItemRecord;
use super::refs::WorkItemRef;
use super::store::Registry;

/// What a new ref would share with a record of another ref.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shared {
    /// The registry file name.
    Slug,
    /// The tmux session name.
    TmuxName,
}

impl std::fmt::Display for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Shared::Slug => "registry file name",
            Shared::TmuxName => "tmux session name",
        })
    }
}

/// A ref refused because another ref's record already holds its names.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, miette::Diagnostic)]
#[error("{wanted} would share its {shared} ({name}) with the recorded work item {owner}; refusing, so neither conversation can take the other's place")]
#[diagnostic(
    code("the_loop::ref::collision"),
    help("the-loop keeps one session per work item; work on {owner} under its own ref, or remove its record first (`the-loop sessions cleanup {owner}`)")
)]
pub struct Collision {
    pub wanted: WorkItemRef,
    pub owner: WorkItemRef,
    pub shared: Shared,
    pub name: String,
}

/// The same work item as GitHub sees it: provider and number equal, host,
/// owner and repository equal without regard to ASCII case.
pub fn same_item(a: &WorkItemRef, b: &WorkItemRef) -> bool {
    let eq = |x: &str, y: &str| x.eq_ignore_ascii_case(y);
    a.provider == b.provider
        && a.number == b.number
        && eq(&a.owner, &b.owner)
        && eq(&a.repo, &b.repo)
        && match (&a.host, &b.host) {
            (Some(x), Some(y)) => eq(x, y),
            (None, None) => true,
            _ => false,
        }
}

impl Registry {
    /// The ref under which `r` is recorded: the existing record's own
    /// spelling when one matches `r` without regard to case, else `r`.
    pub fn canonical_ref(&self, r: &WorkItemRef) -> WorkItemRef {
        self.recorded_refs()
            .into_iter()
            .find(|(found, _)| found == r)
            .or_else(|| {
                self.recorded_refs()
                    .into_iter()
                    .find(|(found, _)| same_item(found, r))
            })
            .map(|(found, _)| found)
            .unwrap_or_else(|| r.clone())
    }

    /// Fails when a record of another ref holds `r`'s slug or tmux name.
    /// Call it with the canonical ref ([`Registry::canonical_ref`]).
    pub fn check_names_free(&self, r: &WorkItemRef) -> Result<(), Box<Collision>> {
        let slug = r.slug();
        let tmux_name = r.tmux_name();
        for (owner, record) in self.recorded_refs() {
            if owner == *r {
                continue;
            }
            let collision = |shared, name: &str| {
                Box::new(Collision {
                    wanted: r.clone(),
                    owner: owner.clone(),
                    shared,
                    name: name.to_owned(),
                })
            };
            if owner.slug() == slug {
                return Err(collision(Shared::Slug, &slug));
            }
            let owner_names = [Some(owner.tmux_name()), record.session.tmux_target()];
            if owner_names.iter().flatten().any(|n| *n == tmux_name) {
                return Err(collision(Shared::TmuxName, &tmux_name));
            }
        }
        Ok(())
    }

    fn recorded_refs(&self) -> Vec<(WorkItemRef, WorkItemRecord)> {
        self.work_items()
            .records
            .into_iter()
            .filter_map(|(_, record)| Some((record.work_item_ref().ok()?, record)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::Status;

    fn r(text: &str) -> WorkItemRef {
        text.parse().unwrap()
    }

    fn registry_with(refs: &[&str]) -> (tempfile::TempDir, Registry) {
        let dir = tempfile::tempdir().unwrap();
        let registry = Registry::new(dir.path());
        for text in refs {
            let record = WorkItemRecord::new(&r(text), "claude", Status::Active);
            registry.save_work_item(&record).unwrap();
        }
        (dir, registry)
    }

    #[test]
    fn a_shared_tmux_name_names_the_owner() {
        let (_dir, registry) = registry_with(&["github:octo/.repo#1"]);
        let e = registry
            .check_names_free(&r("github:octo/_repo#1"))
            .unwrap_err();
        assert_eq!(e.shared, Shared::TmuxName);
        assert_eq!(e.owner, r("github:octo/.repo#1"));
        assert!(e.to_string().contains("github:octo/.repo#1"), "{e}");
        registry
            .check_names_free(&r("github:octo/.repo#1"))
            .unwrap();
    }

    #[test]
    fn a_shared_slug_names_the_owner() {
        let (_dir, registry) = registry_with(&["github:octo/repo/extra#1"]);
        let e = registry
            .check_names_free(&r("github:octo/repo-extra#1"))
            .unwrap_err();
        assert_eq!(e.shared, Shared::Slug);
        assert_eq!(e.owner, r("github:octo/repo/extra#1"));
    }

    #[test]
    fn case_is_folded_onto_the_recorded_spelling() {
        let (_dir, registry) = registry_with(&["github:octo/repo#15"]);
        assert_eq!(
            registry.canonical_ref(&r("github:Octo/Repo#15")),
            r("github:octo/repo#15")
        );
        assert_eq!(
            registry.canonical_ref(&r("github:Octo/Repo#16")),
            r("github:Octo/Repo#16")
        );
        assert!(!same_item(
            &r("github:octo/repo#15"),
            &r("github:ghe.example.com/octo/repo#15")
        ));
    }
}
