//! Plan computation: a pure function of the policy and one observation.
//! Environment drift, launch-argument drift and residue are decided here,
//! in one pass; nothing is read and nothing is recounted afterwards.

use super::model::*;
use super::residue::Residue;
use crate::desired::policy::Policy;
use crate::observed::residue::ResidueView;
pub use crate::observed::ManagedSession;
use crate::observed::{EnvRead, FleetView, Observation, Probe};
use crate::registry::SessionKey;
use std::collections::{BTreeMap, BTreeSet};

/// Which sessions a command is about: all when empty, otherwise those whose
/// ref, standing name or tmux session name is listed.
#[derive(Debug, Clone, Default)]
pub struct Targets(pub Vec<String>);

impl Targets {
    pub fn all() -> Self {
        Targets(Vec::new())
    }

    pub fn is_all(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether a target names `label` (a session of a host beside tmux,
    /// by its ref or its host's id for it).
    pub fn names(&self, label: &str) -> bool {
        self.0.iter().any(|t| t == label)
    }

    pub fn selects(&self, session: &ManagedSession) -> bool {
        self.is_all()
            || self
                .0
                .iter()
                .any(|t| t == session.label() || *t == session.tmux_target)
    }
}

pub fn compute(policy: &Policy, observation: &Observation, targets: &Targets) -> Plan {
    let Observation {
        sessions, fleet, ..
    } = observation;
    // Which record claims each tmux name comes first, in the records'
    // order; then each selected session is planned on its own, split
    // across the cores (at 500 sessions this is about 3 ms on one).
    let mut claimed: BTreeMap<&str, &str> = BTreeMap::new();
    let selected: Vec<(&ManagedSession, &str)> = sessions
        .iter()
        .filter_map(|session| {
            let first_claim = *claimed
                .entry(&session.tmux_target)
                .or_insert(session.label());
            targets.selects(session).then_some((session, first_claim))
        })
        .collect();
    let mut plans = crate::parallel::map(&selected, PLANS_PER_THREAD, |(session, first_claim)| {
        plan_selected(policy, session, first_claim, observation)
    });
    if targets.is_all() {
        if let FleetView::Answered(fleet) = fleet {
            let managed: BTreeSet<&str> = sessions.iter().map(|s| s.tmux_target.as_str()).collect();
            for name in fleet.session_names().filter(|n| !managed.contains(n)) {
                let mut plan = unmanaged(
                    name,
                    fleet.harness_pane(name).map(|p| (p.pane_id.clone(), p.pid)),
                    fleet.probe(name),
                );
                plan.attached = fleet.attached(name);
                plans.push(plan);
            }
        }
    }
    let summary = summarise(&plans);
    let residue = residue(policy, observation, &plans);
    let unmanaged_harnesses = if targets.is_all() {
        super::unmanaged::compare(policy, observation)
    } else {
        Vec::new()
    };
    let observation_failed = unseen(fleet, &plans, super::down::server_down(observation));
    Plan {
        unmanaged_harnesses,
        hosts: Vec::new(),
        unmanaged_counted: false,
        format_version: FORMAT_VERSION.into(),
        env_file: policy.env_file().map(|f| f.path.clone()),
        candidate_for: None,
        env_fingerprints: policy.file_fingerprints(),
        fingerprints: policy.fingerprinter().label(),
        withheld_seal: policy.withheld_seal(),
        fingerprints_changed_from: None,
        sessions: plans,
        down: super::down::down(observation, &|s| targets.selects(s)),
        tmux_server: None,
        delivered_by_helper: [crate::harness::hooks::HELPER_DELIVERED]
            .into_iter()
            .filter(|name| policy.helper_value(name).is_some())
            .map(String::from)
            .collect(),
        tmux_unanswered: match fleet {
            FleetView::Unknown(reason) => Some(reason.clone()),
            FleetView::Answered(_) => None,
        },
        observation_failed,
        corrupt_records: observation
            .corrupt
            .iter()
            .cloned()
            .map(CorruptRecordNote::from)
            .collect(),
        summary,
        residue,
    }
}

/// The managed sessions tmux gave no state for, and why: a blind plan is
/// an error, never a clean one.
fn unseen(
    fleet: &FleetView,
    plans: &[SessionPlan],
    server_down: bool,
) -> Option<ObservationFailure> {
    let cause = match fleet {
        FleetView::Unknown(cause) => cause,
        FleetView::Answered(_) if server_down => SERVER_DOWN,
        FleetView::Answered(_) => return None,
    };
    let sessions: Vec<String> = plans
        .iter()
        .filter(|s| s.is_unseen() || (server_down && s.is_unverified()))
        .map(|s| s.label().to_owned())
        .collect();
    (!sessions.is_empty()).then(|| ObservationFailure {
        cause: cause.to_owned(),
        sessions,
    })
}

/// Why a live record's session is unverified when no tmux server runs on
/// the socket the plan asked (the plan's header names it).
const SERVER_DOWN: &str = "no tmux server runs on the socket this plan asked";

/// Fewer sessions than this are not worth a thread of their own.
const PLANS_PER_THREAD: usize = 64;

/// One selected session's plan: its environment and launch arguments
/// against the policy, unless another record claimed its tmux name first.
fn plan_selected(
    policy: &Policy,
    session: &ManagedSession,
    first_claim: &str,
    observation: &Observation,
) -> SessionPlan {
    let mut plan = plan_managed(policy, session, observation);
    if first_claim != session.label() && plan.action != Action::Skip {
        // Two records can alias one tmux name (`.` and `_` both become `_`);
        // only the first may act on it.
        plan = skipped(
            plan,
            Reason::AlreadyClaimed {
                by: first_claim.to_owned(),
            },
        );
    }
    if plan.action != Action::Skip {
        // Only a session whose environment was read is compared, so
        // only argv of the-loop's own panes is looked at.
        let argv = plan
            .pane_pid
            .and_then(|pid| observation.processes.get(&pid)?.argv.as_ref());
        // A harness the-loop cannot host has no launch of ours to read.
        let harness = crate::harness::by_name(&session.facts.harness);
        if let (Some(harness), Some(recorded), Some(argv)) = (harness, &session.recorded_args, argv)
        {
            plan.args_changes = super::args::drift(harness, recorded, argv, policy.models());
        }
        if let (Some(harness), Some(EnvRead::Read(env))) =
            (harness, plan.pane_pid.and_then(|pid| observation.env(pid)))
        {
            plan.args_changes
                .extend(key_helper_drift(policy, harness, env));
        }
        if !plan.args_changes.is_empty() {
            plan.action = Action::Respawn;
        }
    }
    plan
}

/// A harness that takes its key from the-loop's helper, launched before
/// the env file delivered the key that way: its settings layer has no
/// `apiKeyHelper`, so it would go on without the key (or with the one it
/// was launched with) until relaunched.
fn key_helper_drift(
    policy: &Policy,
    harness: &dyn crate::harness::Harness,
    env: &crate::observed::ProcessEnv,
) -> Option<super::ArgsChange> {
    let wanted = harness.uses_key_helper()
        && policy
            .helper_value(crate::harness::hooks::HELPER_DELIVERED)
            .is_some();
    let has = env.get(crate::harness::hooks::VAR_KEY_HELPER).is_some();
    (wanted && !has).then(|| super::ArgsChange {
        name: super::ArgsField::KeyHelper,
        have: Vec::new(),
        want: vec!["the-loop api-key-helper".to_owned()],
        dropped: None,
    })
}

/// Residue in tmux's layers and in detached processes, when they were read.
/// Only the planned managed sessions' own environments count.
fn residue(policy: &Policy, observation: &Observation, plans: &[SessionPlan]) -> Option<Residue> {
    let mut view = observation.residue.clone()?;
    if let ResidueView::Observed(layers) = &mut view {
        let planned: BTreeSet<&str> = plans
            .iter()
            .filter(|s| s.kind != SessionKind::Unmanaged)
            .filter(|s| matches!(s.probe, Probe::Live | Probe::Dead))
            .map(|s| s.tmux_target.as_str())
            .collect();
        layers.sessions.retain(|s, _| planned.contains(s.as_str()));
        layers
            .unobserved_sessions
            .retain(|s| planned.contains(s.as_str()));
    }
    let mut residue = match &observation.fleet {
        FleetView::Unknown(reason) => {
            return Some(Residue::not_asked(&format!(
                "the pane listing failed ({reason})"
            )))
        }
        FleetView::Answered(_) => super::residue::compare(policy, &view),
    };
    residue.detached = observation
        .detached
        .as_deref()
        .map(|found| super::detached::compare(policy, found))
        .unwrap_or_default();
    Some(residue)
}

/// The conversation is the one the person is in: when the live harness
/// (this pid, this start) last reported another id than the record's
/// (through the-loop's hooks, or for an imported harness in its own word), the
/// plan carries that id as the one to resume, and says it moved.
fn follow_conversation(
    mut plan: SessionPlan,
    harness: Option<i32>,
    observation: &Observation,
) -> SessionPlan {
    let reported = harness
        .and_then(|pid| super::unmanaged::conversation_said(observation, pid).ok())
        .flatten()
        .map(str::to_owned);
    if let (Some(to), Some(record)) = (reported, plan.record.as_mut()) {
        if record.session_id.as_deref() != Some(to.as_str()) {
            let from = record.session_id.replace(to.clone());
            plan.conversation_moved = Some(super::model::ConversationMoved { from, to });
        }
    }
    plan
}

fn plan_managed(
    policy: &Policy,
    session: &ManagedSession,
    observation: &Observation,
) -> SessionPlan {
    let Observation { fleet, .. } = observation;
    let probe = fleet.probe(&session.tmux_target);
    let pane = fleet.harness_pane(&session.tmux_target);
    // The live harness's pid: the pane's own process, or the harness
    // beneath the shell of a pane `the-loop import` adopted.
    let harness = pane
        .filter(|p| !p.dead)
        .and_then(|p| observation.harness_pid(p.pid));
    let beneath = pane.filter(|p| observation.beneath.contains_key(&p.pid));
    let (reference, standing) = session.key.ref_and_standing();
    let kind = match session.key {
        SessionKey::WorkItem(_) => SessionKind::WorkItem,
        SessionKey::Standing(_) => SessionKind::Standing,
    };
    let base = SessionPlan {
        reference,
        standing,
        pane_id: pane.map(|p| p.pane_id.clone()),
        pane_pid: match beneath {
            Some(_) => harness,
            None => pane.map(|p| p.pid),
        },
        pane_process: beneath.map(|p| p.pid),
        attached: fleet.attached(&session.tmux_target),
        activity: harness
            .and_then(|pid| observation.activities.get(&pid))
            .map(|a| a.activity)
            .unwrap_or_default(),
        busy_since: harness
            .and_then(|pid| observation.activities.get(&pid))
            .and_then(|a| a.busy_since_ms())
            .map(|ms| crate::clock::format_utc(ms / 1000)),
        record_fingerprint: Some(session.record_fingerprint),
        key: Some(session.key.clone()),
        record: Some(session.facts.clone()),
        ..SessionPlan::new(kind, session.tmux_target.clone(), probe)
    };
    let base = follow_conversation(base, harness, observation);
    if !session.record_live {
        return skipped(base, Reason::RecordClosed);
    }
    match probe {
        Probe::Absent if super::down::server_down(observation) => {
            let why = SERVER_DOWN.into();
            return skipped(base, Reason::Unverified { why });
        }
        Probe::Absent | Probe::Dead => return skipped(base, Reason::NotRunning),
        Probe::Unknown => {
            // The cause as it was met (tmux's own words, the timeout), never
            // a generic "tmux did not answer" for a command tmux refused.
            let why = match fleet {
                FleetView::Unknown(cause) => cause.clone(),
                FleetView::Answered(_) => "tmux did not answer".into(),
            };
            return skipped(base, Reason::Unverified { why });
        }
        Probe::Live => {}
    }
    let Some(pane) = pane.filter(|p| !p.dead) else {
        let reason = match fleet {
            FleetView::Answered(f) => match f.find_harness_pane(&session.tmux_target) {
                Err(why) => Reason::NoHarnessPane {
                    why: why.to_string(),
                },
                Ok(_) => Reason::PaneExited,
            },
            FleetView::Unknown(_) => Reason::PaneExited,
        };
        return skipped(base, reason);
    };
    let Some(harness) = harness else {
        let why = format!(
            "pane {}, which `the-loop import` adopted, runs no harness of its own beneath its shell, or more than one",
            pane.pane_id
        );
        return skipped(base, Reason::NoHarnessPane { why });
    };
    match observation.env(harness) {
        Some(EnvRead::Read(env)) => {
            if let Some(why) = held_by_another(&session.key, env) {
                return SessionPlan {
                    observation: EnvReading::Read,
                    ..skipped(base, why)
                };
            }
            let changes = policy.diff(&policy.desired_for(&session.key), env);
            let action = if changes.is_empty() {
                Action::None
            } else {
                Action::Respawn
            };
            SessionPlan {
                action,
                observation: EnvReading::Read,
                changes,
                ..base
            }
        }
        Some(EnvRead::Unverified(reason)) => skipped(
            base,
            Reason::Unverified {
                why: reason.clone(),
            },
        ),
        None => skipped(
            base,
            Reason::Unverified {
                why: "environment not read".into(),
            },
        ),
    }
}

/// Why the pane must be left alone when it runs another session's harness
/// (its `THE_LOOP_WORK_ITEM` names another work item): the first half of
/// [`crate::observed::ownership`]; the rest is judged with resumability
/// ([`super::ownership::decide`]), so a drift there is still shown.
fn held_by_another(key: &SessionKey, env: &crate::observed::ProcessEnv) -> Option<Reason> {
    use crate::observed::ownership::{held_by_another, Found};
    let held = env.get(crate::desired::policy::VAR_WORK_ITEM)?;
    match held_by_another(key, held.expose_bytes())? {
        Found::HeldByAnother { named, standing } => Some(Reason::HeldByAnother { named, standing }),
        _ => None,
    }
}

fn skipped(plan: SessionPlan, reason: Reason) -> SessionPlan {
    SessionPlan {
        action: Action::Skip,
        reason: Some(reason),
        ..plan
    }
}

fn unmanaged(name: &str, pane: Option<(String, i32)>, probe: Probe) -> SessionPlan {
    SessionPlan {
        pane_id: pane.as_ref().map(|p| p.0.clone()),
        pane_pid: pane.map(|p| p.1),
        action: Action::Skip,
        reason: Some(Reason::Unmanaged),
        ..SessionPlan::new(SessionKind::Unmanaged, name.to_owned(), probe)
    }
}

/// The counts of a plan's sessions by what will happen to them.
pub fn summarise(plans: &[SessionPlan]) -> Summary {
    let mut summary = Summary::default();
    for plan in plans {
        match (&plan.kind, plan.action) {
            (SessionKind::Unmanaged, _) => summary.unmanaged += 1,
            (_, Action::Respawn | Action::Resume) if plan.left_alone.is_some() => {
                summary.left_alone += 1
            }
            (_, Action::Respawn) => summary.respawn += 1,
            (_, Action::Resume) => summary.resume += 1,
            (_, Action::None) => summary.up_to_date += 1,
            (_, Action::Skip) if plan.is_unverified() => summary.unverified += 1,
            (_, Action::Skip) => summary.skipped += 1,
        }
    }
    summary
}
