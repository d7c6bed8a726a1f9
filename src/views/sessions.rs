//! What the `sessions` verbs that change one session say about it.

use super::{print_json, Format};
use crate::ops::sessions::attach::Switched;
use crate::ops::sessions::link_pr::Linked;
use crate::ops::sessions::pause::StatusChange;
use crate::ops::sessions::start::Started;
use crate::ops::sessions::start_all::{Outcome as StartOutcome, Revival, StartAllReport};
use crate::registry::Status;

/// `sessions start`: where it runs, and how to look at it.
pub fn started(started: &Started, format: Format) {
    if format == Format::Json {
        return print_json(started);
    }
    let conversation = match (&started.harness_session_id, started.resumed) {
        (Some(id), true) => format!("resuming conversation {id}"),
        (Some(id), false) => format!("conversation {id}"),
        // Codex without a first prompt: its id comes with the first one.
        (None, _) => "its conversation begins with the first prompt".to_owned(),
    };
    let name = &started.tmux_target;
    crate::outln!(
        "Started {} in tmux session {name} ({conversation}).",
        started.reference
    );
    crate::outln!("Attach with: tmux attach -t {name}");
}

/// `sessions start --host H`: the host's id for it, its layer, and how to
/// look at it.
pub fn started_on_host(started: &crate::hosts::commands::StartedOnHost, format: Format) {
    if format == Format::Json {
        return print_json(started);
    }
    use crate::hosts::LayerOutcome;
    let words = crate::hosts::words(started.host);
    let layer = match started.layer.outcome {
        LayerOutcome::Replaced => format!(
            "under a {} the-loop started on the env file's values",
            words.layer
        ),
        _ => format!(
            "under the {}, which holds the env file's values",
            words.layer
        ),
    };
    crate::outln!(
        "Started {} as {} session {} in {} ({layer}).",
        started.reference,
        words.session,
        started.id,
        started.cwd.display()
    );
    crate::outln!("Open it with: {}", started.open_with);
}

/// `sessions pause` and `sessions resume`.
pub fn status_change(change: &StatusChange, format: Format) {
    if format == Format::Json {
        return print_json(change);
    }
    let label = &change.reference;
    match (change.changed, change.status) {
        (true, Status::Paused) => crate::outln!(
            "Paused {label}: deliveries are suppressed until `the-loop sessions resume {label}`. The tmux session is untouched."
        ),
        (true, _) => crate::outln!("Resumed {label}: deliveries go through again."),
        (false, status) => crate::outln!(
            "{label} is already {}.",
            if status == Status::Paused {
                "paused"
            } else {
                "active"
            }
        ),
    }
}

/// `sessions link-pr`.
pub fn linked(linked: &Linked, format: Format) {
    if format == Format::Json {
        return print_json(linked);
    }
    let (pr, item) = (&linked.pull_request, &linked.reference);
    if linked.changed {
        crate::outln!(
            "Linked {pr} to {item}: its events are delivered into {}.",
            linked.tmux_target
        );
    } else {
        crate::outln!("{pr} is already linked to {item}.");
    }
}

/// `sessions attach` run inside tmux, once this client was switched over.
pub fn switched(switched: &Switched) {
    if switched.read_only {
        crate::errln!(
            "note: this tmux client is now read-only (tmux's client flag, which stays when it switches away); detach and attach again to type."
        );
    }
}

/// One line per down session as `sessions start --all` settles it (its
/// progress on stderr, and the report's body).
pub fn revival_line(revival: &Revival) -> String {
    let name = &revival.tmux_target;
    let label = revival.label();
    let conversation = match (&revival.harness_session_id, revival.resumed) {
        (Some(id), true) => format!("resuming {id}"),
        (Some(id), false) => format!("on {id}, never begun"),
        (None, _) => "no conversation".to_owned(),
    };
    let why = revival
        .detail
        .as_deref()
        .map(|d| format!(": {d}"))
        .unwrap_or_default();
    match revival.outcome {
        StartOutcome::WouldStart => format!("+ {label} would start in {name} ({conversation})"),
        StartOutcome::Started => format!(
            "+ {label} started in {name} ({conversation}): verified, it holds the env file's values"
        ),
        StartOutcome::StartedUnverified => {
            format!("? {label} started in {name} ({conversation}), unverified{why}")
        }
        StartOutcome::Mismatch => {
            format!("! {label} started in {name} ({conversation}), mismatch{why}")
        }
        StartOutcome::LeftAlone => format!("~ {label} left alone{why}"),
        StartOutcome::Failed => format!("! {label} failed{why}"),
    }
}

/// `sessions start --all`'s report: a line per down session, then the sums.
pub fn started_all(report: &StartAllReport, format: Format) {
    if format == Format::Json {
        return print_json(report);
    }
    if let Some(server) = &report.tmux_server {
        crate::outln!("tmux server: {}", server.display());
    }
    for revival in &report.sessions {
        crate::outln!("{}", revival_line(revival));
    }
    let s = &report.summary;
    if s.down == 0 {
        crate::outln!("No active session is down: nothing to start.");
        return;
    }
    if report.dry_run {
        let would = report
            .sessions
            .iter()
            .filter(|r| r.outcome == StartOutcome::WouldStart)
            .count();
        crate::outln!(
            "{} down: {would} would start, {} left alone. Nothing was started (--dry-run).",
            s.down,
            s.left_alone
        );
        return;
    }
    crate::outln!(
        "{} down: {} started, {} left alone, {} failed.",
        s.down,
        s.started,
        s.left_alone,
        s.failed
    );
}
