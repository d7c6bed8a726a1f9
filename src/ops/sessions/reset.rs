//! `sessions reset`: the close path, then the record is deleted, so the
//! work item starts over. A tmux session kept by policy outlives the record
//! and is read back with `tmux attach -r -t loop-<slug>`.

use crate::lifecycle::close::{close, CloseOptions, CloseReport, Disposition};
use crate::lifecycle::key;
use crate::lifecycle::probe::probe;
use crate::lifecycle::{queue, SessionKey};
use crate::observed::Probe;
use crate::ops::resolve::resolve_ref;
use crate::ops::Context;
use serde::Serialize;
use std::path::PathBuf;

/// One session's reset.
#[derive(Debug, Serialize)]
pub struct Reset {
    #[serde(rename = "ref")]
    pub reference: String,
    pub tmux_target: String,
    pub dry_run: bool,
    /// The probe before anything was done.
    pub probe: Probe,
    /// Whether a running harness was (or, with --dry-run, would be) ended.
    pub ended_live_session: bool,
    pub tmux: Disposition,
    pub close: Option<CloseReport>,
    pub record_deleted: bool,
    /// A reset never deletes a checkout; it is named so nobody assumes it did.
    pub checkout: Option<PathBuf>,
    pub checkout_removed: bool,
    pub problem: Option<String>,
}

#[derive(Debug)]
pub struct ResetOptions {
    /// The work items to reset, as typed; ignored with `all`.
    pub references: Vec<String>,
    /// Every registered work item.
    pub all: bool,
    /// Say what would be ended and deleted, and change nothing.
    pub dry_run: bool,
}

/// What `sessions reset` did (its `--json` document).
#[derive(Debug, Serialize)]
pub struct ResetReport {
    pub dry_run: bool,
    pub sessions: Vec<Reset>,
}

impl ResetReport {
    /// False when a session could not be reset.
    pub fn complete(&self) -> bool {
        self.sessions.iter().all(|r| r.problem.is_none())
    }
}

pub fn reset(
    ctx: &Context,
    options: &ResetOptions,
    notes: &dyn crate::ops::notes::Notes,
) -> miette::Result<ResetReport> {
    let keys: Vec<SessionKey> = if options.all {
        let listing = ctx.registry.work_items();
        for c in &listing.corrupt {
            notes.note(crate::ops::notes::Note::CorruptNotReset {
                path: c.path.clone(),
                reason: c.reason.clone(),
            });
        }
        listing
            .records
            .iter()
            .filter_map(|(_, r)| r.work_item_ref().ok())
            .map(SessionKey::WorkItem)
            .collect()
    } else {
        options
            .references
            .iter()
            .map(|r| resolve_ref(&ctx.registry, r).map(SessionKey::WorkItem))
            .collect::<miette::Result<_>>()?
    };
    let close_options = CloseOptions::from_config(ctx, false, false);
    let mut sessions = Vec::new();
    for key in &keys {
        sessions.push(reset_one(ctx, key, close_options, options.dry_run)?);
    }
    Ok(ResetReport {
        dry_run: options.dry_run,
        sessions,
    })
}

fn reset_one(
    ctx: &Context,
    key: &SessionKey,
    options: CloseOptions,
    dry_run: bool,
) -> miette::Result<Reset> {
    let _turn = queue::wait_turn(
        &ctx.config.state_root,
        &key.tmux_name(),
        queue::DEFAULT_WAIT,
    )?;
    let record = key::load(&ctx.registry, key)?;
    let target = key::target_of(key, record.as_ref());
    let mut reset = Reset {
        reference: key.label(),
        tmux_target: target.clone(),
        dry_run,
        probe: Probe::Unknown,
        ended_live_session: false,
        tmux: options.disposition,
        close: None,
        record_deleted: false,
        checkout: record.as_ref().and_then(|r| r.cwd()).map(PathBuf::from),
        checkout_removed: false,
        problem: None,
    };
    let Some(mut record) = record else {
        reset.problem = Some(format!("no session is registered for {}", key.label()));
        return Ok(reset);
    };
    if dry_run {
        reset.probe = probe(&ctx.tmux, &target).0;
        reset.ended_live_session = reset.probe == Probe::Live
            && (options.end_harness || options.disposition == Disposition::Kill);
        return Ok(reset);
    }
    // The record is deleted right after, so it is not rewritten as closed first.
    let closed = match close(ctx, key, Some(&mut record), options, false) {
        Ok(closed) => closed,
        Err(refused) => {
            // One record that names another's session does not stop a
            // reset of the others; it is left as it is, and said.
            reset.problem = Some(refused.with_fix());
            return Ok(reset);
        }
    };
    reset.probe = closed.probe;
    reset.ended_live_session = closed.ended_live_session();
    reset.close = Some(closed);
    match key::delete(&ctx.registry, key) {
        Ok(deleted) => reset.record_deleted = deleted,
        Err(err) => reset.problem = Some(format!("the record was not deleted: {err}")),
    }
    ctx.events.emit(crate::events::Event::SessionReset {
        subject: key.subject().target(&target),
        ended_live_session: reset.ended_live_session,
        record_deleted: reset.record_deleted,
    });
    Ok(reset)
}
