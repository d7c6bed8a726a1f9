//! Announcing a first spawn on its work item: a comment with the tmux
//! session name and the attach command, posted through the operator's own
//! `gh` CLI (`routing.announce`, on by default).
//!
//! - The body is built from registry fields only (the tmux name derived from
//!   the ref): no paths, no conversation ids, no hostnames, nothing from an
//!   event payload.
//! - It carries the-loop's self-authored marker and a visible attribution
//!   line, so neither ingress path feeds the announcement back into the
//!   session it announces.
//! - A respawn posts nothing: it reuses the same name, so the first comment
//!   stays correct. Best-effort: a non-GitHub ref or a missing `gh` is a
//!   no-op, and a failure never affects the spawn.

use crate::events::{Event, EventLog, Subject};
use crate::registry::WorkItemRef;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The exact-match marker both ingress paths drop comments by. It must never
/// change: comments already posted have to stay recognisable.
pub const SELF_MARKER: &str = "<!-- the-loop:agent-comment -->";
/// The visible half of the same contract, for people reading the thread.
pub const SELF_ATTRIBUTION: &str = "🤖 _the-loop, autonomous comment_";

/// How long `gh` may take before the announcement is given up.
const GH_TIMEOUT: Duration = Duration::from_secs(20);

/// The comment, from the tmux session name alone.
pub fn body(tmux_name: &str) -> String {
    format!(
        "the-loop started an interactive session for this work item.\n\
         \n\
         - tmux session: `{tmux_name}`\n\
         - attach: `tmux attach -t {tmux_name}`\n\
         \n\
         {SELF_ATTRIBUTION}\n\
         {SELF_MARKER}\n"
    )
}

/// `gh`'s arguments for posting `body` on the work item (issue or pull
/// request alike, through the issues API), or `None` for a non-GitHub ref.
pub fn gh_args(reference: &WorkItemRef, body: &str) -> Option<Vec<String>> {
    if reference.provider != "github" {
        return None;
    }
    let mut args = vec!["api".to_owned(), "--method".into(), "POST".into()];
    if let Some(host) = &reference.host {
        args.extend(["--hostname".into(), host.clone()]);
    }
    args.push(format!(
        "repos/{}/{}/issues/{}/comments",
        reference.owner, reference.repo, reference.number
    ));
    args.extend(["-f".into(), format!("body={body}")]);
    Some(args)
}

/// Posts the announcement when enabled and the ref is a GitHub one. Never
/// fails: the outcome is an event (`session.announced`,
/// `session.announce_skipped` when there is no gh, or
/// `session.announce_failed` with a warning).
pub fn announce(enabled: bool, reference: &WorkItemRef, tmux_name: &str, events: &EventLog) {
    if !enabled {
        return;
    }
    let Some(args) = gh_args(reference, &body(tmux_name)) else {
        return;
    };
    let subject = Subject::work_item(reference.to_string()).target(tmux_name);
    match run_gh(&args) {
        Ok(()) => events.emit(Event::SessionAnnounced { subject }),
        // No gh is a deployment without announcements: a no-op, not a failure.
        Err(GhError::Missing) => events.emit(Event::SessionAnnounceSkipped {
            subject,
            reason: "gh is not installed (not found on PATH)".into(),
        }),
        Err(GhError::Failed(reason)) => {
            tracing::warn!("could not announce {tmux_name} on {reference}: {reason}");
            events.emit(Event::SessionAnnounceFailed { subject, reason });
        }
    }
}

enum GhError {
    Missing,
    Failed(String),
}

fn run_gh(args: &[String]) -> Result<(), GhError> {
    let mut child = Command::new("gh")
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => GhError::Missing,
            kind => GhError::Failed(format!("cannot run gh: {}", crate::fsutil::IoKind(kind))),
        })?;
    let deadline = Instant::now() + GH_TIMEOUT;
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => return Ok(()),
            Ok(Some(status)) => return Err(GhError::Failed(format!("gh failed ({status})"))),
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(GhError::Failed(format!(
                    "gh did not finish within {GH_TIMEOUT:?}"
                )));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => return Err(GhError::Failed(format!("cannot wait for gh: {}", e.kind()))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_comment_names_the_session_and_nothing_else() {
        insta::assert_snapshot!(body("loop-github-octo-repo-15"));
    }

    #[test]
    fn posted_through_the_issues_api() {
        let plain: WorkItemRef = "github:octo/repo#15".parse().unwrap();
        let enterprise: WorkItemRef = "github:ghe.example.com/octo/widgets.js#7".parse().unwrap();
        let other: WorkItemRef = "gitlab:octo/repo#15".parse().unwrap();
        insta::assert_debug_snapshot!((
            gh_args(&plain, "B"),
            gh_args(&enterprise, "B"),
            gh_args(&other, "B")
        ));
    }
}
