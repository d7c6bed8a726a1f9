//! Starting a harness in a new `loop-*` session and checking that it stayed
//! up: shared by a first start, a standing session's start and the respawn
//! a delivery makes.

use super::probe::probe;
use crate::desired::policy::Identity;
use crate::harness::{Harness, Launch, LaunchArgs};
use crate::lifecycle::context::Context;
use crate::observed::Probe;
use crate::runner::boot_prompt;
use crate::runner::prelaunch;
use crate::runner::respawn::{self, StartError};
use crate::runner::spawn::SpawnError;
use std::path::Path;

/// Why a spawn attempt did not leave a running harness behind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttemptError {
    /// tmux answered `duplicate session`: something holds the name.
    Duplicate,
    /// The spawn could not proceed (tmux refused, the launcher is missing…).
    Failed(String),
    /// A live harness holds the conversation already: nothing was started,
    /// and a second harness must never be (its words name the holder).
    Held(String),
}

/// Non-secret names the operator passes through to sessions, from our own
/// environment (the policy refuses any credential among them).
/// A tmux older than 3.2 has no `new-session -e`: the spawn goes on
/// without them (R4.3), and says so once per process.
pub fn passthrough(ctx: &Context) -> Vec<(String, String)> {
    let names = &ctx.config.env.session_passthrough;
    if !ctx.tmux_passthrough && !names.is_empty() {
        static WARNED: std::sync::Once = std::sync::Once::new();
        WARNED.call_once(|| {
            let (major, minor) = crate::preflight::MIN_TMUX_FOR_PASSTHROUGH;
            let warning = format!(
                "tmux {} has no `new-session -e` (tmux {major}.{minor} added it), so the {} env.sessionPassthrough name(s) are not passed to new sessions; they start without them",
                ctx.tmux_version,
                names.len()
            );
            // Logged at warn, which every command prints to stderr.
            tracing::warn!("{warning}");
        });
        return Vec::new();
    }
    ctx.config
        .env
        .session_passthrough
        .iter()
        .filter_map(|n| std::env::var(n).ok().map(|v| (n.clone(), v)))
        .collect()
}

/// What a spawn runs: which harness, the conversation it starts or
/// resumes, its arguments, and a first prompt.
pub struct Start<'a> {
    pub harness: &'static dyn Harness,
    pub launch: Launch,
    pub args: &'a LaunchArgs,
    pub prompt: Option<&'a str>,
}

/// One `new-session` running the launcher with `start`, then (after
/// `resumeProbeSeconds`) a probe. `tmux new-session -d` succeeds the moment
/// the pane forks; a harness that cannot start exits at once, which only
/// the probe shows.
pub fn attempt(
    ctx: &Context,
    identity: &Identity,
    name: &str,
    cwd: &Path,
    start: Start,
) -> Result<Probe, AttemptError> {
    let launched = launch(ctx, identity, name, cwd, start)?;
    Ok(probe_launched(ctx, name, launched))
}

/// A harness whose new session runs the launcher, not yet probed: a caller
/// that starts many launches them all first, so their probe waits overlap.
#[derive(Debug)]
pub struct Launched {
    /// The boot prompt's file, until the launcher takes it.
    prompt_file: Option<std::path::PathBuf>,
    /// When the probe may look: the start plus `resumeProbeSeconds`.
    pub probe_at: std::time::Instant,
}

/// What every launch of one command shares, read once: the policy, the
/// names passed through, and where a new pane's harness keeps its files
/// (three tmux calls), so a fleet's start does not repeat them per session.
pub struct LaunchBase {
    policy: crate::desired::policy::Policy,
    passthrough: Vec<(String, String)>,
    home: crate::harness::user_files::HarnessHome,
}

impl LaunchBase {
    pub fn read(ctx: &Context) -> Result<LaunchBase, AttemptError> {
        // The launcher refuses an env file that does not parse, so a spawn
        // with one would only leave a dead pane.
        let policy = crate::desired::load_policy(&ctx.config, false).map_err(|e| {
            AttemptError::Failed(format!("the desired environment cannot be loaded: {e}"))
        })?;
        Ok(LaunchBase::with_policy(ctx, policy))
    }

    /// The base for a policy the caller has loaded already.
    pub fn with_policy(ctx: &Context, policy: crate::desired::policy::Policy) -> LaunchBase {
        let passthrough = passthrough(ctx);
        let home = crate::harness::home_for_new_pane(&ctx.tmux, &passthrough);
        LaunchBase {
            policy,
            passthrough,
            home,
        }
    }

    /// The policy every launch of this base runs on.
    pub fn policy(&self) -> &crate::desired::policy::Policy {
        &self.policy
    }

    /// Where a new pane's harness keeps its files.
    pub fn home(&self) -> &crate::harness::user_files::HarnessHome {
        &self.home
    }
}

/// The first half of [`attempt`]: `new-session` running the launcher with
/// `start`, no wait and no probe.
pub fn launch(
    ctx: &Context,
    identity: &Identity,
    name: &str,
    cwd: &Path,
    start: Start,
) -> Result<Launched, AttemptError> {
    launch_on(ctx, &LaunchBase::read(ctx)?, identity, name, cwd, start)
}

/// [`launch`] on a base read once for many.
pub fn launch_on(
    ctx: &Context,
    base: &LaunchBase,
    identity: &Identity,
    name: &str,
    cwd: &Path,
    start: Start,
) -> Result<Launched, AttemptError> {
    let Start {
        harness,
        launch,
        args,
        prompt,
    } = start;
    let LaunchBase {
        policy,
        passthrough,
        home,
    } = base;
    let ready = respawn::ready(respawn::Request {
        harness,
        config: &ctx.config,
        events: &ctx.events,
        subject: &crate::events::Subject::tmux(name),
        identity,
        cwd,
        launch,
        args,
        prompt,
        desired: &policy.desired_for(identity),
        base: prelaunch::base_of_caller(passthrough),
        home,
        replacing: None,
    })
    .map_err(|e| match e {
        crate::runner::prelaunch::Unlaunchable::ConversationHeld { .. } => {
            AttemptError::Held(e.to_string())
        }
        _ => AttemptError::Failed(format!("the new launch cannot start: {e}")),
    })?;
    let started = ready.start(
        &ctx.config.state_root,
        respawn::Place::NewSession {
            tmux: &ctx.tmux,
            name,
            remain_on_exit: ctx.config.routing.tmux.remain_on_exit,
            passthrough,
            // new-session starts the tmux server when none runs, and the server
            // would keep our caller's credentials (and copy them into its global
            // environment) for its whole life: tmux is run without them.
            // The env file's names too: the launcher hands each pane what
            // it should hold, and a server that inherited the caller's
            // copy would keep a value the file later retires.
            withheld: policy
                .credential_names()
                .into_iter()
                .chain(policy.withheld_names())
                .chain(policy.delivered_names())
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect(),
        },
    );
    let prompt_file = match started {
        Ok(started) => started.prompt_file,
        Err(StartError::Tmux(SpawnError::Occupied(_))) => return Err(AttemptError::Duplicate),
        Err(err) => return Err(AttemptError::Failed(err.to_string())),
    };
    Ok(Launched {
        prompt_file,
        probe_at: crate::clock::deadline(ctx.config.routing.tmux.resume_probe),
    })
}

/// The second half of [`attempt`]: waits until `launched.probe_at`, then
/// asks tmux whether the harness stayed up.
pub fn probe_launched(ctx: &Context, name: &str, launched: Launched) -> Probe {
    std::thread::sleep(
        launched
            .probe_at
            .saturating_duration_since(std::time::Instant::now()),
    );
    let (state, _) = probe(&ctx.tmux, name);
    if let (Probe::Dead | Probe::Absent, Some(file)) = (state, &launched.prompt_file) {
        // The launcher has exited: nobody is left to take the prompt file.
        boot_prompt::discard(file);
    }
    state
}

/// One spawn of `launch` in a new session, its outcome turned into the
/// operator's error.
pub fn spawn_checked(
    ctx: &Context,
    key: &super::SessionKey,
    name: &str,
    cwd: &Path,
    start: Start,
) -> miette::Result<()> {
    // The first prompt goes through a file the launcher reads, never through
    // tmux's argv (which the server keeps for its whole life).
    match attempt(ctx, key, name, cwd, start) {
        Ok(Probe::Live) => {}
        Ok(Probe::Unknown) => ctx
            .events
            .emit(crate::events::Event::SessionSpawnUnverified {
                subject: key.subject().target(name),
            }),
        Ok(_) => miette::bail!(
            code = "the_loop::spawn::exited",
            help = format!(
                "the pane is kept: read what the harness said with `tmux attach -r -t {name}`"
            ),
            "the harness in {name} exited at once"
        ),
        Err(AttemptError::Duplicate) => miette::bail!(
            code = "the_loop::spawn::occupied",
            help = format!(
                "the session appeared while starting; inspect it with `tmux attach -r -t {name}`"
            ),
            "tmux session {name} already exists"
        ),
        Err(AttemptError::Failed(reason) | AttemptError::Held(reason)) => miette::bail!(
            code = "the_loop::spawn::failed",
            "cannot start the harness in {name}: {reason}"
        ),
    }
    Ok(())
}

/// How long a start waits for a harness that makes its own conversation id
/// (Codex) to open the conversation its first prompt began.
pub const LEARN_WAIT: std::time::Duration = std::time::Duration::from_secs(20);

/// The conversation a harness that names its own ids
/// ([`Harness::names_fresh_conversations`] false) opened in session
/// `name`, read from the files its process holds; `None` when it opened
/// none within `wait` (no first prompt yet), or more than one.
pub fn learn_conversation(
    ctx: &Context,
    harness: &dyn Harness,
    name: &str,
    wait: std::time::Duration,
) -> Option<String> {
    let deadline = crate::clock::deadline(wait);
    loop {
        let pid = crate::observed::fleet::observe(&ctx.tmux)
            .harness_pane(name)
            .filter(|pane| !pane.dead)
            .map(|pane| pane.pid);
        if let Some(pid) = pid {
            if let [only] = harness.conversations_held(pid).as_slice() {
                return Some(only.clone());
            }
        }
        if std::time::Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
}
