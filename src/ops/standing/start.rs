//! `standing start`: a stopped standing session starts again, resuming its
//! conversation when it can; a running one is left as it is.

use super::{key, not_registered};
use crate::lifecycle::key as records;
use crate::lifecycle::owner::{prove, Intent};
use crate::lifecycle::queue;
use crate::lifecycle::respawn::{respawn, RespawnOutcome};
use crate::ops::Context;
use crate::registry::Status;
use serde::Serialize;

#[derive(Debug)]
pub struct StartOptions {
    pub name: String,
}

/// What `standing start` did (its `--json` document).
#[derive(Debug, Serialize)]
pub struct StandingStarted {
    pub standing: String,
    pub tmux_target: String,
    /// False when it was already running.
    pub started: bool,
    /// Whether the conversation was resumed; null when nothing started.
    pub resumed: Option<bool>,
    pub harness_session_id: Option<String>,
}

pub fn start(ctx: &Context, options: &StartOptions) -> miette::Result<StandingStarted> {
    let key = key(&options.name)?;
    let _turn = queue::wait_turn(
        &ctx.config.state_root,
        &key.tmux_name(),
        queue::DEFAULT_WAIT,
    )?;
    let Some(mut record) = records::load(&ctx.registry, &key)? else {
        return Err(not_registered(&options.name));
    };
    let name = records::target_of(&key, Some(&record));
    // A dead session under the name is killed and respawned, and a live one
    // is reported as this record's: either only when the session is the
    // record's own (`crate::lifecycle::owner`, the check every verb makes).
    // A session tmux did not answer about is refused there too.
    let owned = prove(ctx, &key, Some(&record), &name, Intent::Use).map_err(miette::Report::new)?;
    // Decided from the listing the proof read: no second look to race.
    let state = owned.fleet.probe(&name);
    let (started, resumed, session_id) = match respawn(ctx, &key, &record, &name, state, None) {
        RespawnOutcome::Spawned {
            resumed,
            session_id,
            ..
        } => (true, Some(resumed), Some(session_id)),
        // Already running: nothing to start, and nothing killed.
        RespawnOutcome::DeliverInto => (false, None, None),
        RespawnOutcome::Occupied => miette::bail!(
            code = "the_loop::standing::occupied",
            help = format!("end it with `tmux kill-session -t {name}` and start again"),
            "a dead tmux session holds {name} and could not be cleared"
        ),
        RespawnOutcome::Failed(reason) => miette::bail!(
            code = "the_loop::standing::spawn",
            "cannot start {}: {reason}",
            options.name
        ),
    };
    if let Some(id) = &session_id {
        record.set_harness_session_id(id);
        record.set_tmux_target(&name);
        ctx.note_server(record.session_mut());
        ctx.events.emit(crate::events::Event::SessionRespawned {
            subject: key.subject().target(&name),
            dispatch: None,
            old_pid: None,
            new_pid: None,
            resumed,
            harness_session_id: Some(id.clone()),
            verification: None,
            reason: None,
            boot_prompt: Some(false),
        });
    }
    record.set_status(Status::Active);
    record.touch();
    records::save(&ctx.registry, &record)?;
    Ok(StandingStarted {
        standing: options.name.clone(),
        tmux_target: name,
        started,
        resumed,
        harness_session_id: session_id,
    })
}
