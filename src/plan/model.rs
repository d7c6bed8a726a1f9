//! The plan as data. Field names marked "contract" are public (docs/contracts.md):
//! scripts read them from `plan --json`, so they are never renamed.

pub use super::reason::Reason;
use crate::activity::Activity;
pub use crate::events::roll::ArgsChange;
pub use crate::events::roll::ArgsField;
use crate::observed::Probe;
use crate::plan::change::Change;
use crate::registry::{RecordFacts, SessionKey};
use crate::secret::{Fingerprint, FingerprintLabel, Seal, Shown};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

pub const FORMAT_VERSION: &str = "1";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Plan {
    /// Contract: always "1" for this shape.
    pub format_version: String,
    /// The env file this plan was computed against.
    pub env_file: Option<PathBuf>,
    /// Set by `plan --env-file CANDIDATE`: the configured `env.file` that
    /// the candidate (`env_file`) would replace. The plan says what a
    /// rotation to the candidate would do; saved, it is applied only once
    /// this file declares exactly the candidate's names and fingerprints.
    /// Null for a plan of the configured env file.
    #[serde(default)]
    pub candidate_for: Option<PathBuf>,
    /// Name → fingerprint of every value the env file declared
    /// (`withheld` for a guessable value in `sha256` mode).
    pub env_fingerprints: BTreeMap<String, Shown>,
    /// How the fingerprints in this plan were made (`env.fingerprint`,
    /// and the id of the local key when one was used): a saved plan is
    /// applied only under the same.
    #[serde(default)]
    pub fingerprints: FingerprintLabel,
    /// A keyed digest of the env file's values whose fingerprints are
    /// withheld, so a saved plan still notices that one changed; null when
    /// none is withheld.
    #[serde(default)]
    pub withheld_seal: Option<Seal>,
    /// Contract: one entry per managed or unmanaged `loop-*` session.
    pub sessions: Vec<SessionPlan>,
    /// Active sessions whose tmux session is gone (refs or standing
    /// names): no roll starts them; `sessions start --all` does.
    #[serde(default)]
    pub down: Vec<String>,
    /// The tmux server (its socket) the plan read.
    #[serde(default)]
    pub tmux_server: Option<PathBuf>,
    /// Set when tmux could not be asked; every probe is then "unknown".
    pub tmux_unanswered: Option<String>,
    /// Set when a managed session could not be observed because tmux failed
    /// or did not answer: the plan is blind to it, which is an error, not a
    /// pass (`plan --detailed-exitcode` and `apply` exit 1). Null when every
    /// selected session was seen (a harness whose environment this platform
    /// cannot read is `unverified`, not this).
    #[serde(default)]
    pub observation_failed: Option<ObservationFailure>,
    /// Registry files that could not be parsed (reported, never fatal).
    pub corrupt_records: Vec<CorruptRecordNote>,
    pub summary: Summary,
    /// Names the harness gets from the-loop's key helper (Claude Code's
    /// `apiKeyHelper`) instead of its environment: a rotation of their
    /// value is no drift and needs no respawn.
    #[serde(default)]
    pub delivered_by_helper: Vec<String>,
    /// Withheld names still held by tmux's own layers (global and session
    /// environments, the server process); null when not checked.
    #[serde(default)]
    pub residue: Option<super::residue::Residue>,
    /// Harnesses running in tmux panes that are no record's harness pane
    /// (a person's `claude` in a session of their own): where, which
    /// conversation, and what they hold that they should not. Counted as
    /// drift only with `plan --include-unmanaged`. Empty for a plan of
    /// `--target`ed sessions.
    #[serde(default)]
    pub unmanaged_harnesses: Vec<super::unmanaged::UnmanagedHarnessEntry>,
    /// The hosts beside tmux that `routing.hosts` turns on (Claude Code's
    /// background sessions and their daemon), each planned as the panes
    /// are (`docs/hosts.md`); absent when the config names only tmux.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<super::host::HostPlan>,
    /// `plan --include-unmanaged`: the text says they count as drift. Not
    /// in the JSON, which carries every entry either way.
    #[serde(skip)]
    pub unmanaged_counted: bool,
    /// The text plan says, once, that fingerprints are now made another
    /// way (another mode or key) than when it last spoke: every one of
    /// them differs, and that is no drift. Not in the JSON, which carries
    /// `fingerprints` on every plan.
    #[serde(skip)]
    pub fingerprints_changed_from: Option<FingerprintLabel>,
}

/// What the plan could not see, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ObservationFailure {
    /// What failed and why, in the words of whoever said it: tmux's own
    /// message ("tmux list-panes failed: …"), the timeout, or exec's error.
    pub cause: String,
    /// The managed sessions (their refs or standing names) whose state is
    /// therefore unknown.
    pub sessions: Vec<String>,
}

/// `could not observe 2 managed sessions (a, b): CAUSE`, for the plan's
/// footer, `plan`'s `error:` line, the apply report and watch's log.
impl std::fmt::Display for ObservationFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        const SHOWN: usize = 5;
        let n = self.sessions.len();
        let what = if n == 1 { "session" } else { "sessions" };
        write!(f, "could not observe {n} managed {what} (")?;
        f.write_str(&self.sessions[..n.min(SHOWN)].join(", "))?;
        if n > SHOWN {
            write!(f, " and {} more", n - SHOWN)?;
        }
        write!(f, "): {}", self.cause)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CorruptRecordNote {
    pub path: PathBuf,
    pub reason: String,
}

impl From<crate::registry::CorruptRecord> for CorruptRecordNote {
    fn from(c: crate::registry::CorruptRecord) -> Self {
        CorruptRecordNote {
            path: c.path,
            reason: c.reason,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SessionKind {
    WorkItem,
    Standing,
    /// A `loop-*` session with no registry record: left alone.
    Unmanaged,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Respawn,
    None,
    Skip,
    /// Complete an interrupted respawn: the pane is dead because an earlier
    /// roll ended its harness and never respawned it (`interrupted_respawn`
    /// says which). `apply` respawns that pane, resuming the conversation.
    Resume,
}

/// Whether a session's environment was read (its `observation` field).
/// Named apart from [`crate::observed::Observation`]; the schema keeps the
/// name it was published under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(rename = "Observation")]
pub enum EnvReading {
    Read,
    Unverified,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SessionPlan {
    /// Contract: the work-item ref, null for standing and unmanaged sessions.
    #[serde(rename = "ref")]
    pub reference: Option<String>,
    /// The standing session's name, when it is one.
    pub standing: Option<String>,
    pub kind: SessionKind,
    /// Contract.
    pub tmux_target: String,
    pub pane_id: Option<String>,
    /// The harness's pid (the pane's own process, but for `pane_process`).
    pub pane_pid: Option<i32>,
    /// The pane's own process when the harness runs beneath it: the shell
    /// a person started it from, in a pane `the-loop import` adopted. A
    /// roll ends it after the harness, and the launcher takes its place.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pane_process: Option<i32>,
    pub probe: Probe,
    /// Contract (docs/contracts.md, "Safe points"): how many tmux clients are
    /// attached to the session; 0 when it is absent or tmux did not answer.
    #[serde(default)]
    pub attached: u32,
    /// Contract (docs/contracts.md, "Safe points"): what the harness is doing, from
    /// its own hooks: idle, busy, waiting or unknown (no hook data).
    #[serde(default)]
    pub activity: Activity,
    /// When the running turn began (`YYYY-MM-DDTHH:MM:SSZ`), while the
    /// hooks say `busy` or `waiting`: with `apply_will`, how long a roll has
    /// had to hold this session and why. Null otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub busy_since: Option<String>,
    /// What a roll does about this session's safe point: roll it now, wait
    /// for its turn to end, or leave it alone while a client is attached.
    /// Null for sessions no roll touches. `plan` assumes `apply`'s
    /// defaults; `apply` and the restarts show it for their own flags.
    #[serde(default)]
    pub apply_will: Option<SafePoint>,
    /// What the session's screen showed when the plan looked (a running
    /// turn or shell command, a menu or dialog, a background shell, a
    /// draft, between turns, or nothing known); null where the plan did not
    /// look (no roll touches it, its hooks say a turn runs, or past the
    /// plan's one batch of looks). Only this verdict is kept, never the text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screen: Option<crate::harness::turn_screen::TurnScreen>,
    /// Contract: respawn, none or skip; `resume` completes an interrupted respawn.
    pub action: Action,
    // Typed as [`Reason`], but written and read back as the sentence it
    // always was, so the JSON and its schema stay a string.
    /// Contract: why a session is skipped.
    #[schemars(with = "Option<String>")]
    pub reason: Option<Reason>,
    /// Contract: read or unverified.
    pub observation: EnvReading,
    /// Contract: each differing name, fingerprints only.
    pub changes: Vec<Change>,
    /// Launch-argument drift, kept apart from the environment's `changes`:
    /// what the running harness was launched with against what its record
    /// and config resolve to now. Empty when the record stored none.
    #[serde(default)]
    pub args_changes: Vec<ArgsChange>,
    /// Fingerprint of the registry record, so a saved plan can tell that the
    /// record changed since.
    pub record_fingerprint: Option<Fingerprint>,
    /// Why `apply` (and `sessions restart`) will leave this session alone
    /// although it is selected: its conversation cannot be resumed, or its
    /// pane is not the record's own. Decided by the same function the roll
    /// uses (`plan::ownership::decide`), so the plan predicts what the roll
    /// does. Null when it can be resumed, and for sessions no roll would
    /// touch.
    #[serde(default)]
    pub left_alone: Option<String>,
    /// Set when an earlier roll ended this session's harness and never
    /// verified its replacement (the intent journal under the state root).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupted_respawn: Option<crate::registry::journal::InterruptedRespawn>,
    /// The live harness reported another conversation than the record's:
    /// the person ran `/clear` or an in-app `/resume`. A roll resumes (and
    /// confirms) `to`, and writes it into the record first, keeping `from`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation_moved: Option<ConversationMoved>,
    /// The other live records (refs or standing names) that name this
    /// record's conversation too, one copied by hand, say: neither is
    /// rolled or resumed until a person resolves it (`left_alone` says
    /// so). Empty, and not in the JSON, when no other record names it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conversation_shared_with: Vec<String>,
    /// Which record this session is (null for an unmanaged one). Not in the
    /// JSON: `ref` and `standing` say it there, and a saved plan is only
    /// compared with a fresh one, never acted on.
    #[serde(skip)]
    pub key: Option<SessionKey>,
    /// What the roll needs from the record, as it was read for this plan,
    /// so the roll never reads it again. Not in the JSON: it holds paths
    /// and conversation ids.
    #[serde(skip)]
    pub record: Option<RecordFacts>,
}

/// What a roll does about a selected session's safe point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SafePoint {
    /// Between turns by its hooks or its screen (or `--now`): rolled at once.
    RollNow,
    /// A turn is running: rolled the moment it ends, within `--drain-timeout`.
    WaitBusy,
    /// The turn is asking a person: rolled once it ends, within `--drain-timeout`.
    WaitWaiting,
    /// Between turns by its hooks, but its screen shows something a person
    /// could lose (a background shell, a draft): rolled once it clears,
    /// within `--drain-timeout`; `screen` says what.
    WaitScreen,
    /// Neither its hooks nor its screen say it is between turns (no hook
    /// has spoken for it): held, and rolled only when its screen shows it
    /// between turns within `--drain-timeout`. "Unknown" never rolls now.
    WaitUnknown,
    /// A tmux client is attached: left alone (`deferred`) unless `--include-attached`.
    LeaveAttached,
    /// The person ended its harness (`/exit`, Ctrl-C twice, logout): left
    /// alone (`skipped`), whatever the flags.
    LeaveEnded,
}

/// A conversation the person moved to inside one harness process.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ConversationMoved {
    /// The record's conversation (null when it names none).
    pub from: Option<String>,
    /// The one the live harness last reported starting.
    pub to: String,
}

impl SessionPlan {
    /// A session with nothing decided yet: no pane, no drift, no record.
    /// Every other construction starts here (`..SessionPlan::new(..)`), so
    /// a new field is written in this file and where it is decided, not in
    /// every place that builds a plan.
    pub fn new(kind: SessionKind, tmux_target: String, probe: Probe) -> Self {
        SessionPlan {
            reference: None,
            standing: None,
            kind,
            tmux_target,
            pane_id: None,
            pane_pid: None,
            pane_process: None,
            probe,
            attached: 0,
            activity: Activity::Unknown,
            apply_will: None,
            screen: None,
            action: Action::None,
            reason: None,
            observation: EnvReading::Unverified,
            changes: Vec::new(),
            args_changes: Vec::new(),
            record_fingerprint: None,
            left_alone: None,
            interrupted_respawn: None,
            conversation_moved: None,
            conversation_shared_with: Vec::new(),
            busy_since: None,
            key: None,
            record: None,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Summary {
    /// Drifted sessions a roll will respawn.
    pub respawn: usize,
    /// Drifted sessions a roll will leave alone: they cannot be resumed.
    #[serde(default)]
    pub left_alone: usize,
    /// Interrupted respawns that `apply` will complete.
    #[serde(default)]
    pub resume: usize,
    pub up_to_date: usize,
    pub skipped: usize,
    pub unverified: usize,
    /// `loop-*` tmux sessions no registry record names (the text's
    /// "loop-* without a record"). Harnesses a person started by hand, in
    /// `unmanaged_harnesses`, are not counted here.
    pub unmanaged: usize,
}

impl Action {
    /// Whether `apply` acts on a session planned so.
    pub fn acts(self) -> bool {
        matches!(self, Action::Respawn | Action::Resume)
    }
}

impl Plan {
    /// Drift that was actually observed: some session would be respawned.
    pub fn has_drift(&self) -> bool {
        self.sessions.iter().any(|s| s.action.acts())
            || self.hosts.iter().any(|host| host.has_drift())
    }

    /// Some harness the-loop does not manage holds a name it should not.
    pub fn has_unmanaged_drift(&self) -> bool {
        self.unmanaged_harnesses.iter().any(|h| h.drifted())
            || self.hosts.iter().any(|host| host.has_unmanaged_drift())
    }
}

impl SessionPlan {
    /// A managed session tmux gave no state for: it failed or did not answer.
    pub fn is_unseen(&self) -> bool {
        self.probe == Probe::Unknown && self.is_unverified()
    }

    /// Skipped because its state could not be observed, not because of a decision.
    pub fn is_unverified(&self) -> bool {
        self.kind != SessionKind::Unmanaged
            && self.reason.as_ref().is_some_and(Reason::is_unverified)
    }

    /// How a person or a `--target` names this session.
    pub fn label(&self) -> &str {
        self.reference
            .as_deref()
            .or(self.standing.as_deref())
            .unwrap_or(&self.tmux_target)
    }
}
