//! Residue: where a withheld name, or a retired value of a delivered name,
//! still lingers in the layers tmux keeps, after (or regardless of) every
//! pane being clean. A pure comparison of
//! the policy with what [`crate::observed::residue`] read; names and
//! fingerprints only.
//!
//! Two of the four layers can be cleared in place (`apply --scrub-tmux-env`
//! unsets the names from the global and session environments). The tmux
//! server's own process environment and argv cannot: they are fixed when
//! the server starts, and only restarting the tmux server clears them.

use crate::desired::policy::Policy;
use crate::observed::residue::ResidueView;
use crate::observed::{EnvRead, ProcessEnv};
use crate::plan::change::ChangeCase;
use crate::secret::fingerprint::note_if_withheld;
use crate::secret::{SecretRef, SecretValue, Shown};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::fmt::Write;

pub use crate::events::roll::Layer;
use crate::style::Style;

/// A file value shorter than this is not searched for inside argv
/// arguments: short strings match ordinary words by chance.
const MIN_SUBSTRING_MATCH: usize = 8;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ResidueState {
    /// tmux answered and every layer it could give was compared.
    Observed,
    /// No tmux server is running, so tmux holds nothing.
    NoServer,
    /// tmux was not asked (it did not answer the pane listing) or did not answer.
    Unanswered,
}

impl Layer {
    /// Whether `apply --scrub-tmux-env` can clear this layer in place.
    pub fn scrubbable(self) -> bool {
        matches!(self, Layer::TmuxGlobal | Layer::TmuxSession)
    }

    fn describe(self, session: Option<&str>, server_pid: Option<i32>) -> String {
        let pid = server_pid.map(|p| format!(", pid {p}")).unwrap_or_default();
        match self {
            Layer::TmuxGlobal => "tmux global environment".into(),
            Layer::TmuxSession => format!("session {} environment", session.unwrap_or("?")),
            Layer::ServerEnviron => format!("tmux server process environment{pid}"),
            Layer::ServerArgv => format!("tmux server argv{pid}"),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ResidueEntry {
    pub layer: Layer,
    /// The tmux session, for the session layer.
    pub session: Option<String>,
    pub name: String,
    /// Fingerprint of the value found there (`withheld` when it can be guessed).
    pub fingerprint: Shown,
    /// `exposed` when it is the env file's current value, else `stale`.
    pub case: ChangeCase,
    /// True for the global and session layers, which `apply --scrub-tmux-env`
    /// clears; false for the server process, which only a server restart clears.
    pub scrubbable: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Residue {
    pub state: ResidueState,
    /// Why the layers (or some of them) could not be read.
    pub reason: Option<String>,
    pub server_pid: Option<i32>,
    pub entries: Vec<ResidueEntry>,
    /// Layers that were asked about but could not be read, each with why.
    pub unobserved: Vec<String>,
    /// Processes outside every pane that a launch under this config
    /// started (a harness's detached children), holding what no session
    /// may hold. Reported only: the-loop never signals them.
    #[serde(default)]
    pub detached: Vec<super::detached::DetachedEntry>,
    /// Tell the operator, once for this residue, that a scrub also makes
    /// the next plans cheaper ([`Residue::scrub_key`] decides "once"; the
    /// text view sets it). Not part of the JSON plan.
    #[serde(skip)]
    #[schemars(skip)]
    pub say_plans_get_cheaper: bool,
}

pub const SCRUB_COMMAND: &str = "the-loop apply --scrub-tmux-env";

pub const SERVER_NOTE: &str = "The tmux server's own process environment and argv cannot be changed in place: \
only a new server clears them: `the-loop apply --replace-server` moves the fleet to one, each session at its \
safe point, resumed and verified. Panes inherit the global environment, not these, but any process of the same user can read them.";

/// Said once per residue (see [`Residue::scrub_key`]), not on every plan.
pub const CHEAPER_AFTER_SCRUB: &str = "It also makes the next plans cheaper: while tmux holds a watched value, \
every plan asks each session for its own environment too (one more tmux call); after the scrub a plan is one \
tmux call. (Said once for this residue.)";

impl Residue {
    pub fn not_asked(reason: &str) -> Residue {
        Residue {
            state: ResidueState::Unanswered,
            reason: Some(reason.to_owned()),
            server_pid: None,
            entries: Vec::new(),
            unobserved: Vec::new(),
            detached: Vec::new(),
            say_plans_get_cheaper: false,
        }
    }

    /// Names this residue's scrubbable part (layers, sessions, names and
    /// fingerprints, in order): the same residue keeps the same key, and a
    /// new value left in tmux gets a new one. `None` when nothing can be
    /// scrubbed. Fingerprints only, so the key says nothing of a value.
    pub fn scrub_key(&self) -> Option<String> {
        use sha2::Digest;
        let mut hash = sha2::Sha256::new();
        let mut any = false;
        for e in self.scrubbable() {
            any = true;
            let line = format!(
                "{:?}\t{}\t{}\t{}\n",
                e.layer,
                e.session.as_deref().unwrap_or(""),
                e.name,
                e.fingerprint
            );
            hash.update(line.as_bytes());
        }
        any.then(|| base16ct::lower::encode_string(&hash.finalize()[..8]))
    }

    pub fn scrubbable(&self) -> impl Iterator<Item = &ResidueEntry> {
        self.entries.iter().filter(|e| e.scrubbable)
    }

    pub fn has_server_residue(&self) -> bool {
        self.entries.iter().any(|e| !e.scrubbable)
    }
}

/// Compares every layer with the withheld names.
pub fn compare(policy: &Policy, view: &ResidueView) -> Residue {
    let layers = match view {
        ResidueView::NoServer => {
            return Residue {
                state: ResidueState::NoServer,
                reason: None,
                server_pid: None,
                entries: Vec::new(),
                unobserved: Vec::new(),
                detached: Vec::new(),
                say_plans_get_cheaper: false,
            }
        }
        ResidueView::Unanswered(reason) => return Residue::not_asked(reason),
        ResidueView::Observed(layers) => layers,
    };
    let withheld = policy.withheld_names();
    let case_of = |name: &str, value: SecretRef<'_>| {
        let current = policy.file_value(name);
        if current.is_some_and(|current| *current == value) {
            ChangeCase::Exposed
        } else {
            ChangeCase::Stale
        }
    };
    let entry =
        |layer: Layer, session: Option<&str>, name: &str, value: SecretRef<'_>| ResidueEntry {
            layer,
            session: session.map(str::to_owned),
            name: name.to_owned(),
            fingerprint: policy.show(name, value.expose_bytes()),
            case: case_of(name, value),
            scrubbable: layer.scrubbable(),
        };
    let delivered = policy.delivered_names();
    let in_env = |env: &ProcessEnv, layer: Layer, session: Option<&str>| -> Vec<ResidueEntry> {
        // An empty value in a session's layer holds nothing to leak, and
        // the format gate that spares reading each session cannot see one
        // (`observed/session_loop.rs`): skipped, so both ways agree.
        let get = |name: &str| {
            env.get(name)
                .filter(|v| layer != Layer::TmuxSession || !v.expose_bytes().is_empty())
        };
        let mut found: Vec<ResidueEntry> = withheld
            .iter()
            .filter_map(|name| get(name).map(|v| entry(layer, session, name, v)))
            .collect();
        // A delivered name's current value is the harness's by design; a
        // retired one, in the layers new panes inherit from, is residue the
        // scrub clears. The server process layers are left to the withheld
        // names: a delivered value there cannot be cleared in place anyway.
        if layer.scrubbable() {
            found.extend(delivered.iter().filter_map(|name| {
                get(name)
                    .map(|v| entry(layer, session, name, v))
                    .filter(|e| e.case == ChangeCase::Stale)
            }));
        }
        found
    };

    let mut entries = Vec::new();
    let mut unobserved = Vec::new();
    match &layers.global {
        Some(env) => entries.extend(in_env(env, Layer::TmuxGlobal, None)),
        None => unobserved.push("tmux global environment: tmux gave no answer".to_owned()),
    }
    for (session, env) in &layers.sessions {
        entries.extend(in_env(env, Layer::TmuxSession, Some(session)));
    }
    for session in &layers.unobserved_sessions {
        unobserved.push(format!(
            "session {session} environment: tmux gave no answer"
        ));
    }
    match &layers.server_environ {
        EnvRead::Read(env) => entries.extend(in_env(env, Layer::ServerEnviron, None)),
        EnvRead::Unverified(why) => {
            unobserved.push(format!("tmux server process environment: {why}"))
        }
    }
    match &layers.server_argv {
        Ok(argv) => entries.extend(in_argv(policy, &withheld, argv, &case_of)),
        Err(why) => unobserved.push(format!("tmux server argv: {why}")),
    }
    entries.sort_by(|a, b| (a.layer, &a.session, &a.name).cmp(&(b.layer, &b.session, &b.name)));
    entries.dedup();
    Residue {
        state: ResidueState::Observed,
        reason: None,
        server_pid: layers.server_pid,
        entries,
        unobserved,
        detached: Vec::new(),
        say_plans_get_cheaper: false,
    }
}

/// `NAME=VALUE` (or `-eNAME=VALUE`) arguments for a withheld name, and any
/// argument that contains a withheld name's current file value.
fn in_argv(
    policy: &Policy,
    withheld: &BTreeSet<String>,
    argv: &[SecretValue],
    case_of: &dyn Fn(&str, SecretRef<'_>) -> ChangeCase,
) -> Vec<ResidueEntry> {
    let mut entries = Vec::new();
    let mut push = |name: &str, value: SecretRef<'_>| {
        entries.push(ResidueEntry {
            layer: Layer::ServerArgv,
            session: None,
            name: name.to_owned(),
            fingerprint: policy.show(name, value.expose_bytes()),
            case: case_of(name, value),
            scrubbable: false,
        })
    };
    for arg in argv {
        let bytes = arg.expose_bytes();
        let assignment = bytes.strip_prefix(b"-e").unwrap_or(bytes);
        let mut matched_assignment = false;
        if let Some(eq) = assignment.iter().position(|b| *b == b'=') {
            if let Ok(name) = std::str::from_utf8(&assignment[..eq]) {
                if withheld.contains(name) {
                    push(name, SecretRef::new(&assignment[eq + 1..]));
                    matched_assignment = true;
                }
            }
        }
        if matched_assignment {
            continue;
        }
        for name in withheld {
            let Some(current) = policy.file_value(name) else {
                continue;
            };
            let needle = current.expose_bytes();
            if needle.len() >= MIN_SUBSTRING_MATCH
                && bytes.windows(needle.len()).any(|w| w == needle)
            {
                push(name, current.borrowed());
            }
        }
    }
    entries
}

/// The residue block of the plan text; empty when there is nothing to say.
pub fn render(residue: &Residue, style: Style) -> String {
    let mut out = super::detached::render(&residue.detached, style);
    match residue.state {
        ResidueState::NoServer => return out,
        ResidueState::Unanswered => {
            let _ = writeln!(
                out,
                "\n{} {}",
                style.dim("? tmux layers not checked for residue:"),
                residue.reason.as_deref().unwrap_or("tmux did not answer")
            );
            return out;
        }
        ResidueState::Observed => {}
    }
    if !residue.entries.is_empty() {
        let _ = writeln!(
            out,
            "\n{}",
            style.bold("Residue: withheld names, and retired values of delivered names, that tmux itself still holds (names and fingerprints only):")
        );
        for e in &residue.entries {
            let case = match e.case {
                ChangeCase::Exposed => "exposed",
                _ => "stale",
            };
            let _ = writeln!(
                out,
                "  {} {:<28} {}  {} {}",
                style.red("!"),
                e.name,
                e.fingerprint,
                e.layer.describe(e.session.as_deref(), residue.server_pid),
                style.dim(&format!(
                    "({case}){}",
                    note_if_withheld(&[Some(e.fingerprint)])
                ))
            );
        }
        if residue.scrubbable().next().is_some() {
            let _ = writeln!(
                out,
                "  `{SCRUB_COMMAND}` unsets them from the global and session environments."
            );
            if residue.say_plans_get_cheaper {
                let _ = writeln!(out, "  {CHEAPER_AFTER_SCRUB}");
            }
        }
        if residue.has_server_residue() {
            let _ = writeln!(out, "  {SERVER_NOTE}");
        }
    }
    for what in &residue.unobserved {
        let _ = writeln!(out, "  {} not checked: {what}", style.dim("?"));
    }
    out
}

#[cfg(test)]
#[path = "residue_tests.rs"]
mod tests;
