//! The `standing` verbs: sessions that belong to no work item, addressed
//! by name and hosted in tmux session `loop-standing-<name>`.

pub mod create;
pub mod list;
pub mod say;
pub mod start;
pub mod stop;

use crate::lifecycle::SessionKey;

/// A validated standing name, as a session key.
pub fn key(name: &str) -> miette::Result<SessionKey> {
    SessionKey::standing(name).map_err(|e| {
        miette::miette!(
            code = "the_loop::standing::name",
            help = "for example: ops-watch, nightly-triage",
            "{e}"
        )
    })
}

pub fn not_registered(name: &str) -> miette::Report {
    miette::miette!(
        code = "the_loop::standing::not_registered",
        help = "create it with `the-loop standing create NAME --cwd DIR`; `the-loop standing list` shows the others",
        "no standing session is named {name}"
    )
}
