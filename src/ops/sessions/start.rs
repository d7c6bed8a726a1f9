//! `sessions start`: a work item's session, resuming its recorded
//! conversation unless asked for a fresh one. The record is written before
//! anything is spawned and put back as it was when the spawn fails.

use crate::harness::models::resolve;
use crate::harness::resumable::check;
use crate::harness::{Launch, LaunchArgs};
use crate::lifecycle::spawn::{passthrough, spawn_checked, Start};
use crate::lifecycle::{queue, SessionKey};
use crate::observed::{fleet, Probe};
use crate::ops::notes::{Note, Notes};
use crate::ops::resolve::parse_ref;
use crate::ops::spawn::{check_spawnable, clear_occupant, FirstLaunch};
use crate::ops::Context;
use crate::registry::RecordFacts;
use crate::registry::{LaunchFields, Status, WorkItemRecord, WorkItemRef};
use serde::Serialize;
use std::path::PathBuf;

#[derive(Debug)]
pub struct StartOptions {
    /// The work-item ref as typed.
    pub reference: String,
    pub launch: FirstLaunch,
    /// The harness to host; `None` for routing.defaultHarness.
    pub harness: Option<String>,
    /// Begin a new conversation even though the record names one.
    pub fresh: bool,
}

/// What `sessions start` started (its `--json` document).
#[derive(Debug, Serialize)]
pub struct Started {
    #[serde(rename = "ref")]
    pub reference: String,
    pub tmux_target: String,
    /// The conversation's id; null for a harness that makes its own id
    /// (Codex) until its first prompt has begun one.
    pub harness_session_id: Option<String>,
    pub cwd: PathBuf,
    /// Whether the recorded conversation was resumed (false: a new one).
    pub resumed: bool,
}

pub fn start(ctx: &Context, options: &StartOptions, notes: &dyn Notes) -> miette::Result<Started> {
    let reference: WorkItemRef = parse_ref(&options.reference)?;
    // One tmux session per work item: a pull request linked to an item is
    // started as that item.
    let reference = match crate::lifecycle::links::owner_of(&ctx.registry, &reference) {
        Some(owner) => {
            notes.note(Note::LinkedTo {
                reference: reference.to_string(),
                owner: owner.to_string(),
            });
            owner
        }
        None => reference,
    };
    let reference = canonical(ctx, reference, notes)?;
    let harness = options
        .harness
        .clone()
        .unwrap_or_else(|| ctx.config.routing.default_harness.clone());
    let (implementation, cwd) = check_spawnable(ctx, &harness, &options.launch.cwd)?;
    let name = reference.tmux_name();
    let key = SessionKey::WorkItem(reference.clone());
    let _turn = queue::wait_turn(&ctx.config.state_root, &name, queue::DEFAULT_WAIT)?;
    // Read before anything is started: a directory or a FIFO where the record
    // belongs is refused here, never opened blocking.
    let prior = ctx
        .registry
        .load_work_item(&reference)
        .map_err(unrecordable)?;
    // A live occupant is refused before anything else is said about it; a
    // dead one is kept (it shows what its harness said) until a spawn is
    // certain.
    let occupant = fleet::observe(&ctx.tmux).probe(&name);
    if occupant != Probe::Dead {
        clear_occupant(ctx, &name)?;
    }
    let (session_id, launch) = choose_conversation(
        ctx,
        prior.as_ref(),
        &cwd,
        options.fresh,
        implementation.name(),
        notes,
    )?;
    let resumed = matches!(launch, Launch::Resume { .. });
    // A harness that makes its own ids (Codex) is recorded with none until
    // it has opened the conversation its first prompt begins.
    let recorded_id =
        (resumed || implementation.names_fresh_conversations()).then(|| session_id.clone());
    if occupant == Probe::Dead {
        clear_occupant(ctx, &name)?;
    }

    let resolved = resolve(
        &options.launch.args(ctx, implementation),
        &ctx.config.routing.models,
    );
    for dropped in &resolved.dropped {
        notes.note(Note::LaunchArgDropped {
            dropped: dropped.to_string(),
        });
    }
    let subject = crate::events::Subject::work_item(reference.to_string()).target(&name);
    let launch_args = resolved.args;
    // Trust the directory as given too, which may differ from its real path
    // (the spawn itself prepares the real path). A spelling with `..` names
    // the real path and adds nothing.
    let given_cwd = std::path::absolute(&options.launch.cwd).unwrap_or_else(|_| cwd.clone());
    let lexical = !given_cwd
        .components()
        .any(|c| matches!(c, std::path::Component::ParentDir));
    if lexical && given_cwd != cwd {
        let home = crate::harness::home_for_new_pane(&ctx.tmux, &passthrough(ctx));
        implementation.prepare(&ctx.config, &home, &given_cwd, &launch_args, &ctx.events);
    }

    // A session under this name was announced before; its comment still holds.
    let first_spawn = prior
        .as_ref()
        .is_none_or(|r| r.session.tmux_target().as_deref() != Some(name.as_str()));
    let mut record = prior
        .clone()
        .unwrap_or_else(|| WorkItemRecord::new(&reference, &harness, Status::Active));
    let now = crate::clock::now_utc();
    let session = &mut record.session;
    session.harness = harness;
    session.status = Status::Active;
    session.harness_session_id = recorded_id.clone();
    session.cwd = Some(cwd.clone());
    session.tmux_target = Some(name.clone());
    ctx.note_server(session);
    if !resumed || session.created_at.is_none() {
        session.created_at = Some(now.clone());
    }
    session.last_event_at = Some(now);
    // A new conversation with no first prompt holds nothing until a person
    // types one: a roll may relaunch it on the same id (`conversationBegun`).
    session.conversation_begun = (!resumed && options.launch.prompt.is_none()).then_some(false);
    record.launch = LaunchFields::started(&launch_args);
    // Recorded before anything is spawned: a session the registry cannot
    // record (a full disk, a directory in the record's place) would run as
    // nobody's, its conversation never resumable by the-loop.
    ctx.registry.save_work_item(&record).map_err(unrecordable)?;
    let prompt = options.launch.prompt.as_deref();
    let start = Start {
        harness: implementation,
        launch,
        args: &launch_args,
        prompt,
    };
    if let Err(e) = spawn_checked(ctx, &key, &name, &cwd, start) {
        let undone = match &prior {
            Some(prior) => ctx.registry.save_work_item(prior).map(drop),
            None => ctx.registry.delete_work_item(&reference).map(drop),
        };
        if let Err(undo) = undone {
            notes.note(Note::RecordNotRestored {
                error: undo.to_string(),
            });
        }
        return Err(e);
    }
    // An explicit start begins the item again after a cleanup.
    crate::lifecycle::control::clear(&ctx.registry, &reference);
    let harness_session_id = match recorded_id {
        Some(id) => Some(id),
        None if prompt.is_some() => learn(ctx, implementation, &name, &mut record),
        None => None,
    };
    ctx.events.emit(crate::events::Event::SessionSpawned {
        subject: subject.clone(),
        harness_session_id: harness_session_id.clone(),
        resumed,
    });
    crate::harness::models::report_dropped_events(&ctx.events, &subject, &resolved.dropped);
    if first_spawn {
        crate::announce::announce(ctx.config.routing.announce, &reference, &name, &ctx.events);
    }
    Ok(Started {
        reference: reference.to_string(),
        tmux_target: name,
        harness_session_id,
        cwd,
        resumed,
    })
}

/// The id a harness that makes its own (Codex) gave the conversation its
/// first prompt began, written into the record (still in the session's
/// turn). `None` when it did not open one in time: the record then names
/// none, the session is left alone by rolls until it does, and the hooks'
/// `SessionStart` or the next `plan` tells it.
fn learn(
    ctx: &Context,
    harness: &'static dyn crate::harness::Harness,
    name: &str,
    record: &mut WorkItemRecord,
) -> Option<String> {
    let id = crate::lifecycle::spawn::learn_conversation(
        ctx,
        harness,
        name,
        crate::lifecycle::spawn::LEARN_WAIT,
    )?;
    record.session.harness_session_id = Some(id.clone());
    match ctx.registry.save_work_item(record) {
        Ok(_) => Some(id),
        Err(e) => {
            tracing::warn!(error = %e, "could not record the conversation the harness began");
            None
        }
    }
}

/// The ref as recorded (GitHub matches owner and repository without regard
/// to case), refused when another ref's record holds its slug or tmux name.
fn canonical(
    ctx: &Context,
    reference: WorkItemRef,
    notes: &dyn Notes,
) -> miette::Result<WorkItemRef> {
    let canonical = ctx.registry.canonical_ref(&reference);
    if canonical != reference {
        notes.note(Note::RecordedAs {
            reference: reference.to_string(),
            canonical: canonical.to_string(),
        });
    }
    ctx.registry
        .check_names_free(&canonical)
        .map_err(|e| miette::Report::new(*e))?;
    Ok(canonical)
}

fn unrecordable(e: crate::registry::RegistryError) -> miette::Report {
    // Another user's record is refused with its own fix, not this one.
    if matches!(e, crate::registry::RegistryError::NotYours { .. }) {
        return miette::Report::new(e);
    }
    miette::miette!(
        code = "the_loop::start::registry_unwritable",
        help = "make the state root's local/ directory writable, with space free, and remove whatever is not a record file in the record's place; nothing was started",
        "{e}"
    )
}

/// Which conversation a start runs: the recorded one, resumed, unless
/// `fresh` asks for a new one. A recorded conversation that cannot be
/// resumed is refused rather than silently replaced.
fn choose_conversation(
    ctx: &Context,
    prior: Option<&WorkItemRecord>,
    cwd: &std::path::Path,
    fresh: bool,
    harness: &str,
    notes: &dyn Notes,
) -> miette::Result<(String, Launch)> {
    let recorded = prior.and_then(|r| {
        r.session
            .harness_session_id
            .clone()
            .filter(|id| !id.is_empty())
    });
    let fresh_launch = || {
        let id = crate::harness::new_session_id();
        let launch = Launch::Fresh {
            session_id: id.clone(),
            prompt: None,
        };
        (id, launch)
    };
    let (Some(recorded), Some(prior)) = (recorded, prior) else {
        return Ok(fresh_launch());
    };
    if fresh {
        notes.note(Note::FreshConversation {
            recorded: recorded.clone(),
        });
        return Ok(fresh_launch());
    }
    if prior.session.harness != harness {
        let recorded_harness = &prior.session.harness;
        miette::bail!(
            code = "the_loop::start::other_harness",
            help = format!("start it with --harness {recorded_harness} to resume it, or pass --fresh to begin a new conversation; nothing was started"),
            "the recorded conversation {recorded} is {recorded_harness}'s, not {harness}'s"
        );
    }
    let recorded_cwd = prior.session.cwd.clone();
    if recorded_cwd.as_deref().is_some_and(|c| c != cwd) {
        miette::bail!(
            code = "the_loop::start::cwd_differs",
            help = "start with the recorded --cwd to resume it, or pass --fresh to begin a new conversation in this directory; nothing was started",
            "the recorded conversation {recorded} runs in {}, not {}",
            recorded_cwd.unwrap_or_default().display(),
            cwd.display()
        );
    }
    let facts = RecordFacts {
        harness: prior.session.harness.clone(),
        session_id: Some(recorded.clone()),
        previous_session_ids: Vec::new(),
        cwd: recorded_cwd,
        args: LaunchArgs::default(),
        conversation_begun: prior.session.conversation_begun,
    };
    let home = crate::harness::home_for_new_pane(&ctx.tmux, &passthrough(ctx));
    match check(&facts, Some(&home.as_env())) {
        Ok(resumable) => Ok((
            resumable.session_id.clone(),
            Launch::Resume {
                session_id: resumable.session_id,
            },
        )),
        Err(reason) => miette::bail!(
            code = "the_loop::start::unresumable",
            help = "pass --fresh to begin a new conversation instead; nothing was started",
            "the recorded conversation cannot be resumed: {reason}"
        ),
    }
}
