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
}

impl Context {
    pub fn load(explicit: Option<&Path>) -> miette::Result<Context> {
        let path = config::discover(explicit)?;
        let config = config::load(&path)?;
        Ok(Context {
            registry: Registry::new(&config.state_root),
            tmux: Tmux::new(),
            events: EventLog::under(&config.state_root),
            config,
        })
    }
}
