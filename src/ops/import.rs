//! `the-loop import PANE REF` (Terraform's word): brings a harness a person
//! started by hand in a tmux pane under management, so the next `apply`
//! rolls it in place like any other session.
//!
//! What the record says is read from the process itself, never guessed:
//! the pane must run one harness the-loop knows
//! ([`crate::harness::Harness::recognises`]), its conversation is what its
//! hooks last reported, what it says itself, or what its argv names
//! ([`crate::plan::unmanaged::conversation`]), and its working directory
//! is `/proc/<pid>/cwd`. When the conversation is not certain the import
//! refuses and says how to make it so. The pane's tmux session gets the
//! record's own `loop-*` name ([`crate::runner::adopt`]) and the record
//! names the pane (`tmuxPane`), which is how the plan and the roll find a
//! harness that runs beneath a person's shell. Before the record is
//! written, the session under its new name must pass the check every verb
//! makes ([`crate::lifecycle::owner::prove`]). Nothing is signalled.

use crate::harness::resumable::check;
use crate::lifecycle::key::Record;
use crate::lifecycle::owner::{prove, Intent};
use crate::lifecycle::queue;
use crate::observed::fleet::{self, Fleet, FleetView, Pane, Probe};
use crate::observed::unmanaged::said;
use crate::observed::unmanaged::{self, Found};
use crate::ops::resolve::parse_ref;
use crate::ops::Context;
use crate::plan::unmanaged::{conversation, ConversationSource};
use crate::proc_env::{EnvRead, ProcessDir};
use crate::registry::{RecordFacts, SessionKey, Status, WorkItemRecord, WorkItemRef};
use crate::runner::adopt::{self, Naming};
use miette::miette;
use serde::Serialize;
use std::path::PathBuf;

#[derive(Debug)]
pub struct ImportOptions {
    /// A pane id (`%3`), or a tmux session name with one harness in it.
    pub pane: String,
    /// The work-item ref the session is for.
    pub reference: String,
    /// Say what would be done; change nothing.
    pub dry_run: bool,
}

/// The version of `import --json`'s document.
pub const FORMAT_VERSION: &str = "1";

/// What was imported (the `--json` document).
#[derive(Debug, Serialize)]
pub struct Imported {
    pub format_version: &'static str,
    #[serde(rename = "ref")]
    pub reference: String,
    /// The session's name now: the record's own.
    pub tmux_target: String,
    pub pane_id: String,
    /// The tmux session the pane was in.
    pub from_session: String,
    /// `kept`, `renamed` or `moved` (see [`Naming`]).
    pub naming: Naming,
    pub harness: String,
    pub pid: i32,
    pub harness_session_id: String,
    /// Where the conversation was read: `hooks`, `harness` or `argv`.
    pub conversation_from: ConversationSource,
    pub cwd: PathBuf,
    /// Why the next `apply` would leave it alone (its conversation cannot
    /// be resumed yet); null when it can be.
    pub unresumable: Option<String>,
    /// The record written (or that would be).
    pub record: PathBuf,
    pub dry_run: bool,
}

/// The harness found in the pane, and what the record takes from it.
struct Harnessed<'a> {
    pane: &'a Pane,
    found: Found,
    start: Option<u64>,
    env: EnvRead,
    cwd: PathBuf,
}

pub fn import(ctx: &Context, options: &ImportOptions) -> miette::Result<Imported> {
    let reference = ctx.registry.canonical_ref(&parse_ref(&options.reference)?);
    ctx.registry
        .check_names_free(&reference)
        .map_err(|e| miette::Report::new(*e))?;
    let name = reference.tmux_name();
    let _turn = queue::wait_turn(&ctx.config.state_root, &name, queue::DEFAULT_WAIT)?;
    let prior = ctx
        .registry
        .load_work_item(&reference)
        .map_err(|e| miette!(code = "the_loop::import::registry_unreadable", "{e}"))?;
    if let Some(prior) = prior.as_ref().filter(|r| r.session.is_live()) {
        miette::bail!(
            code = "the_loop::import::already_managed",
            help = "one work item, one session: `the-loop sessions close {reference}` ends the one it has, then import again",
            "{reference} has a session already ({}); nothing was changed",
            prior.session.tmux_target().unwrap_or_else(|| name.clone())
        );
    }
    let mut fleet = match fleet::observe(&ctx.tmux) {
        FleetView::Answered(fleet) => fleet,
        FleetView::Unknown(why) => miette::bail!(
            code = "the_loop::import::tmux_unanswered",
            help = "check that the tmux server answers (`tmux ls`), then import again",
            "tmux did not answer ({why}); nothing was changed"
        ),
    };
    let (sessions, _) = crate::observed::registered::managed_sessions(&ctx.registry);
    for session in &sessions {
        if let Some(pane) = &session.pane {
            fleet.adopt(&session.tmux_target, pane);
        }
    }
    let harnessed = harnessed(&fleet, &sessions, &options.pane)?;
    let reported = crate::activity::store::live_activities_of(
        &ctx.config.state_root,
        [(harnessed.found.pid, harnessed.start)],
    )
    .remove(&harnessed.found.pid)
    .and_then(|activity| activity.conversation);
    let harness = harnessed.found.harness.name();
    let said = said(
        harness,
        &harnessed.env,
        harnessed.found.pid,
        harnessed.start,
    );
    let (session_id, from) =
        match conversation(harness, &harnessed.found.argv, reported.as_deref(), &said) {
            Ok(found) => found,
            Err(why) => miette::bail!(
                code = "the_loop::import::conversation_uncertain",
                help = "make it certain, then import again: in the harness, `/exit`, and start it again in the same directory as `claude --resume <id>` (`/status` shows the id; `claude --resume` alone lists them); a harness started with `--session-id <id>` or `--resume <id>` names its conversation. The newest transcript is never taken for it: it may be another process's",
                "cannot tell which conversation the {harness} in pane {} (pid {}) is in: {why}; nothing was changed",
                harnessed.pane.pane_id,
                harnessed.found.pid
            ),
        };
    let facts = RecordFacts {
        harness: harness.to_owned(),
        session_id: Some(session_id.clone()),
        previous_session_ids: Vec::new(),
        cwd: Some(harnessed.cwd.clone()),
        args: Default::default(),
        conversation_begun: None,
    };
    let env = match &harnessed.env {
        EnvRead::Read(env) => Some(env),
        EnvRead::Unverified(_) => None,
    };
    let unresumable = check(&facts, env).err();
    let pane = harnessed.pane;
    if pane.session != name && fleet.probe(&name) != Probe::Absent {
        miette::bail!(
            code = "the_loop::import::name_taken",
            help = "a tmux session of that name runs without a record: `the-loop sessions cleanup` or `tmux kill-session -t ={name}` once it is not needed, then import again",
            "tmux session {name}, the name {reference}'s session takes, exists already; nothing was changed"
        );
    }
    let alone = fleet
        .all_panes()
        .filter(|p| p.session == pane.session)
        .count()
        == 1;
    if let Some(owner) = sessions
        .iter()
        .find(|s| alone && s.tmux_target == pane.session && pane.session != name)
    {
        miette::bail!(
            code = "the_loop::import::anothers_session",
            help = "if the harness is that record's, it needs no import (`the-loop sessions list` shows it); otherwise split the window, run the harness in the new pane, and import that pane",
            "pane {} is the only pane of tmux session {}, which the record of {} names: renaming it would take that record's session; nothing was changed",
            pane.pane_id,
            pane.session,
            owner.label()
        );
    }
    let mut imported = Imported {
        format_version: FORMAT_VERSION,
        reference: reference.to_string(),
        tmux_target: name.clone(),
        pane_id: pane.pane_id.clone(),
        from_session: pane.session.clone(),
        naming: match (pane.session == name, alone) {
            (true, _) => Naming::Kept,
            (false, true) => Naming::Renamed,
            (false, false) => Naming::Moved,
        },
        harness: harness.to_owned(),
        pid: harnessed.found.pid,
        harness_session_id: session_id.clone(),
        conversation_from: from,
        cwd: harnessed.cwd.clone(),
        unresumable,
        record: ctx.registry.work_item_path(&reference),
        dry_run: options.dry_run,
    };
    if options.dry_run {
        return Ok(imported);
    }
    imported.naming =
        adopt::take(&ctx.tmux, &pane.pane_id, &pane.session, alone, &name).map_err(|e| {
            miette!(
                code = "the_loop::import::tmux_refused",
                "cannot give pane {} the session name {name}: {e}; no record was written",
                pane.pane_id
            )
        })?;
    let mut record = record(prior, &reference, &facts, &name, &pane.pane_id);
    ctx.note_server(&mut record.session);
    // The check every verb makes before it acts on a pane: the session,
    // under its new name, must be this record's.
    let key = SessionKey::WorkItem(reference.clone());
    let as_record = Record::WorkItem(record.clone());
    let proven = prove(ctx, &key, Some(&as_record), &name, Intent::Use).map_err(|e| e.with_fix());
    let saved = proven.and_then(|_| {
        ctx.registry
            .save_work_item(&record)
            .map_err(|e| e.to_string())
    });
    if let Err(err) = saved {
        let undone = adopt::undo(&ctx.tmux, imported.naming, &pane.pane_id, &pane.session);
        miette::bail!(
            code = "the_loop::import::not_recorded",
            help = "mend what the message names (a record's state root must be writable, with space free), then import again",
            "no record of {reference} was written: {err}; {}",
            match undone {
                Ok(()) if imported.naming == Naming::Moved => format!("pane {} stays in tmux session {name}", pane.pane_id),
                Ok(()) => format!("the tmux session is named {} again", pane.session),
                Err(why) => format!("the tmux session keeps the name {name} ({why})"),
            }
        );
    }
    // An explicit import begins the item again after a cleanup.
    crate::lifecycle::control::clear(&ctx.registry, &reference);
    ctx.events.emit(crate::events::Event::SessionImported {
        subject: crate::events::Subject::work_item(reference.to_string())
            .target(&name)
            .pane(&pane.pane_id),
        pid: harnessed.found.pid,
        harness_session_id: session_id,
        conversation_from: from.as_str().to_owned(),
        from_session: pane.session.clone(),
        naming: imported.naming.as_str().to_owned(),
    });
    Ok(imported)
}

/// The pane `wanted` names (a pane id, or a session holding one harness),
/// which must be no record's harness pane and run exactly one harness.
fn harnessed<'a>(
    fleet: &'a Fleet,
    sessions: &[crate::observed::ManagedSession],
    wanted: &str,
) -> miette::Result<Harnessed<'a>> {
    let children = unmanaged::children(&crate::observed::detached::parents());
    let in_pane =
        |pane: &Pane| unmanaged::topmost_harnesses(pane.pid, &children, &unmanaged::argv_of);
    let pane = if wanted.starts_with('%') {
        fleet.all_panes().find(|p| p.pane_id == wanted)
    } else {
        let mut running = fleet
            .all_panes()
            .filter(|p| p.session == wanted && !p.dead && !in_pane(p).is_empty());
        match (running.next(), running.next()) {
            (Some(one), None) => Some(one),
            (Some(_), Some(_)) => miette::bail!(
                code = "the_loop::import::which_pane",
                help = "name the pane by its id (`the-loop plan` lists them, as does `tmux list-panes -s -t {wanted}`)",
                "more than one pane of tmux session {wanted} runs a harness; nothing was changed"
            ),
            (None, _) => None,
        }
    };
    let Some(pane) = pane else {
        miette::bail!(
            code = "the_loop::import::no_such_pane",
            help =
                "`the-loop plan` lists the harnesses the-loop does not manage with their pane ids",
            "tmux lists no pane {wanted} running a harness; nothing was changed"
        );
    };
    if pane.dead {
        miette::bail!(
            code = "the_loop::import::pane_dead",
            "pane {} is dead: nothing runs in it; nothing was changed",
            pane.pane_id
        );
    }
    if let Some(owner) = sessions.iter().find(|s| {
        fleet
            .harness_pane(&s.tmux_target)
            .is_some_and(|p| p.pane_id == pane.pane_id)
    }) {
        miette::bail!(
            code = "the_loop::import::already_managed",
            "pane {} is the harness pane of {} already; nothing was changed",
            pane.pane_id,
            owner.label()
        );
    }
    let mut found = in_pane(pane);
    let found = match found.len() {
        1 => found.remove(0),
        0 => miette::bail!(
            code = "the_loop::import::no_harness",
            help = "import takes a pane where a harness the-loop knows runs (claude), started by hand or otherwise",
            "pane {} runs no harness the-loop knows; nothing was changed",
            pane.pane_id
        ),
        n => miette::bail!(
            code = "the_loop::import::several_harnesses",
            help = "end all but one of them, then import again",
            "pane {} runs {n} harnesses, so which one the session is would be a guess; nothing was changed",
            pane.pane_id
        ),
    };
    let process = ProcessDir::open(found.pid).map_err(|why| {
        miette!(
            "the harness in pane {} could not be read ({why}); nothing was changed",
            pane.pane_id
        )
    })?;
    let cwd = process
        .procfs()
        .cwd()
        .ok()
        .filter(|cwd| cwd.is_absolute() && cwd.is_dir());
    let Some(cwd) = cwd else {
        miette::bail!(
            code = "the_loop::import::no_cwd",
            "the working directory of the harness in pane {} (pid {}) cannot be read, or is gone; nothing was changed",
            pane.pane_id,
            found.pid
        );
    };
    Ok(Harnessed {
        pane,
        start: process.stat().map(|stat| stat.start),
        env: process.environ(),
        found,
        cwd,
    })
}

/// The record `sessions start` would write for this conversation, in this
/// directory, in this session, naming the pane; a closed record of the
/// same work item keeps its history (earlier conversations, links).
fn record(
    prior: Option<WorkItemRecord>,
    reference: &WorkItemRef,
    facts: &RecordFacts,
    name: &str,
    pane_id: &str,
) -> WorkItemRecord {
    let mut record =
        prior.unwrap_or_else(|| WorkItemRecord::new(reference, &facts.harness, Status::Active));
    let now = crate::clock::now_utc();
    let session = &mut record.session;
    session.harness = facts.harness.clone();
    session.status = Status::Active;
    if let Some(id) = &facts.session_id {
        session.follow_conversation(id);
    }
    session.cwd = facts.cwd.clone();
    session.tmux_target = Some(name.to_owned());
    session.tmux_pane = Some(pane_id.to_owned());
    session.created_at.get_or_insert_with(|| now.clone());
    session.last_event_at = Some(now);
    // The person's own flags are not known as the-loop's launch arguments:
    // none are recorded, so none are compared for drift, and the roll
    // launches with the config's.
    record.launch = Default::default();
    record
}
