//! What the watch loop tells the operator about drift and unverified
//! sessions: once per change, not once per interval (the signatures in `Said`).

use super::*;

impl Watch {
    pub(super) fn say_drift(
        &mut self,
        snapshot: &Snapshot,
        desired: Fingerprint,
        drifted: &[&SessionPlan],
        rolling: Option<usize>,
    ) {
        let plan = &snapshot.plan;
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
                let sessions: Vec<_> = drifted
                    .iter()
                    .map(|s| json!({"ref": s.reference, "standing": s.standing, "tmux_target": s.tmux_target, "changes": s.changes, "args_changes": s.args_changes}))
                    .collect();
                self.ctx.events.emit(
                    "env.drift",
                    json!({
                        "count": drifted.len(),
                        "sessions": sessions,
                        "env_file": plan.env_file,
                        "env_fingerprints": plan.env_fingerprints,
                        "desired": desired,
                        "fix_command": report::FIX_COMMAND,
                        "auto_apply": rolling.is_some(),
                        "rolling": rolling.unwrap_or(0),
                    }),
                );
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
                    self.ctx.events.emit(
                        "env.clean",
                        json!({"sessions": observed, "desired": desired}),
                    );
                }
            }
        }
        self.said.drift = Some(signature);
    }

    pub(super) fn say_unverified(&mut self, unverified: &[&SessionPlan]) {
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
            tracing::warn!("{}", report::unverified_line(unverified));
            let sessions: Vec<_> = unverified
                .iter()
                .map(|s| json!({"ref": s.reference, "standing": s.standing, "tmux_target": s.tmux_target, "reason": s.reason}))
                .collect();
            self.ctx
                .events
                .emit("env.unverified", json!({"sessions": sessions}));
        }
        self.said.unverified = signature;
    }
}
