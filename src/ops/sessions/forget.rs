//! `sessions forget`: the-loop stops managing a session without ending it.
//! The record is deleted; the tmux session and the harness in it are not
//! touched (no tmux call is made), so the conversation goes on. From then
//! on `plan` lists the session as unmanaged and nothing signals it.

use crate::lifecycle::key;
use crate::lifecycle::queue;
use crate::ops::resolve::resolve;
use crate::ops::Context;
use serde::Serialize;

pub const FORMAT_VERSION: &str = "1";

/// What `forget` did (its `--json` document).
#[derive(Debug, Serialize)]
pub struct Forgotten {
    pub format_version: &'static str,
    #[serde(rename = "ref")]
    pub reference: String,
    /// The tmux session the record named, left as it is.
    pub tmux_target: String,
    pub record_deleted: bool,
}

pub fn forget(ctx: &Context, typed: &str) -> miette::Result<Forgotten> {
    let key = resolve(&ctx.registry, typed)?;
    let _turn = queue::wait_turn(
        &ctx.config.state_root,
        &key.tmux_name(),
        queue::DEFAULT_WAIT,
    )?;
    let Some(record) = key::load(&ctx.registry, &key)? else {
        miette::bail!(
            code = "the_loop::forget::not_registered",
            help = "`the-loop sessions list` shows the registered sessions",
            "no session is registered for {}",
            key.label()
        );
    };
    let tmux_target = key::target_of(&key, Some(&record));
    let record_deleted = key::delete(&ctx.registry, &key)?;
    Ok(Forgotten {
        format_version: FORMAT_VERSION,
        reference: key.label(),
        tmux_target,
        record_deleted,
    })
}
