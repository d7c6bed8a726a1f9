//! The one respawn primitive: every harness the-loop starts again (a roll
//! respawning a pane in place, a delivery respawning a gone session, a
//! first start) goes through [`ready`] and then [`Ready::start`].
//!
//! It is two steps because a roll must know the launch can start *before*
//! it ends the old harness: [`ready`] resolves the launch arguments,
//! checks the launch the way the launcher will exec it and prepares the
//! harness's files, touching no process; [`Ready::start`] is the only
//! tmux call, in a dead pane or in a new session.

use super::batch::Run;
use super::boot_prompt;
use super::launch::{launcher_path, LaunchSpec};
use super::prelaunch::{self, Prelaunch, Unlaunchable};
use super::spawn::{new_session_running, respawn_pane, SpawnError};
use crate::desired::config::Config;
use crate::desired::policy::{DesiredEnv, Identity};
use crate::events::{EventLog, Subject};
use crate::harness::user_files::HarnessHome;
use crate::harness::{Harness, Launch, LaunchArgs};
use crate::tmux::Tmux;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// One launch to start again: whose, where, and what it starts from.
pub struct Request<'a> {
    /// The harness the record names.
    pub harness: &'static dyn Harness,
    pub config: &'a Config,
    pub events: &'a EventLog,
    /// Who a dropped model or effort is reported for.
    pub subject: &'a Subject,
    pub identity: &'a Identity,
    pub cwd: &'a Path,
    pub launch: Launch,
    /// The recorded arguments; re-validated here on every launch, so a
    /// declaration the operator withdrew is dropped, and said aloud.
    pub args: &'a LaunchArgs,
    /// A boot prompt, passed through a file and never through tmux's argv.
    pub prompt: Option<&'a str>,
    pub desired: &'a DesiredEnv,
    /// The environment the new process starts from, before the desired
    /// one is applied over it (see [`prelaunch::base_of`]).
    pub base: Vec<(OsString, OsString)>,
    /// Where the new pane's harness keeps its own files.
    pub home: &'a HarnessHome,
    /// The harness this launch replaces (a roll ends it first), the one
    /// process allowed to hold the conversation now.
    pub replacing: Option<i32>,
}

/// A launch that will start: checked, its files prepared, nothing touched.
pub struct Ready {
    pub spec: LaunchSpec,
    /// A model or effort was dropped from the recorded arguments.
    pub dropped: bool,
    prompt: Option<String>,
}

/// Where a ready launch starts.
pub enum Place<'a> {
    /// An existing pane whose process has exited (a roll ended it). tmux
    /// refuses a live one, so this can never kill a harness. `tmux` may be a
    /// [`Batcher`](super::batch::Batcher) shared by a wave.
    DeadPane { pane_id: &'a str, tmux: &'a dyn Run },
    /// A new detached `loop-*` session.
    NewSession {
        tmux: &'a Tmux,
        name: &'a str,
        remain_on_exit: bool,
        /// Non-secret names passed to the session with `-e`.
        passthrough: &'a [(String, String)],
        /// Names the tmux client runs without: a client that starts the
        /// server hands it its whole environment for the server's life.
        withheld: Vec<String>,
    },
}

/// A harness whose pane runs the launcher; only a probe says if it stays up.
#[derive(Debug)]
pub struct Started {
    pub spec: LaunchSpec,
    pub dropped: bool,
    /// The boot prompt's file, until the launcher takes it: a caller whose
    /// probe finds the harness gone discards it.
    pub prompt_file: Option<PathBuf>,
}

/// Why a ready launch did not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// tmux refused or could not be reached (`duplicate session` included).
    #[error(transparent)]
    Tmux(#[from] SpawnError),
    #[error("cannot write the boot prompt file: {}", crate::fsutil::IoKind(*.0))]
    PromptFile(std::io::ErrorKind),
}

/// Resolves, checks and prepares a launch. An error means nothing was
/// started and nothing needs undoing.
pub fn ready(request: Request) -> Result<Ready, Unlaunchable> {
    let resolved = crate::harness::models::resolve(request.args, &request.config.routing.models);
    crate::harness::models::report_dropped(request.events, request.subject, &resolved.dropped);
    let mut harness_args = request.harness.argv(&request.launch, &resolved.args);
    if let Some(text) = request.prompt {
        // The launcher appends the boot prompt to the harness's argv.
        harness_args.extend([crate::harness::PROMPT_SEPARATOR.into(), text.into()]);
    }
    // One conversation, one harness, whatever tmux's names say.
    let named = match &request.launch {
        crate::harness::Launch::Resume { session_id } => Some(session_id),
        crate::harness::Launch::Fresh { session_id, .. }
            if request.harness.names_fresh_conversations() =>
        {
            Some(session_id)
        }
        crate::harness::Launch::Fresh { .. } => None,
    };
    if let Some(id) = named {
        let except: Vec<i32> = request.replacing.into_iter().collect();
        let home = request.home.as_env();
        let env_of = |name: &str| home.path(name);
        let cwd = std::fs::canonicalize(request.cwd).unwrap_or_else(|_| request.cwd.to_owned());
        let transcript = request.harness.transcript_path(&env_of, &cwd, id);
        let wanted = super::conversation_holder::Wanted {
            id,
            transcript: &transcript,
        };
        let holders =
            super::conversation_holder::holders_after_grace(request.harness, &wanted, &except);
        if !holders.is_empty() {
            return Err(Unlaunchable::ConversationHeld {
                conversation: id.clone(),
                holders,
            });
        }
    }
    let binary = crate::harness::resumable::harness_binary(request.config, request.harness);
    prelaunch::check(&Prelaunch {
        harness: request.harness.name(),
        harness_binary: &binary,
        harness_args: &harness_args,
        cwd: request.cwd,
        desired: request.desired,
        base: request.base,
    })?;
    request.harness.prepare(
        request.config,
        request.home,
        request.cwd,
        &resolved.args,
        request.events,
    );
    Ok(Ready {
        spec: LaunchSpec {
            harness: request.harness,
            identity: request.identity.clone(),
            cwd: request.cwd.to_path_buf(),
            launch: request.launch,
            args: resolved.args,
            config_path: request.config.path.clone(),
            harness_binary: binary,
        },
        dropped: !resolved.dropped.is_empty(),
        prompt: request.prompt.map(str::to_owned),
    })
}

impl Ready {
    /// Starts the launch in `place`: one tmux call (a retry aside). A boot
    /// prompt file written here is discarded again when tmux refuses.
    pub fn start(self, state_root: &Path, place: Place) -> Result<Started, StartError> {
        let Ready {
            spec,
            dropped,
            prompt,
        } = self;
        let prompt_file = match (&place, prompt) {
            (Place::NewSession { .. }, Some(text)) => Some(
                boot_prompt::write(state_root, &text)
                    .map_err(|e| StartError::PromptFile(e.kind()))?,
            ),
            // A pane respawned in place resumes its conversation: no prompt.
            _ => None,
        };
        let started = match place {
            Place::DeadPane { pane_id, tmux } => respawn_pane(tmux, pane_id, &spec),
            Place::NewSession {
                tmux,
                name,
                remain_on_exit,
                passthrough,
                withheld,
            } => in_new_session(
                &tmux.clone().withholding(withheld),
                name,
                &spec,
                prompt_file.as_deref(),
                remain_on_exit,
                passthrough,
            ),
        };
        match started {
            Ok(()) => Ok(Started {
                spec,
                dropped,
                prompt_file,
            }),
            Err(err) => {
                if let Some(file) = &prompt_file {
                    boot_prompt::discard(file);
                }
                Err(err.into())
            }
        }
    }
}

fn in_new_session(
    tmux: &Tmux,
    name: &str,
    spec: &LaunchSpec,
    prompt_file: Option<&Path>,
    remain_on_exit: bool,
    passthrough: &[(String, String)],
) -> Result<(), SpawnError> {
    let launcher = launcher_path().map_err(|e| SpawnError::Launcher(e.kind()))?;
    let argv = boot_prompt::pane_argv(spec, &launcher, prompt_file);
    let spawn = || {
        new_session_running(
            tmux,
            name,
            &spec.cwd,
            argv.clone(),
            remain_on_exit,
            passthrough,
        )
    };
    match spawn() {
        // The server was exiting (its last session had just been cleared)
        // when the client reached it; the session died with it if it was
        // made at all. A new server is started on the next try.
        Err(SpawnError::Refused(why)) if why.contains("server exited unexpectedly") => {
            std::thread::sleep(Duration::from_millis(100));
            spawn()
        }
        other => other,
    }
}
