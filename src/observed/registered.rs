//! The registry as the observation holds it: every record read once, with
//! its key, its tmux name and what a respawn needs from it.

use crate::registry::{standing_tmux_name, CorruptRecord, RecordFacts, Registry, SessionKey};
use crate::secret::Fingerprint;

/// A session the registry says is the-loop's.
#[derive(Debug, Clone)]
pub struct ManagedSession {
    pub key: SessionKey,
    /// The tmux session name, normalised.
    pub tmux_target: String,
    /// The record's status is active or paused.
    pub record_live: bool,
    /// The record's status is active: not paused, not closed. Only such a
    /// session is "down" when its tmux session is gone.
    pub active: bool,
    pub record_fingerprint: Fingerprint,
    /// What a respawn needs from the record.
    pub facts: RecordFacts,
    /// The launch arguments the record stored, if it stored any (older
    /// records did not, and are never checked for argv drift).
    pub recorded_args: Option<crate::harness::LaunchArgs>,
    /// The pane the record names as its harness's (`tmuxPane`, written by
    /// `the-loop import`); `None` for a session the-loop started.
    pub pane: Option<String>,
    /// When the record was created and last saw an event, as stored
    /// (`the-loop top`'s age and last-event columns).
    pub created_at: Option<String>,
    pub last_event_at: Option<String>,
    /// [`SessionKey::label`], kept so targets and claims compare without
    /// formatting the ref again (set by [`ManagedSession::new`]).
    label: String,
}

impl ManagedSession {
    pub fn new(
        key: SessionKey,
        tmux_target: String,
        record_live: bool,
        record_fingerprint: Fingerprint,
        facts: RecordFacts,
        recorded_args: Option<crate::harness::LaunchArgs>,
    ) -> Self {
        ManagedSession {
            recorded_args,
            pane: None,
            created_at: None,
            last_event_at: None,
            label: key.label(),
            key,
            tmux_target,
            // Live records read as active until their status is given.
            active: record_live,
            record_live,
            record_fingerprint,
            facts,
        }
    }

    pub fn label(&self) -> &str {
        &self.label
    }

    /// The same session with the harness pane its record names.
    pub fn with_pane(mut self, pane: Option<String>) -> Self {
        self.pane = pane.filter(|p| p.starts_with('%'));
        self
    }

    /// The same session with the record's creation and last-event times
    /// and whether it is active.
    pub fn with_times(mut self, session: &crate::registry::record::SessionFields) -> Self {
        self.active = session.status == crate::registry::Status::Active;
        self.created_at = session.created_at.clone();
        self.last_event_at = session.last_event_at.clone();
        self
    }
}

/// Every registered session, with its tmux name resolved, plus the record
/// files that could not be parsed.
pub fn managed_sessions(registry: &Registry) -> (Vec<ManagedSession>, Vec<CorruptRecord>) {
    let items = registry.work_items();
    let standing = registry.standing();
    let mut sessions = Vec::new();
    for (_, record) in &items.records {
        // Listings only hold records whose ref parses.
        let Ok(r) = record.work_item_ref() else {
            continue;
        };
        let target = record
            .session
            .tmux_target()
            .unwrap_or_else(|| r.tmux_name());
        sessions.push(
            ManagedSession::new(
                SessionKey::WorkItem(r),
                target,
                record.session.is_live(),
                record_fingerprint(record),
                record.into(),
                record.launch.stored(),
            )
            .with_pane(record.session.tmux_pane.clone())
            .with_times(&record.session),
        );
    }
    for (_, record) in &standing.records {
        sessions.push(
            ManagedSession::new(
                SessionKey::Standing(record.name.clone()),
                record
                    .session
                    .tmux_target()
                    .unwrap_or_else(|| standing_tmux_name(&record.name)),
                record.session.is_live(),
                record_fingerprint(record),
                record.into(),
                record.launch.stored(),
            )
            .with_pane(record.session.tmux_pane.clone())
            .with_times(&record.session),
        );
    }
    let corrupt = items.corrupt.into_iter().chain(standing.corrupt).collect();
    (sessions, corrupt)
}

/// Lets a saved plan notice that a record changed since.
fn record_fingerprint<T: serde::Serialize>(record: &T) -> Fingerprint {
    Fingerprint::of(&serde_json::to_vec(record).unwrap_or_default())
}
