//! What `sessions start` and `standing create` share before a first spawn:
//! the launch a person asked for, the checks made before tmux is touched,
//! and clearing a dead session that holds the name.

use crate::harness::{by_name, refusal, Harness, LaunchArgs};
use crate::observed::{fleet, Probe};
use crate::ops::Context;
use crate::runner::spawn::kill_session;
use std::path::{Path, PathBuf};

/// How a first spawn launches the harness.
#[derive(Debug, Clone)]
pub struct FirstLaunch {
    /// The directory the harness runs in, as given.
    pub cwd: PathBuf,
    /// First prompt for the new conversation.
    pub prompt: Option<String>,
    pub model: Option<String>,
    pub effort: Option<String>,
}

impl FirstLaunch {
    /// The launch arguments: the harness's configured arguments with the
    /// model and effort asked for.
    pub fn args(&self, ctx: &Context, harness: &dyn Harness) -> LaunchArgs {
        LaunchArgs {
            harness_args: ctx.config.routing.harness(harness.name()).args.clone(),
            model: self.model.clone(),
            effort: self.effort.clone(),
        }
    }
}

/// What every first spawn checks before touching tmux: a harness that can
/// be hosted (returned), a working directory that exists (returned
/// canonical), and an env file that parses, so a broken one is reported
/// here rather than by a pane that dies at launch.
pub fn check_spawnable(
    ctx: &Context,
    harness: &str,
    cwd: &Path,
) -> miette::Result<(&'static dyn Harness, PathBuf)> {
    let implementation = by_name(harness).ok_or_else(|| {
        miette::miette!(
            code = "the_loop::harness::unsupported",
            "{}",
            refusal(harness)
        )
    })?;
    let canonical = std::fs::canonicalize(cwd).map_err(|e| {
        let why = match e.kind() {
            std::io::ErrorKind::NotFound => "no such directory".to_owned(),
            kind => crate::fsutil::IoKind(kind).to_string(),
        };
        miette::miette!(
            code = "the_loop::spawn::cwd",
            help = "--cwd names an existing directory for the harness to run in; create it first (`mkdir -p DIR`)",
            "--cwd {}: {why}",
            cwd.display(),
        )
    })?;
    if !canonical.is_dir() {
        miette::bail!(
            code = "the_loop::spawn::cwd",
            help = "--cwd names the directory the harness runs in",
            "--cwd {}: not a directory",
            cwd.display()
        );
    }
    crate::desired::load_policy(&ctx.config, false)?;
    Ok((implementation, canonical))
}

/// A live occupant is never killed; a dead one is cleared and the clear verified.
pub fn clear_occupant(ctx: &Context, name: &str) -> miette::Result<()> {
    match fleet::observe(&ctx.tmux).probe(name) {
        Probe::Absent => Ok(()),
        Probe::Live => miette::bail!(
            code = "the_loop::start::occupied",
            help = format!("attach with `tmux attach -t {name}`; to replace it, end it first with `tmux kill-session -t {name}` or `the-loop sessions reset`"),
            "tmux session {name} is live; the-loop never kills or spawns over a running session"
        ),
        Probe::Unknown => miette::bail!(
            code = "the_loop::start::unknown",
            help = "check that the tmux server is responsive (`tmux ls`) and retry",
            "tmux did not answer, so whether {name} is running is unknown; not spawning over it"
        ),
        Probe::Dead => {
            kill_session(&ctx.tmux, name)?;
            if !crate::runner::spawn::confirm_absent(&ctx.tmux, name) {
                miette::bail!(code = "the_loop::start::occupied", "the dead tmux session {name} could not be cleared");
            }
            ctx.events.emit(crate::events::Event::SessionOccupantCleared {
                subject: crate::events::Subject::tmux(name),
            });
            Ok(())
        }
    }
}
