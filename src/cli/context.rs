//! What every command needs: the config, the registry, tmux, the event log.

use crate::desired::config::{self, Config};
use crate::events::EventLog;
use crate::registry::Registry;
use crate::tmux::Tmux;
use std::path::Path;

pub struct Context {
    pub config: Config,
    pub registry: Registry,
    pub tmux: Tmux,
    pub events: EventLog,
    /// What `tmux -V` reported when the preflight passed.
    pub tmux_version: String,
}

impl Context {
    /// Loads the config, then checks that tmux is there and new enough:
    /// every command built on a context drives tmux.
    pub fn load(explicit: Option<&Path>) -> miette::Result<Context> {
        let path = config::discover(explicit)?;
        let config = config::load(&path)?;
        let found = crate::preflight::require_tmux(!config.env.session_passthrough.is_empty())?;
        Ok(Context {
            tmux_version: found.version,
            registry: Registry::new(&config.state_root),
            tmux: Tmux::new(),
            events: EventLog::under(&config.state_root),
            config,
        })
    }
}
