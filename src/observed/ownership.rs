//! Whose a tmux session is. A record names a tmux session (its `tmuxTarget`,
//! or the name its key derives), but a record is a file that anyone with
//! the state root can write, and a hand-edited or older one can name a
//! session that belongs to another record. Before any verb signals, kills,
//! types into or respawns a pane, and before `plan` plans a roll of it,
//! this one judgement decides whether the session is the record's:
//!
//! - **what the process says** wins over any name: a harness that holds
//!   another work item's `THE_LOOP_WORK_ITEM`, or runs a conversation the
//!   record never had (by its argv and by its hooks), is not this record's;
//!   one that holds this record's ref or one of its conversations is.
//! - **the name rule** decides when the process says nothing either way:
//!   the name the key derives is the record's own; another record's own
//!   name is that record's; any other name needs the process's word.
//!
//! Pure: the caller reads the process (`lifecycle::owner` for the verbs,
//! the observation for `plan`) and hands over what it found.

use crate::registry::{SessionKey, WorkItemRef};
use std::fmt;

/// What the harness in the session's harness pane says about itself.
#[derive(Debug, Clone, Copy, Default)]
pub struct Claims<'a> {
    /// The `THE_LOOP_WORK_ITEM` it holds, raw; `None` when it holds none.
    pub work_item: Option<&'a [u8]>,
    /// The conversation its argv names (`--session-id ID`, `--resume ID`).
    pub launched: Option<&'a str>,
    /// The conversation its hooks last reported (after `/clear` or an
    /// in-app `/resume`, not the one it was launched on).
    pub reported: Option<&'a str>,
}

impl<'a> Claims<'a> {
    /// What `process` says: the work item its environment holds, with the
    /// conversation it was `launched` on ([`launched_conversation`]) and the
    /// one its hooks `reported`.
    pub fn of(
        process: &'a super::HarnessProcess,
        launched: Option<&'a str>,
        reported: Option<&'a str>,
    ) -> Self {
        let work_item = match &process.env {
            super::EnvRead::Read(env) => env.get(crate::desired::policy::VAR_WORK_ITEM),
            super::EnvRead::Unverified(_) => None,
        };
        Claims {
            work_item: work_item.map(|value| value.expose_bytes()),
            launched,
            reported,
        }
    }
}

/// The conversation `process`'s argv launched, as the record's `harness`
/// reads it; `None` when the argv is unread or names none.
pub fn launched_conversation(harness: &str, process: &super::HarnessProcess) -> Option<String> {
    let harness = crate::harness::by_name(harness)?;
    harness.read_launch(process.argv.as_deref()?)?.conversation
}

/// What the record says it is.
#[derive(Debug, Clone, Copy)]
pub struct Claimant<'a> {
    pub key: &'a SessionKey,
    /// Its conversation and the ones it followed from (`/clear`, `/resume`).
    pub conversations: &'a [&'a str],
    /// The session it names.
    pub target: &'a str,
}

/// Why the session is the record's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Proof {
    /// The harness holds the record's ref or one of its conversations.
    Process,
    /// The session has the record's own name and nothing in it says
    /// otherwise (no harness runs, or it says nothing either way).
    Name,
    /// There is no such session: nothing in tmux to end. (A verb that
    /// would start one there judges by the name instead.)
    Absent,
}

/// What was found instead of the record's own session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// The harness holds another work item's ref (`standing`: the record
    /// is a standing session's, which holds none).
    HeldByAnother { named: String, standing: bool },
    /// The harness runs a conversation that is none of the record's.
    OtherConversation { running: String },
    /// The session carries another record's own name.
    AnothersName { owner: String },
    /// The record names a session other than its own name, and no harness
    /// in it says it is this record's.
    Unproven { own_name: String },
}

impl fmt::Display for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Found::HeldByAnother { named, .. } => {
                write!(f, "its harness belongs to work item {named}")
            }
            Found::OtherConversation { running } => write!(
                f,
                "its harness runs conversation {running}, which this record never had"
            ),
            Found::AnothersName { owner } => {
                write!(f, "it is the session of {owner} (by that record's name)")
            }
            Found::Unproven { own_name } => write!(
                f,
                "it is not this record's own name ({own_name}) and nothing running in it says it is this record's"
            ),
        }
    }
}

/// Whether `claimant`'s session is its own. `anothers` is the label of
/// another record whose own (derived) name is the target, if one is;
/// `claims` what the live harness in it says, `None` when no harness runs.
pub fn judge(
    claimant: &Claimant,
    anothers: Option<&str>,
    claims: Option<&Claims>,
) -> Result<Proof, Found> {
    let said = match claims {
        Some(claims) => said_by_process(claimant, claims)?,
        None => None,
    };
    if let Some(proof) = said {
        return Ok(proof);
    }
    let own_name = claimant.key.tmux_name();
    if claimant.target == own_name {
        return Ok(Proof::Name);
    }
    match anothers {
        Some(owner) => Err(Found::AnothersName {
            owner: owner.to_owned(),
        }),
        None => Err(Found::Unproven { own_name }),
    }
}

/// The process's word: `Err` when it says the session is another's,
/// `Ok(Some)` when it says it is this record's, `Ok(None)` when it says
/// nothing either way.
fn said_by_process(claimant: &Claimant, claims: &Claims) -> Result<Option<Proof>, Found> {
    if let Some(held) = claims.work_item {
        return match held_by_another(claimant.key, held) {
            Some(found) => Err(found),
            None => Ok(Some(Proof::Process)),
        };
    }
    let known = |id: &&str| claimant.conversations.contains(id);
    let running = [claims.reported, claims.launched];
    if running.iter().flatten().any(known) {
        return Ok(Some(Proof::Process));
    }
    // A record with no conversation yet has nothing to compare with.
    match (claimant.conversations.is_empty(), claims.launched) {
        (false, Some(running)) => Err(Found::OtherConversation {
            running: running.to_owned(),
        }),
        _ => Ok(None),
    }
}

/// Whether a harness holding `held` as its `THE_LOOP_WORK_ITEM` is another
/// session's: two refs once met on one tmux name, and respawning it would
/// end that conversation and resume this record's in its place. A standing
/// session's harness holds no work item at all.
pub fn held_by_another(key: &SessionKey, held: &[u8]) -> Option<Found> {
    let named = std::str::from_utf8(held)
        .ok()
        .and_then(|text| text.parse::<WorkItemRef>().ok())
        .map(|r| r.to_string())
        .unwrap_or_else(|| "an unparseable ref".into());
    match key {
        SessionKey::WorkItem(r) if r.to_string().as_bytes() == held => None,
        SessionKey::WorkItem(_) => Some(Found::HeldByAnother {
            named,
            standing: false,
        }),
        SessionKey::Standing(_) => Some(Found::HeldByAnother {
            named,
            standing: true,
        }),
    }
}

#[cfg(test)]
#[path = "ownership_tests.rs"]
mod tests;
