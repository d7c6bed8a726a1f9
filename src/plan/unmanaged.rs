//! Harnesses the-loop does not manage ([`crate::observed::unmanaged`]), as
//! the plan shows them: where each runs, which conversation it is in when
//! that is certain, and the names it holds that it should not (a withheld
//! name at any value, a delivered name at a retired value), by name and
//! fingerprint. Nothing here is ever signalled or rolled: `the-loop
//! import` brings one under management, and the next `apply` rolls it.

use crate::desired::policy::Policy;
use crate::harness::SaidConversation;
use crate::observed::unmanaged::UnmanagedHarness;
use crate::observed::{EnvRead, Observation};
use crate::plan::change::ChangeCase;
use crate::secret::fingerprint::note_if_withheld;
use crate::secret::Shown;
use crate::style::Style;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::fmt::Write;

/// One harness in a pane the-loop does not manage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct UnmanagedHarnessEntry {
    /// The harness it is (`claude`).
    pub harness: String,
    /// The tmux session and pane it runs in (`the-loop import` takes the pane id).
    pub tmux_session: String,
    pub pane_id: String,
    pub pid: i32,
    /// The pane's own process: the harness's pid, or the shell it runs beneath.
    pub pane_pid: i32,
    /// The conversation it is in, when its hooks, the process itself or
    /// its argv say so; null when none does (`the-loop import` then refuses).
    pub conversation: Option<String>,
    /// Where `conversation` was read.
    pub conversation_from: Option<ConversationSource>,
    /// Why its environment could not be read; null when it was.
    pub unverified: Option<String>,
    /// The names it holds that it should not, fingerprints only.
    pub names: Vec<HeldName>,
}

/// Where an unmanaged harness's conversation was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ConversationSource {
    /// What the process itself last reported through the-loop's hooks.
    Hooks,
    /// What the process says itself, in a file the harness keeps for it
    /// (Claude Code's `sessions/<pid>.json`).
    Harness,
    /// `--session-id ID` or `--resume ID` in its argv.
    Argv,
}

/// A name an unmanaged harness holds that it should not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct HeldName {
    pub name: String,
    /// `withheld` when the value can be guessed (see `env.fingerprint`).
    pub fingerprint: Shown,
    /// `stale` (a retired value, or a withheld name at one) or `exposed`
    /// (a withheld name at the env file's current value).
    pub case: ChangeCase,
}

impl ConversationSource {
    /// The word the JSON and the event log use.
    pub fn as_str(self) -> &'static str {
        match self {
            ConversationSource::Hooks => "hooks",
            ConversationSource::Harness => "harness",
            ConversationSource::Argv => "argv",
        }
    }
}

impl UnmanagedHarnessEntry {
    /// Whether `plan --include-unmanaged` counts it as drift: it holds a
    /// name it should not.
    pub fn drifted(&self) -> bool {
        !self.names.is_empty()
    }
}

/// The conversation a harness process is in, and only when that is
/// certain: what it last reported through the-loop's hooks, else what it
/// says itself ([`crate::observed::unmanaged::said`]; a `/clear` or an in-app `/resume` moves it off
/// the one it was launched on, and both follow), else the id its argv
/// names, when it says nothing itself. Anything else is an error saying
/// why: a bare `claude` that says nothing is never guessed at (the newest
/// transcript in its directory may be another process's), and neither is
/// one whose own word cannot be trusted.
pub fn conversation(
    harness: &str,
    argv: &[String],
    reported: Option<&str>,
    said: &SaidConversation,
) -> Result<(String, ConversationSource), String> {
    let valid = |id: &str| crate::registry::is_valid_session_id(id);
    if let Some(id) = reported.filter(|id| valid(id)) {
        return Ok((id.to_owned(), ConversationSource::Hooks));
    }
    match said {
        SaidConversation::Conversation(id) if valid(id) => {
            return Ok((id.clone(), ConversationSource::Harness))
        }
        SaidConversation::Unclear(why) => {
            return Err(format!("what it says itself cannot be trusted ({why})"))
        }
        _ => {}
    }
    crate::harness::by_name(harness)
        .and_then(|h| h.read_launch(argv))
        .and_then(|launch| launch.conversation)
        .filter(|id| valid(id))
        .map(|id| (id, ConversationSource::Argv))
        .ok_or_else(|| {
            "its argv names none, it says none itself, and it reports through no hook of the-loop's"
                .to_owned()
        })
}

/// The conversation the harness `pid` is in by its own word: what its
/// hooks last reported, else what it says itself (for an adopted pane's
/// harness, [`crate::observed::unmanaged::said_by_adopted`]). `Err` when
/// what it says itself cannot be trusted; `Ok(None)` when it says nothing.
pub fn conversation_said(observation: &Observation, pid: i32) -> Result<Option<&str>, &str> {
    let hooks = observation
        .activities
        .get(&pid)
        .and_then(|a| a.conversation.as_deref())
        .filter(|id| crate::registry::is_valid_session_id(id));
    if hooks.is_some() {
        return Ok(hooks);
    }
    match observation.said.get(&pid) {
        Some(crate::harness::SaidConversation::Conversation(id)) => Ok(Some(id)),
        Some(crate::harness::SaidConversation::Unclear(why)) => Err(why),
        _ => Ok(None),
    }
}

/// Each unmanaged harness the observation found, against the policy.
pub fn compare(policy: &Policy, observation: &Observation) -> Vec<UnmanagedHarnessEntry> {
    let Some(found) = &observation.unmanaged else {
        return Vec::new();
    };
    let mut entries: Vec<UnmanagedHarnessEntry> = found
        .iter()
        .map(|h| entry(policy, h, observation))
        .collect();
    entries.sort_by(|a, b| {
        (&a.tmux_session, &a.pane_id, a.pid).cmp(&(&b.tmux_session, &b.pane_id, b.pid))
    });
    entries
}

fn entry(
    policy: &Policy,
    found: &UnmanagedHarness,
    observation: &Observation,
) -> UnmanagedHarnessEntry {
    let reported = observation
        .activities
        .get(&found.pid)
        .and_then(|a| a.conversation.as_deref());
    let said = crate::observed::unmanaged::said(found.harness, &found.env, found.pid, found.start);
    let conversation = conversation(found.harness, &found.argv, reported, &said).ok();
    let (unverified, names) = match &found.env {
        EnvRead::Read(env) => {
            let names = super::detached::held(policy, env)
                .into_iter()
                .map(|(name, fingerprint, case)| HeldName {
                    name,
                    fingerprint,
                    case,
                })
                .collect();
            (None, names)
        }
        EnvRead::Unverified(why) => (Some(why.clone()), Vec::new()),
    };
    UnmanagedHarnessEntry {
        harness: found.harness.to_owned(),
        tmux_session: found.session.clone(),
        pane_id: found.pane_id.clone(),
        pid: found.pid,
        pane_pid: found.pane_pid,
        conversation_from: conversation.as_ref().map(|(_, from)| *from),
        conversation: conversation.map(|(id, _)| id),
        unverified,
        names,
    }
}

/// The plan's text for them; empty when there are none. `counted`: the
/// plan was asked to count them as drift (`--include-unmanaged`).
pub fn render(entries: &[UnmanagedHarnessEntry], counted: bool, style: Style) -> String {
    let mut out = String::new();
    if entries.is_empty() {
        return out;
    }
    let _ = writeln!(
        out,
        "\n{}",
        style.bold("Harnesses the-loop does not manage (names and fingerprints only; nothing is signalled):")
    );
    for e in entries {
        let symbol = if e.drifted() {
            style.red("!")
        } else {
            style.dim("?")
        };
        let conversation = match (&e.conversation, e.conversation_from) {
            (Some(id), Some(ConversationSource::Hooks)) => {
                format!("conversation {id}, as its hooks report")
            }
            (Some(id), Some(ConversationSource::Harness)) => {
                format!("conversation {id}, as it says itself")
            }
            (Some(id), _) => format!("conversation {id}, from its argv"),
            _ => "conversation unknown: import refuses until it is certain".to_owned(),
        };
        let _ = writeln!(
            out,
            "  {symbol} {} in pane {} of tmux session {}  {}",
            e.harness,
            e.pane_id,
            e.tmux_session,
            style.dim(&format!("(pid {}; {conversation})", e.pid))
        );
        if let Some(why) = &e.unverified {
            let _ = writeln!(
                out,
                "      {}",
                style.dim(&format!("its environment could not be read: {why}"))
            );
        }
        for held in &e.names {
            let meaning = match held.case {
                ChangeCase::Exposed => {
                    "(exposed: a withheld name holding the file's current value)"
                }
                _ => "(stale: a retired value, or a withheld name)",
            };
            let _ = writeln!(
                out,
                "      {} {:<28} {}   {}",
                style.red("-"),
                held.name,
                held.fingerprint,
                style.dim(&format!(
                    "{meaning}{}",
                    note_if_withheld(&[Some(held.fingerprint)])
                ))
            );
        }
    }
    let counted = if counted {
        "Counted as drift (--include-unmanaged)."
    } else {
        "Not counted as drift: `apply` cannot roll them (`plan --include-unmanaged` counts those holding a name)."
    };
    let _ = writeln!(
        out,
        "  `the-loop import PANE REF` brings one under management; the next `apply` rolls it in place, resuming its conversation. {counted}"
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(line: &str) -> Vec<String> {
        line.split(' ').map(String::from).collect()
    }

    #[test]
    fn the_conversation_is_the_hooks_then_its_own_word_then_the_argv_and_never_a_guess() {
        use SaidConversation::{Conversation, Nothing, Unclear};
        let of = |line: &str, reported: Option<&str>, said: &SaidConversation| {
            conversation("claude", &argv(line), reported, said).ok()
        };
        let argv_says = |id: &str| Some((id.to_owned(), ConversationSource::Argv));
        assert_eq!(of("claude --resume abc", None, &Nothing), argv_says("abc"));
        assert_eq!(
            of("claude --session-id abc --model x", None, &Nothing),
            argv_says("abc")
        );
        let hooks = Some(("def".into(), ConversationSource::Hooks));
        assert_eq!(of("claude --resume abc", Some("def"), &Nothing), hooks);
        assert_eq!(of("claude", Some("def"), &Nothing), hooks);
        // Moved off its launch (`/clear`, `--fork-session`): its own word.
        let own = Some(("ghi".into(), ConversationSource::Harness));
        let said = Conversation("ghi".into());
        assert_eq!(of("claude --session-id abc", None, &said), own);
        assert_eq!(of("claude", None, &said), own);
        assert_eq!(of("claude --resume abc", Some("def"), &said), hooks);
        // Its own word untrusted: not the argv's either.
        let unclear = Unclear("a file that cannot be read".into());
        assert_eq!(of("claude --resume abc", None, &unclear), None);
        let why = conversation("claude", &argv("claude --resume abc"), None, &unclear);
        assert!(why.unwrap_err().contains("a file that cannot be read"));
        assert_eq!(of("claude", None, &Nothing), None);
        assert_eq!(of("claude --continue", None, &Nothing), None);
        assert_eq!(of("claude --resume", None, &Nothing), None);
        assert_eq!(
            of(
                "claude --resume --model",
                Some("a b"),
                &Conversation("c d".into())
            ),
            None,
            "neither a flag nor an invalid report is an id"
        );
        assert_eq!(
            conversation("other", &argv("other --resume abc"), None, &Nothing).ok(),
            None
        );
    }
}
