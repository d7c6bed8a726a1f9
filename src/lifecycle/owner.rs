//! Before a verb signals, kills, types into or respawns a pane: is the
//! session the record names really the record's? The judgement is
//! [`crate::observed::ownership`], the one `plan` makes; this reads what it
//! needs (the session's panes, and the live harness's environment, argv
//! and hooks) and says what was found, and how to mend the record, when
//! the answer is no.

use super::context::Context;
use super::key::{Record, SessionKey};
use crate::observed::fleet::{self, Fleet, FleetView};
use crate::observed::harness::read_process;
use crate::observed::harness_pane;
use crate::observed::ownership::{judge, launched_conversation, Claimant, Claims};
pub use crate::observed::ownership::{Found, Proof};
use std::path::PathBuf;

/// A session proven to be the record's, and the harness process the proof
/// read, which is the only process a verb may then signal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Owned {
    pub proof: Proof,
    pub harness: Option<Proven>,
    /// The pane listing the proof read (one `list-panes -a`), for a verb
    /// that decides from it without asking tmux again.
    pub fleet: Fleet,
    /// Where the record's harness lives now, when a person renamed its
    /// session or moved its pane into another: found by its launcher (as
    /// `plan` finds it, [`Fleet::relocate`]) and proven by its process
    /// (its `THE_LOOP_WORK_ITEM` or conversation), never by a name. `fleet`
    /// then lists that session's panes, with this pane as its harness's.
    pub moved_to: Option<MovedTo>,
}

/// The tmux session and pane a moved harness was found in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MovedTo {
    pub session: String,
    pub pane_id: String,
}

/// One process: its pid and start time name it and no later one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proven {
    pub pid: i32,
    pub start: Option<u64>,
    /// Its argv, as the proof read it.
    pub argv: Option<Vec<String>>,
}

/// Why a verb leaves a session alone without doing anything.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum NotOwned {
    #[error("the record of {label} names tmux session {target}, but {found}; nothing was touched")]
    #[diagnostic(code(the_loop::session::not_its_own), help("{fix}"))]
    Found {
        label: String,
        target: String,
        found: Found,
        fix: String,
    },
    #[error("the record of {label} names tmux session {target}, which is not a the-loop session (a loop-* name); nothing was touched")]
    #[diagnostic(code(the_loop::session::not_a_loop_session), help("{fix}"))]
    NotALoopSession {
        label: String,
        target: String,
        fix: String,
    },
    #[error("tmux did not answer about {target} ({why}), so whose it is could not be told; nothing was touched")]
    #[diagnostic(
        code(the_loop::session::unseen),
        help("check that the tmux server answers (`tmux ls`), then run the command again")
    )]
    Unseen { target: String, why: String },
}

impl NotOwned {
    /// The refusal and how to mend it, in one line for a report.
    pub fn with_fix(&self) -> String {
        match miette::Diagnostic::help(self) {
            Some(help) => format!("{self} ({help})"),
            None => self.to_string(),
        }
    }

    /// The event log's short reason.
    pub fn code(&self) -> &'static str {
        match self {
            NotOwned::Found { .. } => "not-its-own-session",
            NotOwned::NotALoopSession { .. } => "target-not-a-loop-session",
            NotOwned::Unseen { .. } => "tmux-unanswered",
        }
    }
}

/// What the verb will do with the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Intent {
    /// End the harness or kill the session: an absent session is nothing
    /// to end, whatever name the record gives it.
    End,
    /// Type into it, or start a harness under its name: an absent session
    /// is judged by the name rule, so nothing starts under another
    /// record's name.
    Use,
}

/// Proves that `target`, the session `record` (or the key alone) names,
/// is `key`'s own, or says what it is instead.
pub fn prove(
    ctx: &Context,
    key: &SessionKey,
    record: Option<&Record>,
    target: &str,
    intent: Intent,
) -> Result<Owned, NotOwned> {
    let label = key.label();
    let record_path = record_path(ctx, key);
    if crate::runner::close::guard(target).is_err() {
        return Err(NotOwned::NotALoopSession {
            label,
            target: target.to_owned(),
            fix: format!(
                "the-loop only acts on its own sessions; set tmuxTarget in {} to {} (or remove the field)",
                record_path.display(),
                key.tmux_name()
            ),
        });
    }
    let fleet = match fleet::observe(&ctx.tmux) {
        FleetView::Answered(fleet) => fleet,
        FleetView::Unknown(why) => {
            return Err(NotOwned::Unseen {
                target: target.to_owned(),
                why,
            })
        }
    };
    let facts = record.map(Record::facts).unwrap_or_default();
    let conversations = facts.conversations();
    if fleet.panes(target).is_empty() {
        if let Some(moved) = moved(ctx, key, &facts, target, &fleet) {
            return Ok(moved);
        }
        if intent == Intent::End {
            return Ok(Owned {
                proof: Proof::Absent,
                harness: None,
                fleet,
                moved_to: None,
            });
        }
    }
    let harness = harness_pane::find(fleet.panes(target))
        .ok()
        .filter(|p| !p.dead && p.pid > 0);
    let read = harness.and_then(|p| read_claims(ctx, &facts, p.pid));
    let claimant = Claimant {
        key,
        conversations: &conversations,
        target,
    };
    let anothers = if target == key.tmux_name() {
        None
    } else {
        owner_by_name(ctx, key, target)
    };
    let claims = read.as_ref().map(Read::claims);
    match judge(&claimant, anothers.as_deref(), claims.as_ref()) {
        Ok(proof) => Ok(Owned {
            proof,
            harness: read.map(Read::proven),
            fleet,
            moved_to: None,
        }),
        Err(found) => Err(NotOwned::Found {
            fix: fix_for(&found, key, &record_path),
            label,
            target: target.to_owned(),
            found,
        }),
    }
}

/// The record's harness where a person moved it, when no session holds
/// `target` any more: the one live pane whose launcher was started for
/// `target` ([`Fleet::relocate`]), taken only when its process proves it
/// is `key`'s ([`Proof::Process`]: the name it lives under proves nothing).
fn moved(
    ctx: &Context,
    key: &SessionKey,
    facts: &crate::registry::RecordFacts,
    target: &str,
    fleet: &Fleet,
) -> Option<Owned> {
    let mut moved = fleet.clone();
    let (session, pane_id) = moved.relocate(target)?;
    let pane = moved
        .find_harness_pane(&session)
        .ok()
        .filter(|p| !p.dead && p.pid > 0 && p.pane_id == pane_id)?;
    let read = read_claims(ctx, facts, pane.pid)?;
    let conversations = facts.conversations();
    let claimant = Claimant {
        key,
        conversations: &conversations,
        target: &session,
    };
    let proof = judge(&claimant, None, Some(&read.claims())).ok()?;
    (proof == Proof::Process).then(|| Owned {
        proof,
        harness: Some(read.proven()),
        fleet: moved,
        moved_to: Some(MovedTo { session, pane_id }),
    })
}

/// What a live harness process was read to say about itself.
struct Read {
    pid: i32,
    process: crate::observed::HarnessProcess,
    launched: Option<String>,
    reported: Option<String>,
}

impl Read {
    fn claims(&self) -> Claims<'_> {
        Claims::of(
            &self.process,
            self.launched.as_deref(),
            self.reported.as_deref(),
        )
    }

    fn proven(self) -> Proven {
        Proven {
            pid: self.pid,
            start: self.process.start,
            argv: self.process.argv,
        }
    }
}

/// Reads the harness process `pid`: its environment and argv, the
/// conversation it was launched on, and the one it reported.
fn read_claims(ctx: &Context, facts: &crate::registry::RecordFacts, pid: i32) -> Option<Read> {
    let launcher = std::env::current_exe().ok();
    let process = read_process(pid, launcher.as_deref()).ok()?;
    let launched = launched_conversation(&facts.harness, &process);
    // Its hooks' word, else its own (a harness a person started and
    // `import` took reports through no hook); one that cannot be trusted
    // is no word, and the argv is judged alone.
    let hooks =
        crate::activity::store::live_activities_of(&ctx.config.state_root, [(pid, process.start)])
            .remove(&pid)
            .and_then(|activity| activity.conversation);
    let reported = hooks.or_else(|| {
        let harness = crate::harness::recognise(process.argv.as_deref()?)?;
        match crate::observed::unmanaged::said(harness.name(), &process.env, pid, process.start) {
            crate::harness::SaidConversation::Conversation(id) => Some(id),
            _ => None,
        }
    });
    Some(Read {
        pid,
        process,
        launched,
        reported,
    })
}

/// The record whose own (derived) name is `target`, other than `key`'s.
fn owner_by_name(ctx: &Context, key: &SessionKey, target: &str) -> Option<String> {
    let items = ctx.registry.work_items();
    let work_items = items
        .records
        .iter()
        .filter_map(|(_, r)| r.work_item_ref().ok())
        .map(SessionKey::WorkItem);
    let standing = ctx.registry.standing();
    let standing = standing
        .records
        .iter()
        .map(|(_, r)| SessionKey::Standing(r.name.clone()));
    work_items
        .chain(standing)
        .find(|other| other != key && other.tmux_name() == target)
        .map(|other| other.label())
}

fn record_path(ctx: &Context, key: &SessionKey) -> PathBuf {
    match key {
        SessionKey::WorkItem(r) => ctx.registry.work_item_path(r),
        SessionKey::Standing(n) => ctx.registry.standing_path(n),
    }
}

/// How to mend the record so the verb can act, in words an operator can
/// follow without reading the code.
fn fix_for(found: &Found, key: &SessionKey, record_path: &std::path::Path) -> String {
    let path = record_path.display();
    let own = key.tmux_name();
    match found {
        Found::OtherConversation { running } => format!(
            "if conversation {running} is this work item's, set harnessSessionId in {path} to it; otherwise set tmuxTarget in {path} to {own}, this record's own session"
        ),
        Found::HeldByAnother { named, .. } => format!(
            "that session is {named}'s; set tmuxTarget in {path} to {own}, this record's own session (or remove the field)"
        ),
        Found::AnothersName { .. } | Found::Unproven { .. } => format!(
            "set tmuxTarget in {path} to {own}, this record's own session (or remove the field)"
        ),
    }
}
