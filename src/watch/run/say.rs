//! What the watch loop tells the operator about drift and unverified
//! sessions: once per change, not once per interval (the signatures in `Said`).

use super::*;
use crate::events::{DriftedSession, UnverifiedSession};
use crate::plan::ObservationFailure;
use serde_json::json;

impl Watch {
    pub(super) fn say_drift(
        &mut self,
        snapshot: &Snapshot,
        desired: Fingerprint,
        drifted: &[&SessionPlan],
        rolling: Option<usize>,
    ) {
        let plan = &snapshot.plan;
        if plan.observation_failed.is_some() {
            // Blind is neither drift nor clean: no "no drift" line, no
            // `env.clean` event; `say_unverified` names the cause.
            return;
        }
        let signature = (!drifted.is_empty()).then(|| {
            let canonical: Vec<_> = drifted
                .iter()
                .map(|s| json!([s.label(), s.changes, s.args_changes]))
                .collect();
            Fingerprint::of(json!([desired, canonical]).to_string().as_bytes())
        });
        if self.said.drift == Some(signature) {
            return;
        }
        match signature {
            Some(_) => {
                tracing::warn!(
                    "{}",
                    report::drift_line(drifted, &plan.env_fingerprints, rolling)
                );
                let sessions = drifted
                    .iter()
                    .map(|s| DriftedSession {
                        reference: s.reference.clone(),
                        standing: s.standing.clone(),
                        tmux_target: s.tmux_target.clone(),
                        changes: s.changes.clone(),
                        args_changes: s.args_changes.clone(),
                    })
                    .collect();
                self.ctx.events.emit(Event::EnvDrift {
                    count: drifted.len(),
                    sessions,
                    env_file: plan.env_file.clone(),
                    env_fingerprints: plan.env_fingerprints.clone(),
                    desired,
                    fix_command: report::FIX_COMMAND.into(),
                    auto_apply: rolling.is_some(),
                    rolling: rolling.unwrap_or(0),
                });
            }
            None => {
                let observed = plan
                    .sessions
                    .iter()
                    .filter(|s| s.action == Action::None)
                    .count();
                tracing::info!(
                    "no drift: {observed} running session(s) hold the desired environment"
                );
                if matches!(self.said.drift, Some(Some(_))) {
                    self.ctx.events.emit(Event::EnvClean {
                        sessions: observed,
                        desired,
                    });
                }
            }
        }
        self.said.drift = Some(signature);
    }

    /// `blind`: tmux failed or did not answer, which is why they are
    /// unverified; said with its cause, once, not once per session.
    pub(super) fn say_unverified(
        &mut self,
        unverified: &[&SessionPlan],
        blind: Option<&ObservationFailure>,
    ) {
        let signature = (!unverified.is_empty()).then(|| {
            let canonical: Vec<_> = unverified
                .iter()
                .map(|s| json!([s.label(), s.reason]))
                .collect();
            Fingerprint::of(json!(canonical).to_string().as_bytes())
        });
        if signature == self.said.unverified {
            return;
        }
        if signature.is_some() {
            match blind {
                Some(failed) => tracing::warn!("{failed}; watch will not roll them"),
                None => tracing::warn!("{}", report::unverified_line(unverified)),
            }
            let sessions = unverified
                .iter()
                .map(|s| UnverifiedSession {
                    reference: s.reference.clone(),
                    standing: s.standing.clone(),
                    tmux_target: s.tmux_target.clone(),
                    reason: s.reason.as_ref().map(ToString::to_string),
                })
                .collect();
            self.ctx.events.emit(Event::EnvUnverified { sessions });
        }
        self.said.unverified = signature;
    }
}
