//! What the `standing` verbs say.

use super::{print_json, Format};
use crate::ops::standing::create::Created;

/// `standing create`: where it runs, and how to look at it.
pub fn created(created: &Created, format: Format) {
    if format == Format::Json {
        return print_json(created);
    }
    let name = &created.tmux_target;
    crate::outln!(
        "Created standing session {} in tmux session {name} (conversation {}).",
        created.standing,
        created.harness_session_id
    );
    crate::outln!("Attach with: tmux attach -t {name}");
}
