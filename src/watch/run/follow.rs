//! The record follows the conversation each harness is in, at every cycle:
//! a conversation a person began by typing the first prompt (Codex makes
//! its id then), or moved to (`/clear`, `/new`, an in-app `/resume`), is
//! written into the record as soon as watch sees it, not only when a roll
//! next touches the session. A record that names the conversation can be
//! resumed after its tmux server is gone; one that names none cannot.

use super::*;

impl Watch {
    /// Writes each moved conversation the plan saw into its record, for
    /// the sessions a roll would act on as their own (the same decision the
    /// roll makes before it follows one).
    pub(super) fn follow_conversations(&mut self, snapshot: &Snapshot) {
        for session in &snapshot.plan.sessions {
            let (Some(moved), Some(key)) = (&session.conversation_moved, &session.key) else {
                continue;
            };
            if session.reason.is_some() {
                continue;
            }
            let own =
                crate::plan::ownership::decide(&self.ctx.registry, session, &snapshot.observed)
                    .is_some_and(|(_, verdict)| verdict.is_ok());
            if !own {
                continue;
            }
            match crate::registry::follow::follow(&self.ctx.registry, key, &moved.to) {
                Ok(true) => tracing::info!(
                    "{}: the record follows conversation {} (was {})",
                    session.label(),
                    moved.to,
                    moved.from.as_deref().unwrap_or("none")
                ),
                Ok(false) => {}
                Err(why) => tracing::warn!(
                    "{}: cannot write conversation {} into the record ({why})",
                    session.label(),
                    moved.to
                ),
            }
        }
    }
}
