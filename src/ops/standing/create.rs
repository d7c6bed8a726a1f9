//! `standing create`: registers a standing session and starts its harness
//! in a fresh conversation.

use super::key;
use crate::harness::Launch;
use crate::lifecycle::queue;
use crate::lifecycle::spawn::{spawn_checked, Start};
use crate::ops::spawn::{check_spawnable, clear_occupant, FirstLaunch};
use crate::ops::Context;
use crate::registry::{LaunchFields, StandingRecord, Status};
use serde::Serialize;
use std::path::PathBuf;

#[derive(Debug)]
pub struct CreateOptions {
    pub name: String,
    pub launch: FirstLaunch,
}

/// What `standing create` started (its `--json` document).
#[derive(Debug, Serialize)]
pub struct Created {
    pub standing: String,
    pub tmux_target: String,
    /// Null for a harness that makes its own id (Codex) until its first
    /// prompt has begun a conversation.
    pub harness_session_id: Option<String>,
    pub cwd: PathBuf,
}

pub fn create(ctx: &Context, options: &CreateOptions) -> miette::Result<Created> {
    let key = key(&options.name)?;
    let harness = ctx.config.routing.default_harness.clone();
    let (implementation, cwd) = check_spawnable(ctx, &harness, &options.launch.cwd)?;
    let name = key.tmux_name();
    let _turn = queue::wait_turn(&ctx.config.state_root, &name, queue::DEFAULT_WAIT)?;
    if ctx.registry.load_standing(&options.name)?.is_some() {
        miette::bail!(
            code = "the_loop::standing::exists",
            help = format!("start it with `the-loop standing start {}`", options.name),
            "a standing session named {} already exists",
            options.name
        );
    }
    clear_occupant(ctx, &name)?;
    let launch_args = options.launch.args(ctx, implementation);
    // Recorded before anything is spawned: a session the registry could not
    // record would run as nobody's, its conversation never resumable.
    let session_id = crate::harness::new_session_id();
    let now = crate::clock::now_utc();
    let mut record = StandingRecord::new(&options.name, &harness, Status::Active);
    let session = &mut record.session;
    // A harness that makes its own ids (Codex) is recorded with none until
    // it has opened the conversation its first prompt begins.
    session.harness_session_id = implementation
        .names_fresh_conversations()
        .then(|| session_id.clone());
    session.cwd = Some(cwd.clone());
    session.tmux_target = Some(name.clone());
    ctx.note_server(session);
    session.created_at = Some(now.clone());
    session.last_event_at = Some(now);
    record.launch = LaunchFields::started(&launch_args);
    ctx.registry.save_standing(&record).map_err(|e| {
        miette::miette!(
            code = "the_loop::start::registry_unwritable",
            help = "make the state root's local/standing/ directory writable, with space free; nothing was started",
            "{e}"
        )
    })?;
    let prompt = options.launch.prompt.as_deref();
    // A fresh conversation under the id just recorded.
    let start = Start {
        harness: implementation,
        launch: Launch::Fresh {
            session_id: session_id.clone(),
            prompt: None,
        },
        args: &launch_args,
        prompt,
    };
    if let Err(e) = spawn_checked(ctx, &key, &name, &cwd, start) {
        if let Err(undo) = ctx.registry.delete_standing(&options.name) {
            tracing::warn!(error = %undo, "could not remove the record of a spawn that failed");
        }
        return Err(e);
    }
    let learned = match &record.session.harness_session_id {
        Some(id) => Some(id.clone()),
        None if prompt.is_none() => None,
        None => crate::lifecycle::spawn::learn_conversation(
            ctx,
            implementation,
            &name,
            crate::lifecycle::spawn::LEARN_WAIT,
        )
        .filter(|id| {
            record.session.harness_session_id = Some(id.clone());
            ctx.registry.save_standing(&record).is_ok()
        }),
    };
    ctx.events.emit(crate::events::Event::SessionSpawned {
        subject: key.subject().target(&name),
        harness_session_id: learned.clone(),
        resumed: false,
    });
    Ok(Created {
        standing: options.name.clone(),
        tmux_target: name,
        harness_session_id: learned,
        cwd,
    })
}
