//! `standing list`: each standing session with its tmux session and
//! whether it runs, from one tmux call.

use crate::observed::{fleet, Probe};
use crate::ops::Context;
use crate::registry::{CorruptRecord, Status};
use serde::Serialize;

/// One standing session.
#[derive(Debug, Serialize)]
pub struct Listed {
    pub name: String,
    pub tmux_target: String,
    pub status: Status,
    pub live: Probe,
    pub model: Option<String>,
    pub effort: Option<String>,
}

/// The version of `standing list --json`'s document.
pub const FORMAT_VERSION: &str = "1";

/// What `standing list` found (its `--json` document).
#[derive(Debug, Serialize)]
pub struct StandingList {
    pub format_version: &'static str,
    pub standing: Vec<Listed>,
    /// Records that could not be read; their sessions are missing above.
    pub corrupt_records: Vec<CorruptRecord>,
}

pub fn list(ctx: &Context) -> miette::Result<StandingList> {
    let listing = ctx.registry.standing();
    let view = fleet::observe(&ctx.tmux);
    let standing = listing
        .records
        .into_iter()
        .map(|(_, r)| {
            let target = r
                .session
                .tmux_target()
                .unwrap_or_else(|| crate::registry::standing_tmux_name(&r.name));
            Listed {
                live: view.probe(&target),
                tmux_target: target,
                status: r.session.status,
                model: r.launch.model,
                effort: r.launch.effort,
                name: r.name,
            }
        })
        .collect();
    Ok(StandingList {
        format_version: FORMAT_VERSION,
        standing,
        corrupt_records: listing.corrupt,
    })
}
