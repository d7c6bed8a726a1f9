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
    /// What `tmux -V` reported when the preflight passed; empty for a
    /// context loaded without it ([`Context::load_without_tmux`]), whose
    /// verbs never read it.
    pub tmux_version: String,
    /// Whether that tmux accepts `new-session -e` (3.2 or newer).
    pub tmux_passthrough: bool,
    /// Why `tmux` talks to the server it does ([`crate::registry::server`]).
    pub tmux_server_source: crate::registry::server::Source,
}

impl Context {
    /// Loads the config, then checks that tmux is there and new enough:
    /// every command built on a context drives tmux.
    pub fn load(explicit: Option<&Path>) -> miette::Result<Context> {
        let path = config::discover(explicit)?;
        let config = config::load(&path)?;
        let found = crate::preflight::require_tmux()?;
        let mut ctx = Context::from_config(config);
        ctx.tmux_version = found.version;
        ctx.tmux_passthrough = found.passthrough;
        Ok(ctx)
    }

    /// For `plan`, whose first tmux call reports tmux's version itself:
    /// the config now, and the tmux check after the observation
    /// ([`Context::check_tmux`]), so the check costs no call of its own.
    /// What the observation asks of a tmux too old for the-loop is only read.
    pub fn load_checking_tmux_later(explicit: Option<&Path>) -> miette::Result<Context> {
        Context::load_without_tmux(explicit)
    }

    /// The preflight of [`Context::load`], on the version tmux `reported`
    /// when it did (see [`crate::preflight::require_tmux_reported`]).
    pub fn check_tmux(&mut self, reported: Option<&str>) -> miette::Result<()> {
        let found = crate::preflight::require_tmux_reported(reported)?;
        self.tmux_version = found.version;
        self.tmux_passthrough = found.passthrough;
        Ok(())
    }

    /// For verbs that only touch the registry (`pause`, `resume`): they must
    /// work with tmux missing or its server down, which is when an operator
    /// most wants to hold deliveries back.
    pub fn load_without_tmux(explicit: Option<&Path>) -> miette::Result<Context> {
        let path = config::discover(explicit)?;
        Ok(Context::from_config(config::load(&path)?))
    }

    fn from_config(config: Config) -> Context {
        // One server for the whole fleet, named with `-S` on every call.
        let (socket, source) = crate::registry::server::choose(&config.state_root);
        // tmux makes its default socket's directory on every call; with `-S`
        // it does not, and a server started in a missing one dies at once
        // while its client exits 0 (after a reboot emptied /tmp, say).
        if let Some(dir) = socket.parent().filter(|d| !d.exists()) {
            if let Err(e) = crate::fsutil::create_private_dir(dir) {
                tracing::debug!(
                    "cannot make tmux's socket directory {}: {}",
                    dir.display(),
                    e.kind()
                );
            }
        }
        Context {
            tmux_server_source: source,
            tmux_version: String::new(),
            // Only spawns read it, and they never run on a context without tmux.
            tmux_passthrough: false,
            registry: Registry::new(&config.state_root),
            tmux: Tmux::new().on_socket(socket, &crate::registry::server::tmux_default()),
            events: EventLog::under(&config.state_root),
            config,
        }
    }

    /// Marks `session` as started on this context's tmux server, and keeps
    /// that server as the fleet's ([`crate::registry::server`]), so later
    /// commands ask it wherever they run.
    pub fn note_server(&self, session: &mut crate::registry::record::SessionFields) {
        let Some(socket) = self.tmux.socket() else {
            return;
        };
        session.tmux_socket = Some(socket.to_path_buf());
        if let Err(e) = crate::registry::server::pin(&self.config.state_root, socket) {
            tracing::warn!(
                "cannot keep the fleet's tmux server in {} ({}); later commands find it as tmux does",
                crate::registry::server::path(&self.config.state_root).display(),
                e.kind()
            );
        }
    }
}
