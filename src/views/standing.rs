//! What the `standing` verbs say.

use super::{model_cell, print_json, snake_name, Format};
use crate::ops::standing::create::Created;
use crate::ops::standing::list::StandingList;
use crate::ops::standing::start::StandingStarted;

/// `standing create`: where it runs, and how to look at it.
pub fn created(created: &Created, format: Format) {
    if format == Format::Json {
        return print_json(created);
    }
    let name = &created.tmux_target;
    let conversation = match &created.harness_session_id {
        Some(id) => format!("conversation {id}"),
        None => "its conversation begins with the first prompt".to_owned(),
    };
    crate::outln!(
        "Created standing session {} in tmux session {name} ({conversation}).",
        created.standing
    );
    crate::outln!("Attach with: tmux attach -t {name}");
}

/// `standing start`.
pub fn started(started: &StandingStarted, format: Format) {
    if format == Format::Json {
        return print_json(started);
    }
    let (label, name) = (&started.standing, &started.tmux_target);
    if !started.started {
        crate::outln!("{label} is already running in {name}.");
    } else if started.resumed == Some(true) {
        crate::outln!("Started {label} in {name}, resuming its conversation.");
    } else {
        crate::outln!(
            "Started {label} in {name} in a fresh conversation (the recorded one could not be resumed)."
        );
    }
}

/// `standing list`: a table, or a line saying there is none; unreadable
/// records are named on stderr.
pub fn list(list: &StandingList, format: Format) {
    if format == Format::Json {
        return print_json(list);
    }
    let rows = &list.standing;
    if rows.is_empty() {
        crate::outln!("No standing sessions are registered.");
    } else {
        let width = rows
            .iter()
            .map(|r| super::display_width(&r.name))
            .max()
            .unwrap_or(4)
            .max(4);
        let pad = super::pad;
        crate::outln!(
            "{}  {:<40}  {:<7}  {:<7}  MODEL",
            pad("NAME", width),
            "TMUX",
            "STATUS",
            "LIVE"
        );
        for r in rows {
            let status = snake_name(r.status);
            let model = model_cell(r.model.as_deref(), r.effort.as_deref());
            crate::outln!(
                "{}  {}  {status:<7}  {:<7}  {model}",
                pad(&r.name, width),
                pad(&r.tmux_target, 40),
                r.live.as_str()
            );
        }
    }
    for c in &list.corrupt_records {
        crate::errln!(
            "warning: registry record {} cannot be read: {}",
            c.path.display(),
            c.reason
        );
    }
}
