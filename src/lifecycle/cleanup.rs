//! Cleanup: the operator is done with a work item and all of it. Every
//! endpoint's tmux session is ended and killed (the linked pull requests'
//! first, the item's own last), the workspace checkout is removed, the
//! record is deleted, and `cleanup` is recorded as the item's last control
//! command so no later event spawns it again. Both retention settings are
//! ignored on purpose. Works with or without a record or a live session.
//!
//! A directory is deleted only when it lies strictly inside the configured
//! `routing.workspace.root`; anything else is reported and left alone.

use super::close::{
    end_session, proven_or_said, CloseOptions, CloseReport, Disposition, TmuxResult,
};
use super::key::{self, Record, SessionKey};
use super::owner::NotOwned;
pub use crate::events::session::CheckoutAction;
pub use crate::events::session::Deferral;
pub use crate::events::session::Verdict;
use crate::lifecycle::context::Context;
use crate::observed::Probe;
use crate::registry::WorkItemRef;
use crate::runner::close::PaneEnding;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// `resolved` and `root` are canonical (symlinks resolved), so `..` and
/// links cannot smuggle a path outside the root past the prefix test.
pub fn verdict(resolved: &Path, root: Option<&Path>, is_symlink: bool) -> Verdict {
    let Some(root) = root else {
        return Verdict::KeepNoWorkspaceRoot;
    };
    if is_symlink {
        Verdict::KeepSymlink
    } else if resolved == root {
        Verdict::KeepIsWorkspaceRoot
    } else if resolved.starts_with(root) {
        Verdict::Remove
    } else {
        Verdict::KeepOutsideWorkspaceRoot
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct CheckoutReport {
    pub path: PathBuf,
    pub action: CheckoutAction,
    pub verdict: Verdict,
    pub detail: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct EndpointReport {
    #[serde(rename = "ref")]
    pub reference: String,
    pub tmux_target: String,
    pub probe: Probe,
    pub harness: Vec<PaneEnding>,
    pub tmux: TmuxResult,
    pub problems: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CleanupReport {
    #[serde(rename = "ref")]
    pub reference: String,
    pub endpoints: Vec<EndpointReport>,
    pub record_deleted: bool,
    pub checkouts: Vec<CheckoutReport>,
    pub last_control: Option<String>,
    pub problems: Vec<String>,
}

impl CleanupReport {
    /// Every endpoint gone, and nothing failed that was meant to happen.
    pub fn complete(&self) -> bool {
        self.problems.is_empty()
            && self.endpoints.iter().all(|e| {
                matches!(
                    e.tmux,
                    TmuxResult::Killed | TmuxResult::PaneKilled | TmuxResult::Absent
                )
            })
            && self
                .checkouts
                .iter()
                .all(|c| c.action != CheckoutAction::Failed)
    }
}

/// The caller holds the item's turn. Refused, with nothing done, when any
/// session it would end is not the one the records say
/// ([`super::owner`]).
pub fn cleanup(
    ctx: &Context,
    r: &WorkItemRef,
    record: Option<&Record>,
) -> Result<CleanupReport, NotOwned> {
    let key = SessionKey::WorkItem(r.clone());
    let mut report = CleanupReport {
        reference: r.to_string(),
        endpoints: Vec::new(),
        record_deleted: false,
        checkouts: Vec::new(),
        last_control: None,
        problems: Vec::new(),
    };
    let kill = CloseOptions {
        disposition: Disposition::Kill,
        end_harness: true,
    };
    // The pull requests' sessions first, the item's own last.
    let mut endpoints: Vec<(SessionKey, String)> = Vec::new();
    for pr in record.map(Record::pull_request_refs).unwrap_or_default() {
        match pr.parse::<WorkItemRef>() {
            Ok(pr) => {
                let target = pr.tmux_name();
                endpoints.push((SessionKey::WorkItem(pr), target));
            }
            Err(e) => report
                .problems
                .push(format!("a linked pull request is not a valid ref ({e}); its session, if any, was not touched")),
        }
    }
    endpoints.push((key.clone(), key::target_of(&key, record)));
    let mut seen = std::collections::BTreeSet::new();
    endpoints.retain(|(_, target)| seen.insert(target.clone()));
    // Every endpoint is proven before any is touched.
    let mut proven = Vec::new();
    for (endpoint, target) in endpoints {
        let endpoint_record = if endpoint == key {
            record.cloned()
        } else {
            key::load(&ctx.registry, &endpoint).ok().flatten()
        };
        let owned = proven_or_said(ctx, &endpoint, endpoint_record.as_ref(), &target)?;
        proven.push((endpoint, target, owned));
    }
    for (endpoint, target, owned) in proven {
        let mut closed = CloseReport {
            tmux_target: target.clone(),
            record_target: None,
            probe: Probe::Unknown,
            record_closed: false,
            harness: Vec::new(),
            tmux: TmuxResult::Untouched,
            problems: Vec::new(),
        };
        end_session(ctx, &endpoint, &target, kill, owned, &mut closed);
        report.endpoints.push(EndpointReport {
            reference: endpoint.label(),
            tmux_target: target,
            probe: closed.probe,
            harness: closed.harness,
            tmux: closed.tmux,
            problems: closed.problems,
        });
    }

    for path in checkout_candidates(ctx, r, record) {
        report.checkouts.push(remove_checkout(ctx, &path));
    }

    match key::delete(&ctx.registry, &key) {
        Ok(deleted) => report.record_deleted = deleted,
        Err(err) => report
            .problems
            .push(format!("the record was not deleted: {err}")),
    }
    match super::control::record(&ctx.registry, r, super::control::CLEANUP) {
        Ok(()) => report.last_control = Some(super::control::CLEANUP.into()),
        Err(err) => report.problems.push(format!(
            "`cleanup` was not recorded as the last control command: {}",
            crate::fsutil::IoKind(err.kind())
        )),
    }
    ctx.events.emit(crate::events::Event::SessionCleaned {
        subject: key.subject(),
        endpoints: report
            .endpoints
            .iter()
            .map(|e| crate::events::CleanedEndpoint {
                tmux_target: e.tmux_target.clone(),
                tmux: e.tmux,
            })
            .collect(),
        record_deleted: report.record_deleted,
        checkouts: report
            .checkouts
            .iter()
            .map(|c| crate::events::CleanedCheckout {
                action: c.action,
                verdict: c.verdict,
            })
            .collect(),
    });
    Ok(report)
}

/// The record's working directory, and the conventional checkout location
/// `<workspace root>/<slug>`, which finds a checkout left behind by a crash
/// from the ref alone. Only paths that exist are returned.
fn checkout_candidates(ctx: &Context, r: &WorkItemRef, record: Option<&Record>) -> Vec<PathBuf> {
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(cwd) = record.and_then(Record::cwd) {
        candidates.push(cwd.to_path_buf());
    }
    if let Some(root) = &ctx.config.routing.workspace_root {
        candidates.push(root.join(r.slug()));
    }
    let mut unique = Vec::new();
    for path in candidates {
        if std::fs::symlink_metadata(&path).is_ok() && !unique.contains(&path) {
            unique.push(path);
        }
    }
    unique
}

fn remove_checkout(ctx: &Context, path: &Path) -> CheckoutReport {
    let is_symlink = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    let resolved = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let root = ctx
        .config
        .routing
        .workspace_root
        .as_deref()
        .map(|root| std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf()));
    let verdict = verdict(&resolved, root.as_deref(), is_symlink);
    let (action, detail) = match verdict {
        Verdict::Remove => match std::fs::remove_dir_all(path) {
            Ok(()) => (CheckoutAction::Removed, None),
            Err(err) => (
                CheckoutAction::Failed,
                Some(format!(
                    "could not remove it: {}",
                    crate::fsutil::IoKind(err.kind())
                )),
            ),
        },
        Verdict::KeepNoWorkspaceRoot => (
            CheckoutAction::Kept,
            Some("no routing.workspace.root is configured, so no directory is ever deleted".into()),
        ),
        Verdict::KeepOutsideWorkspaceRoot => (
            CheckoutAction::Kept,
            Some("it is outside routing.workspace.root, so it was not deleted".into()),
        ),
        Verdict::KeepIsWorkspaceRoot => (
            CheckoutAction::Kept,
            Some("it is routing.workspace.root itself, so it was not deleted".into()),
        ),
        Verdict::KeepSymlink => (
            CheckoutAction::Kept,
            Some("it is a symlink, so neither it nor its target was deleted".into()),
        ),
    };
    CheckoutReport {
        path: path.to_path_buf(),
        action,
        verdict,
        detail,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_paths_strictly_inside_the_root_are_removed() {
        let root = Some(Path::new("/srv/work"));
        let cases = [
            ("/srv/work/github-octo-repo-1", root, false),
            ("/srv/work/a/b", root, false),
            ("/srv/work", root, false),
            ("/srv/workshop/x", root, false),
            ("/home/op/src/repo", root, false),
            ("/srv/work/link", root, true),
            ("/srv/work/github-octo-repo-1", None, false),
        ];
        let table: Vec<String> = cases
            .iter()
            .map(|(path, root, link)| {
                format!(
                    "{path} root={} symlink={link} -> {:?}",
                    root.map(|r| r.display().to_string()).unwrap_or("-".into()),
                    verdict(Path::new(path), *root, *link)
                )
            })
            .collect();
        insta::assert_snapshot!(table.join("\n"));
    }
}

/// A closure cleans up only when it names an actor in
/// `routing.authorizedUsers` (logins compare case-insensitively, as GitHub's
/// do). It fails closed: destroying uncommitted work on an unattributable
/// event is not worth it, and an authorized `sessions cleanup` is the remedy.
pub fn closure_cleanup(actor: Option<&str>, authorized: &[String]) -> Result<(), Deferral> {
    match actor.map(str::trim).filter(|a| !a.is_empty()) {
        None => Err(Deferral::NoActor),
        Some(actor) if authorized.iter().any(|u| u.eq_ignore_ascii_case(actor)) => Ok(()),
        Some(_) => Err(Deferral::UnauthorizedActor),
    }
}

#[cfg(test)]
mod closure_tests {
    use super::*;

    #[test]
    fn only_an_authorized_actor_cleans_up() {
        let users = vec!["Octocat".to_string(), "hubot".to_string()];
        assert_eq!(closure_cleanup(Some("octocat"), &users), Ok(()));
        assert_eq!(closure_cleanup(Some("hubot"), &users), Ok(()));
        assert_eq!(closure_cleanup(None, &users), Err(Deferral::NoActor));
        assert_eq!(closure_cleanup(Some("  "), &users), Err(Deferral::NoActor));
        assert_eq!(
            closure_cleanup(Some("mallory"), &users),
            Err(Deferral::UnauthorizedActor)
        );
        assert_eq!(
            closure_cleanup(Some("octocat"), &[]),
            Err(Deferral::UnauthorizedActor)
        );
    }
}
