//! What the `sessions` verbs that change one session say about it.

use super::{print_json, Format};
use crate::ops::sessions::pause::StatusChange;
use crate::ops::sessions::start::Started;
use crate::registry::Status;

/// `sessions start`: where it runs, and how to look at it.
pub fn started(started: &Started, format: Format) {
    if format == Format::Json {
        return print_json(started);
    }
    let how = if started.resumed {
        "resuming conversation"
    } else {
        "conversation"
    };
    let name = &started.tmux_target;
    crate::outln!(
        "Started {} in tmux session {name} ({how} {}).",
        started.reference,
        started.harness_session_id
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
