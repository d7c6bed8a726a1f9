//! `the-loop history`: the rolls the event log recorded, newest first, as
//! `kubectl rollout history` lists a deployment's revisions.
//!
//! Only `apply.started` and `apply.finished` lines are read. Every roll
//! (`apply`, the restarts, `watch`'s, a delivery's relaunch) writes both
//! through [`crate::ops::apply`], and the apply lock keeps two rolls of one
//! state root from overlapping, so a roll is a started line and the first
//! finished line after it. A started line with none after it is a roll that
//! was killed, or that runs now. What the env file declared is compared
//! from one roll to the one before it, by name and fingerprint (each
//! `apply.started` carries them); never a value, since the log has none.

use crate::bounded_read::{self, EVENT_LOG_TAIL};
use crate::events::host::HostRollReport;
use crate::events::roll::RollCommand;
use crate::events::SessionOutcome;
use crate::ops::Context;
use crate::secret::Shown;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

pub const FORMAT_VERSION: &str = "1";

/// `the-loop history --json` (`schemas/history.schema.json`).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct History {
    /// Contract: always "1" for this shape.
    pub format_version: String,
    /// The event log read (`<state root>/events.jsonl`).
    pub events_file: PathBuf,
    /// Newest first.
    pub rolls: Vec<Roll>,
    /// The log is longer than the 16 MiB `history` reads from its end, so
    /// older rolls are not listed.
    pub truncated: bool,
    /// Lines about a roll that could not be read (torn by a crash, or
    /// edited by hand); skipped.
    pub unreadable_lines: usize,
}

/// One roll.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Roll {
    /// When it began (`YYYY-MM-DDTHH:MM:SSZ`); null when its `apply.started`
    /// line is before the part of the log that was read.
    pub started: Option<String>,
    /// When it ended; null when no `apply.finished` line followed.
    pub finished: Option<String>,
    /// How long it took, in milliseconds, measured on the monotonic clock
    /// (so a wall clock set during the roll does not change it); null when
    /// unfinished, or logged before `apply.finished` carried it.
    pub duration_ms: Option<u64>,
    /// What ran it: `apply`, `sessions restart`, `standing restart`,
    /// `watch` or `sessions deliver`.
    pub command: RollCommand,
    pub result: RollResult,
    /// How many sessions the roll selected to act on; null when unknown.
    pub selected: Option<usize>,
    /// The env file as the roll's plan read it; null when none was
    /// configured, or the roll was logged before `apply.started` carried it.
    pub env: Option<RollEnv>,
    /// Each session's outcome, in the roll's order; empty while unfinished.
    pub sessions: Vec<SessionOutcome>,
    /// What became of each host beside tmux the roll rolled (its layer and
    /// sessions, `docs/hosts.md`); empty when none.
    pub hosts: Vec<HostRollReport>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RollResult {
    /// Every session it acted on ended well.
    Succeeded,
    /// A session was left stale (see its outcome).
    Failed,
    /// A signal stopped new respawns from starting.
    Interrupted,
    /// No `apply.finished` line: the roll was killed, or runs now.
    Unfinished,
}

/// The env file a roll rolled sessions onto.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct RollEnv {
    pub file: PathBuf,
    /// How many names it declared.
    pub names: usize,
    /// Each name declared differently from the previous roll in the log
    /// that recorded the env file: before and after, fingerprints only.
    /// Empty when nothing changed; null when there is no such roll.
    pub changes: Option<Vec<EnvChange>>,
}

/// One name, as the roll before saw it and as this roll did; `None` means
/// not declared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct EnvChange {
    pub name: String,
    pub before: Option<Shown>,
    pub after: Option<Shown>,
}

/// Why the log could not be read.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("cannot read the event log {}: {reason}", path.display())]
#[diagnostic(
    code(the_loop::history::unreadable),
    help(
        "the-loop writes it as a regular file under the state root; move whatever is there aside"
    )
)]
pub struct HistoryError {
    pub path: PathBuf,
    pub reason: String,
}

/// The rolls in the state root's event log. A log that does not exist yet
/// is an empty history, not an error.
pub fn history(ctx: &Context) -> Result<History, HistoryError> {
    let path = ctx.events.path().to_path_buf();
    let unreadable = |e: &std::io::Error| HistoryError {
        path: path.clone(),
        reason: bounded_read::describe(e),
    };
    let (bytes, truncated) = match std::fs::symlink_metadata(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (Vec::new(), false),
        Err(e) => return Err(unreadable(&e)),
        Ok(meta) => (
            bounded_read::read_tail(&path, &EVENT_LOG_TAIL).map_err(|e| unreadable(&e))?,
            meta.len() > EVENT_LOG_TAIL.cap,
        ),
    };
    let (mut rolls, unreadable_lines) = rolls_in(&bytes);
    rolls.reverse();
    Ok(History {
        format_version: FORMAT_VERSION.into(),
        events_file: path,
        rolls,
        truncated,
        unreadable_lines,
    })
}

/// The lines this reads, as `crate::events::Event` writes them.
#[derive(Deserialize)]
struct Line {
    ts: String,
    #[serde(flatten)]
    event: RollLine,
}

#[derive(Deserialize)]
#[serde(tag = "event")]
enum RollLine {
    #[serde(rename = "apply.started")]
    Started {
        command: RollCommand,
        sessions: usize,
        #[serde(default, alias = "background_sessions")]
        host_sessions: Option<usize>,
        #[serde(default)]
        env_file: Option<PathBuf>,
        #[serde(default)]
        env_fingerprints: Option<BTreeMap<String, Shown>>,
    },
    #[serde(rename = "apply.finished")]
    Finished {
        command: RollCommand,
        failed: bool,
        interrupted: bool,
        #[serde(default)]
        duration_ms: Option<u64>,
        sessions: Vec<SessionOutcome>,
        #[serde(default)]
        hosts: Vec<HostRollReport>,
        /// Written before hosts shared one list: Claude Code's background
        /// host's report.
        #[serde(default)]
        background_host: Option<HostRollReport>,
    },
}

/// The rolls in a log's text, oldest first, and how many roll lines could
/// not be read.
fn rolls_in(log: &[u8]) -> (Vec<Roll>, usize) {
    // The log is mostly other events; only lines naming a roll are parsed.
    let finder = memchr::memmem::Finder::new(b"\"event\":\"apply.");
    let mut rolls: Vec<Roll> = Vec::new();
    let mut envs: Vec<Option<(PathBuf, BTreeMap<String, Shown>)>> = Vec::new();
    let mut open: Option<usize> = None;
    let mut unreadable = 0;
    for line in log.split(|b| *b == b'\n') {
        if finder.find(line).is_none() {
            continue;
        }
        let Ok(Line { ts, event }) = serde_json::from_slice::<Line>(line) else {
            unreadable += 1;
            continue;
        };
        match event {
            RollLine::Started {
                command,
                sessions,
                host_sessions,
                env_file,
                env_fingerprints,
            } => {
                open = Some(rolls.len());
                rolls.push(Roll {
                    started: Some(ts),
                    finished: None,
                    duration_ms: None,
                    command,
                    result: RollResult::Unfinished,
                    selected: Some(sessions + host_sessions.unwrap_or(0)),
                    env: None,
                    sessions: Vec::new(),
                    hosts: Vec::new(),
                });
                envs.push(env_file.zip(env_fingerprints));
            }
            RollLine::Finished {
                command,
                failed,
                interrupted,
                duration_ms,
                sessions,
                hosts,
                background_host,
            } => {
                let result = if interrupted {
                    RollResult::Interrupted
                } else if failed {
                    RollResult::Failed
                } else {
                    RollResult::Succeeded
                };
                let roll = match open.take() {
                    Some(i) if rolls[i].command == command => &mut rolls[i],
                    // Its start is before the part read, or was torn.
                    _ => {
                        rolls.push(Roll {
                            started: None,
                            finished: None,
                            duration_ms: None,
                            command,
                            result,
                            selected: None,
                            env: None,
                            sessions: Vec::new(),
                            hosts: Vec::new(),
                        });
                        envs.push(None);
                        rolls.last_mut().expect("just pushed")
                    }
                };
                roll.finished = Some(ts);
                roll.duration_ms = duration_ms;
                roll.result = result;
                roll.sessions = sessions;
                roll.hosts = hosts.into_iter().chain(background_host).collect();
            }
        }
    }
    let mut before: Option<&BTreeMap<String, Shown>> = None;
    for (roll, env) in rolls.iter_mut().zip(&envs) {
        let Some((file, after)) = env else { continue };
        roll.env = Some(RollEnv {
            file: file.clone(),
            names: after.len(),
            changes: before.map(|before| changes(before, after)),
        });
        before = Some(after);
    }
    (rolls, unreadable)
}

/// The names whose fingerprint differs, or that one side lacks, by name.
fn changes(before: &BTreeMap<String, Shown>, after: &BTreeMap<String, Shown>) -> Vec<EnvChange> {
    let names: std::collections::BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    names
        .into_iter()
        .filter(|name| before.get(*name) != after.get(*name))
        .map(|name| EnvChange {
            name: name.clone(),
            before: before.get(name).copied(),
            after: after.get(name).copied(),
        })
        .collect()
}

#[cfg(test)]
#[path = "history_tests.rs"]
mod tests;
