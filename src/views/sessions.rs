//! What the `sessions` verbs that change one session say about it.

use super::{print_json, Format};
use crate::ops::sessions::attach::Switched;
use crate::ops::sessions::link_pr::Linked;
use crate::ops::sessions::pause::StatusChange;
use crate::ops::sessions::start::Started;
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
