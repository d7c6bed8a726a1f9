//! Residue in processes outside the-loop's panes that carry this config's
//! identifiers (see [`crate::observed::detached`]): a child a harness
//! detached, or a process in a pane of some other session. The same rule
//! as tmux's layers, a withheld name at any value, a delivered name at a
//! retired value. Names, pids and fingerprints only; these processes are
//! never signalled.

use crate::desired::policy::Policy;
use crate::observed::detached::Detached;
use crate::observed::ProcessEnv;
use crate::plan::change::ChangeCase;
use crate::secret::fingerprint::note_if_withheld;
use crate::secret::{SecretRef, Shown};
use crate::style::Style;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::fmt::Write;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DetachedEntry {
    pub pid: i32,
    /// The process name (`/proc/<pid>/comm`).
    pub process: String,
    pub name: String,
    /// Fingerprint of the value the process holds (`withheld` when it can be guessed).
    pub fingerprint: Shown,
    /// `exposed` when it is the env file's current value, else `stale`.
    pub case: ChangeCase,
    /// The tmux session and pane (of a session that is not the-loop's) the
    /// process runs in; absent for a process detached from every pane.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pane_id: Option<String>,
}

/// What `env` holds that no process of this config may hold outside a
/// managed pane: `(name, fingerprint, case)`. A withheld name at any value,
/// a delivered name at a value that is not the file's.
pub fn held(policy: &Policy, env: &ProcessEnv) -> Vec<(String, Shown, ChangeCase)> {
    let current = |name: &str| policy.file_value(name);
    let case = |name: &str, value: SecretRef<'_>| {
        if current(name).is_some_and(|current| *current == value) {
            ChangeCase::Exposed
        } else {
            ChangeCase::Stale
        }
    };
    let mut out: Vec<_> = policy
        .withheld_names()
        .into_iter()
        .filter_map(|name| {
            let value = env.get(&name)?;
            let case = case(&name, value);
            Some((name.clone(), policy.show(&name, value.expose_bytes()), case))
        })
        .collect();
    out.extend(policy.delivered_names().into_iter().filter_map(|name| {
        let value = env.get(&name)?;
        (case(&name, value) == ChangeCase::Stale).then(|| {
            let shown = policy.show(&name, value.expose_bytes());
            (name, shown, ChangeCase::Stale)
        })
    }));
    out
}

pub fn compare(policy: &Policy, found: &[Detached]) -> Vec<DetachedEntry> {
    let mut entries: Vec<DetachedEntry> = found
        .iter()
        .flat_map(|d| {
            held(policy, &d.env)
                .into_iter()
                .map(|(name, fingerprint, case)| DetachedEntry {
                    pid: d.pid,
                    process: d.process.clone(),
                    name,
                    fingerprint,
                    case,
                    session: d.pane.as_ref().map(|p| p.session.clone()),
                    pane_id: d.pane.as_ref().map(|p| p.pane_id.clone()),
                })
        })
        .collect();
    entries.sort_by(|a, b| (a.pid, &a.name).cmp(&(b.pid, &b.name)));
    entries
}

/// The plan's text for them; empty when there are none.
pub fn render(entries: &[DetachedEntry], style: Style) -> String {
    let mut out = String::new();
    if entries.is_empty() {
        return out;
    }
    let _ = writeln!(
        out,
        "\n{}",
        style.bold("Residue: processes outside the-loop's panes that carry this config's identifiers still hold (names and fingerprints only):")
    );
    for e in entries {
        let case = match e.case {
            ChangeCase::Exposed => "exposed",
            _ => "stale",
        };
        let place = match (&e.session, &e.pane_id) {
            (Some(session), Some(pane)) => format!("in pane {pane} of tmux session {session}"),
            _ => "detached from every pane".to_owned(),
        };
        let _ = writeln!(
            out,
            "  {} {:<28} {}  pid {} ({}), {place} {}",
            style.red("!"),
            e.name,
            e.fingerprint,
            e.pid,
            e.process,
            style.dim(&format!(
                "({case}){}",
                note_if_withheld(&[Some(e.fingerprint)])
            ))
        );
    }
    let _ = writeln!(
        out,
        "  the-loop never signals these: end them yourself once their work is done."
    );
    out
}
