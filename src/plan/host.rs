//! The plan of a host beside tmux's panes (`routing.hosts`, `docs/hosts.md`),
//! pure and in every host's words alike: the host's own layer (the
//! long-lived parent every session there inherits from, as a pane's tmux
//! server is), each session the host lists, whether the-loop manages it,
//! what it holds against what the policy wants, and what `apply` does with
//! it at its safe point. A host's module (`hosts::…`) fills it in; the
//! plan, `apply`, `watch`, `status`, `top`, the metrics and the views read
//! only this.

use crate::desired::config::Host;
use crate::plan::change::Change;
use crate::registry::host_roll::HostRollJournal;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// One host's part of a plan (an entry of `plan --json`'s `hosts`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct HostPlan {
    /// The host, as `routing.hosts` names it.
    pub host: Host,
    /// Where on this machine the host is (for `claude-background`, the
    /// Claude config dir whose daemon hosts the sessions).
    pub location: PathBuf,
    /// The host's own layer; null when none runs.
    pub layer: Option<LayerPlan>,
    pub sessions: Vec<HostSessionPlan>,
    /// The host could not be read (its listing failed or is of a version
    /// this reader does not know): the plan is blind to it.
    pub observation_failed: Option<String>,
    /// What an earlier roll of this host began and never saw through (cut
    /// short, or running now), as far as it still shows: the layer it
    /// stopped while none holding the policy's runs, the sessions whose
    /// respawn it asked for that still drift. Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unfinished_roll: Option<HostRollJournal>,
}

/// The host's layer: what every session it starts or respawns inherits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct LayerPlan {
    pub pid: i32,
    /// How it was started, as the host says (`transient`, started by a
    /// client, or `foreground`, as the-loop starts it).
    pub origin: Option<String>,
    pub version: Option<String>,
    /// What it holds against the host's wanted environment.
    pub changes: Vec<Change>,
    /// Why its environment could not be read; null when it was.
    pub unverified: Option<String>,
}

/// A host session's activity, as its host says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum HostActivity {
    /// A turn runs.
    Busy,
    /// Between turns.
    Idle,
    /// It asks a person (a permission prompt).
    Waiting,
    /// No process runs: nothing to roll.
    Stopped,
}

impl std::fmt::Display for HostActivity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            HostActivity::Busy => "busy",
            HostActivity::Idle => "idle",
            HostActivity::Waiting => "waiting",
            HostActivity::Stopped => "stopped",
        })
    }
}

/// What `apply` does with a host's session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HostAction {
    /// Managed and drifted: respawned under a layer holding the policy.
    Respawn,
    /// Managed and holding what the policy wants.
    None,
    /// Not the-loop's: listed, never touched.
    Unmanaged,
    /// No process runs: it holds nothing, and is not rolled.
    Stopped,
    /// Managed, but what its process holds could not be read.
    Unverified,
}

/// When `apply` respawns it: only between turns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HostWill {
    RollNow,
    /// A turn runs: held until it ends or the drain does.
    WaitBusy,
    /// It asks a person: held.
    WaitAsking,
}

impl HostWill {
    /// What a session of `activity` waits for, once it is to be respawned.
    pub fn at(activity: HostActivity) -> HostWill {
        match activity {
            HostActivity::Busy => HostWill::WaitBusy,
            HostActivity::Waiting => HostWill::WaitAsking,
            HostActivity::Idle | HostActivity::Stopped => HostWill::RollNow,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct HostSessionPlan {
    /// The host's id for it (Claude Code's short id).
    pub id: String,
    /// The managing record's ref; null for one the-loop does not manage.
    #[serde(rename = "ref")]
    pub reference: Option<String>,
    pub conversation: Option<String>,
    pub cwd: Option<String>,
    pub pid: Option<i32>,
    pub activity: HostActivity,
    pub action: HostAction,
    /// Null unless it is to be respawned.
    pub apply_will: Option<HostWill>,
    pub changes: Vec<Change>,
    /// Why it is unverified; null otherwise.
    pub reason: Option<String>,
    /// The command a person runs to open it (`claude attach <id>`): it has
    /// no pane.
    pub open_with: String,
}

impl HostSessionPlan {
    /// Its ref, or its id when the-loop does not manage it.
    pub fn label(&self) -> &str {
        self.reference.as_deref().unwrap_or(&self.id)
    }
}

impl HostPlan {
    /// How many managed drifted sessions a roll is to respawn.
    pub fn to_respawn(&self) -> usize {
        self.sessions
            .iter()
            .filter(|s| s.action == HostAction::Respawn)
            .count()
    }

    /// A managed session drifted (what `--detailed-exitcode` counts).
    pub fn has_drift(&self) -> bool {
        self.to_respawn() > 0
    }

    /// A session the-loop does not manage holds what the policy would not
    /// give it (counted with `--include-unmanaged`).
    pub fn has_unmanaged_drift(&self) -> bool {
        self.sessions
            .iter()
            .any(|s| s.action == HostAction::Unmanaged && !s.changes.is_empty())
    }

    /// The layer holds other than the policy: every session it starts or
    /// respawns would too.
    pub fn layer_drifts(&self) -> bool {
        self.layer
            .as_ref()
            .is_some_and(|l| !l.changes.is_empty() || l.unverified.is_some())
    }

    /// The plan of only the sessions `wanted` keeps (by label or id); the
    /// layer stays, since what it holds is what they get.
    pub fn restricted(mut self, wanted: impl Fn(&HostSessionPlan) -> bool) -> HostPlan {
        self.sessions.retain(wanted);
        self
    }
}

/// What of an earlier roll's journal the host still shows unsettled: a
/// stopped layer while none that holds the policy's runs, respawns of
/// sessions that are still not what the policy wants. `None` when nothing
/// is.
pub fn unfinished(host: &HostPlan, journal: HostRollJournal) -> Option<HostRollJournal> {
    let layer_settled = host.layer.is_some() && !host.layer_drifts();
    let unsettled = |id: &String| {
        host.sessions.iter().any(|s| {
            s.id == *id && matches!(s.action, HostAction::Respawn | HostAction::Unverified)
        })
    };
    let left = HostRollJournal {
        layer_stopped: journal.layer_stopped.filter(|_| !layer_settled),
        respawning: journal.respawning.into_iter().filter(unsettled).collect(),
        since: journal.since,
    };
    (!left.is_settled()).then_some(left)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(layer_drifts: bool, action: HostAction) -> HostPlan {
        let change = Change {
            name: "ANTHROPIC_API_KEY".into(),
            have: None,
            want: None,
            case: crate::events::roll::ChangeCase::Missing,
        };
        HostPlan {
            host: Host::ClaudeBackground,
            location: "/c".into(),
            layer: Some(LayerPlan {
                pid: 7,
                origin: None,
                version: None,
                changes: if layer_drifts {
                    vec![change]
                } else {
                    Vec::new()
                },
                unverified: None,
            }),
            sessions: vec![HostSessionPlan {
                id: "0123abcd".into(),
                reference: Some("r".into()),
                conversation: None,
                cwd: None,
                pid: Some(9),
                activity: HostActivity::Idle,
                action,
                apply_will: None,
                changes: Vec::new(),
                reason: None,
                open_with: "claude attach 0123abcd".into(),
            }],
            observation_failed: None,
            unfinished_roll: None,
        }
    }

    fn journal() -> HostRollJournal {
        HostRollJournal {
            since: "2026-12-06T10:00:00Z".into(),
            layer_stopped: Some(5),
            respawning: vec!["0123abcd".into(), "ffff0000".into()],
        }
    }

    #[test]
    fn an_unfinished_roll_is_said_as_far_as_the_host_still_shows_it() {
        // Layer replaced and the session rolled since: nothing is left.
        assert_eq!(unfinished(&host(false, HostAction::None), journal()), None);
        // The stopped layer's place taken by one of another's environment,
        // the session still drifted; a session no longer listed is not named.
        let left = unfinished(&host(true, HostAction::Respawn), journal()).unwrap();
        assert_eq!(left.layer_stopped, Some(5));
        assert_eq!(left.respawning, ["0123abcd"]);
        let left = unfinished(&host(false, HostAction::Unverified), journal()).unwrap();
        assert_eq!(left.layer_stopped, None);
        assert_eq!(left.respawning, ["0123abcd"]);
    }
}
