//! `status`: services, sessions, and whether the fleet has drifted, from one
//! observation and the same `plan::compute` that `plan` and `watch` call.
//! The text and JSON are `views::status`.

use crate::observed::{observe, FleetView, Probe, Wanted};
use crate::ops::Context;
use crate::plan::interrupted::left_behind;
use crate::plan::{compute, Action, Targets};
use crate::registry::journal::{InterruptedRespawn, Journal};
use crate::registry::resume_failures::ResumeFailures;
use serde::Serialize;

/// What `status` found about a session's environment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum EnvironmentState {
    /// It holds the desired environment.
    Clean,
    /// It differs from the desired environment; a restart fixes it.
    Stale,
    /// Its environment could not be read.
    Unverified,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct SessionFacts {
    #[serde(rename = "ref")]
    pub reference: Option<String>,
    pub standing: Option<String>,
    pub tmux_target: String,
    pub probe: Probe,
    /// Null when no env file is configured, or the session is not running.
    pub environment: Option<EnvironmentState>,
    pub stale_names: Vec<String>,
    /// Set when an earlier roll ended this session's harness and never
    /// respawned it; `apply` completes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interrupted_respawn: Option<InterruptedRespawn>,
    /// With `interrupted_respawn`: when a roll respawned the pane and its
    /// harness exited at once, unable to resume the conversation. `apply`
    /// leaves it alone until it is restarted by name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resume_exited_at: Option<String>,
    /// Why a roll would hold this stale session for now, and since when:
    /// "busy since …", "waiting since …", "attached (N clients)", or what
    /// its screen shows in `plan`'s words ("busy: its screen shows a
    /// running turn or shell command", "held: a prompt is being written").
    /// Null when a roll would take it at once, or it is not stale.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub held: Option<String>,
}

impl SessionFacts {
    /// How a person or a `--target` names this session.
    pub fn label(&self) -> &str {
        self.reference
            .as_deref()
            .or(self.standing.as_deref())
            .unwrap_or(&self.tmux_target)
    }
}

/// `status --json` (schema: `schemas/status.schema.json`).
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct StatusReport {
    /// "1"; bumped only when a field changes meaning or goes away.
    pub format_version: &'static str,
    /// The tmux version the preflight found.
    pub tmux_version: String,
    /// Why tmux did not answer the pane listing; null when it answered.
    /// Every session's probe is then "unknown": not absent, not running.
    pub tmux_unanswered: Option<String>,
    /// Every service this build knows; only enabled ones decide the exit code.
    pub services: Vec<crate::services::Service>,
    pub sessions: Vec<SessionFacts>,
    /// Running sessions whose environment is stale.
    pub stale_sessions: usize,
    /// Sessions an interrupted roll left dead or gone.
    pub interrupted_respawns: usize,
    /// The command that fixes them, when there are any.
    pub fix_command: Option<&'static str>,
    /// Each host beside tmux that `routing.hosts` names (Claude Code's
    /// background sessions), when the env file can be read; absent
    /// otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<HostStatus>,
}

/// A host beside tmux at a glance (`docs/hosts.md`).
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct HostStatus {
    /// The host, as `routing.hosts` names it.
    pub host: crate::host_kind::Host,
    /// Sessions the-loop manages there.
    pub managed: usize,
    /// Of those, how many have a worker running.
    pub running: usize,
    /// Of those, how many hold other than the env file says.
    pub stale: usize,
    /// The host's layer (Claude Code's daemon) holds other than the env
    /// file says (every session it starts or respawns would too); false
    /// when none runs.
    pub layer_stale: bool,
    /// Why the host could not be read; null when it was.
    pub unreadable: Option<String>,
}

/// [`HostStatus`] from the host's plan.
fn host_status(host: &crate::plan::host::HostPlan) -> HostStatus {
    use crate::plan::host::HostAction;
    let managed: Vec<_> = host
        .sessions
        .iter()
        .filter(|s| s.action != HostAction::Unmanaged && s.reference.is_some())
        .collect();
    HostStatus {
        host: host.host,
        managed: managed.len(),
        running: managed.iter().filter(|s| s.pid.is_some()).count(),
        stale: managed
            .iter()
            .filter(|s| s.action == HostAction::Respawn)
            .count(),
        layer_stale: host.layer_drifts(),
        unreadable: host.observation_failed.clone(),
    }
}

impl StatusReport {
    /// Every enabled service runs: what `status`'s exit code says.
    pub fn all_running(&self) -> bool {
        self.services
            .iter()
            .filter(|s| s.enabled)
            .all(|s| s.running)
    }
}

/// What `status` suggests for stale sessions: `apply`, as `plan` and the
/// README say, which respawns only the drifted ones (`sessions restart
/// --all` would respawn the healthy ones too).
pub const FIX_COMMAND: &str = "the-loop apply";

/// Why a roll with `apply`'s defaults would hold a drifted session: its
/// hooks' turn (since when), a client attached, then what its screen
/// shows, in `plan`'s words ([`crate::plan::screen::held_words`]).
fn held_words(planned: &crate::plan::SessionPlan) -> Option<String> {
    use crate::plan::safe_point::{safe_point, Drain};
    use crate::plan::SafePoint;
    if planned.activity.in_turn() {
        return Some(match &planned.busy_since {
            Some(since) => format!("{} since {since}", planned.activity),
            None => planned.activity.to_string(),
        });
    }
    if planned.attached > 0 {
        return Some(format!("attached ({} client(s))", planned.attached));
    }
    match safe_point(planned, planned.activity, &Drain::default()) {
        SafePoint::WaitBusy | SafePoint::WaitWaiting | SafePoint::WaitScreen => planned
            .screen
            .and_then(crate::plan::screen::held_words)
            .map(str::to_owned),
        SafePoint::WaitUnknown => Some(crate::plan::screen::UNKNOWN_WORDS.to_owned()),
        SafePoint::RollNow | SafePoint::LeaveAttached | SafePoint::LeaveEnded => None,
    }
}

/// Observes the fleet once and reports it. Prints nothing.
pub fn status(ctx: &Context) -> StatusReport {
    let services = crate::services::all(&ctx.config);
    // Drift is reported only when it was observed: no env file, an unreadable
    // one, or unreadable sessions add nothing.
    let policy = match &ctx.config.env.file {
        None => None,
        Some(_) => match crate::desired::load_policy(&ctx.config, true) {
            Ok(policy) => Some(policy),
            Err(err) => {
                tracing::warn!("env file not usable, so drift is not checked: {err}");
                None
            }
        },
    };
    // Without a policy there is nothing to compare, so no environment is
    // read; status reports no residue, so tmux's layers are not read.
    let observed = observe(
        &ctx.registry,
        &ctx.tmux,
        &Wanted {
            environments: policy.is_some(),
            ..Wanted::default()
        },
    );
    // The same computation as `plan`'s, and the same one batch of looks at
    // the screens: a `!` command or a draft holds a roll as in `plan`.
    // Status says why a stale session is held, and of no other: it looks
    // where the plan looks.
    let plan = policy.as_ref().map(|p| {
        let mut plan = compute(p, &observed, &Targets::all());
        crate::plan::gather::annotate_screens(
            &mut plan,
            &ctx.tmux,
            &observed,
            crate::plan::gather::Looks::Roll(crate::plan::safe_point::Mode::Apply),
        );
        plan
    });
    let journal = Journal::under(&ctx.config.state_root).entries();
    let failures = ResumeFailures::under(&ctx.config.state_root);
    let sessions: Vec<SessionFacts> = observed
        .sessions
        .iter()
        .map(|s| {
            let planned = plan.as_ref().and_then(|p| {
                p.sessions
                    .iter()
                    .find(|ps| ps.tmux_target == s.tmux_target && ps.label() == s.label())
            });
            let (reference, standing) = s.key.ref_and_standing();
            let probe = observed.fleet.probe(&s.tmux_target);
            let pane = observed.fleet.harness_pane(&s.tmux_target);
            let interrupted_respawn = journal
                .iter()
                .find(|e| {
                    e.tmux_target == s.tmux_target
                        && e.reference == reference
                        && e.standing == standing
                })
                .filter(|e| left_behind(e, probe, pane.map(|p| p.pane_id.as_str())).is_some())
                .map(|e| InterruptedRespawn {
                    pane_id: e.pane_id.clone(),
                    harness_session_id: e.harness_session_id.clone(),
                    since: e.since.clone(),
                });
            let resume_exited_at = interrupted_respawn.as_ref().and_then(|i| {
                let failure = failures.load(&s.tmux_target)?;
                let holds = failure.holds_for(
                    reference.as_deref(),
                    standing.as_deref(),
                    &i.harness_session_id,
                );
                holds.then_some(failure.at)
            });
            SessionFacts {
                resume_exited_at,
                held: planned
                    .filter(|p| p.action == Action::Respawn)
                    .and_then(held_words),
                interrupted_respawn,
                reference,
                standing,
                tmux_target: s.tmux_target.clone(),
                probe,
                // About the environment only: launch-argument drift alone
                // leaves it clean.
                environment: planned.and_then(|p| match p.action {
                    Action::Respawn | Action::None if !p.changes.is_empty() => {
                        Some(EnvironmentState::Stale)
                    }
                    Action::Respawn | Action::None => Some(EnvironmentState::Clean),
                    Action::Skip if p.is_unverified() => Some(EnvironmentState::Unverified),
                    Action::Skip | Action::Resume => None,
                }),
                stale_names: planned
                    .map(|p| p.changes.iter().map(|c| c.name.clone()).collect())
                    .unwrap_or_default(),
            }
        })
        .collect();
    let stale = sessions
        .iter()
        .filter(|s| s.environment == Some(EnvironmentState::Stale))
        .count();
    let interrupted = sessions
        .iter()
        .filter(|s| s.interrupted_respawn.is_some())
        .count();
    StatusReport {
        format_version: "1",
        tmux_version: ctx.tmux_version.clone(),
        tmux_unanswered: match &observed.fleet {
            FleetView::Unknown(reason) => Some(reason.clone()),
            FleetView::Answered(_) => None,
        },
        services,
        sessions,
        stale_sessions: stale,
        interrupted_respawns: interrupted,
        fix_command: (stale > 0).then_some(FIX_COMMAND),
        hosts: policy
            .as_ref()
            .map(|p| {
                crate::hosts::beside_tmux(&ctx.config)
                    .filter_map(|host| host.look(&ctx.config, p))
                    .map(|look| host_status(&look.plan))
                    .collect()
            })
            .unwrap_or_default(),
    }
}
