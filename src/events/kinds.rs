//! Every kind of event the log records. Each variant holds names, labels,
//! pids and fingerprints: never a value. The parts several variants share
//! are in [`super::parts`].

use super::parts::{
    CleanedCheckout, CleanedEndpoint, Dispatch, DriftedSession, Level, SessionOutcome, Subject,
    TerminateResult, UnverifiedSession, Verification,
};
use super::roll::RollCommand;
use crate::secret::Fingerprint;
use schemars::JsonSchema;
use serde::Serialize;
use std::path::PathBuf;

/// Everything the log records. The tag is the line's `event` field, with
/// the dotted names `docs/commands.md` and `docs/watch.md` list. Fields hold names,
/// labels, pids and fingerprints; never a value.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(tag = "event")]
pub enum Event {
    /// A roll (apply, a restart, or watch's) is about to touch sessions.
    #[serde(rename = "apply.started")]
    ApplyStarted {
        command: RollCommand,
        /// How many sessions the roll selected to act on.
        sessions: usize,
        /// How many sessions of the hosts beside tmux (`docs/hosts.md`)
        /// it is to respawn besides; absent when it rolls no such host.
        /// (Written as `background_sessions` before hosts shared one
        /// count.)
        #[serde(skip_serializing_if = "Option::is_none")]
        host_sessions: Option<usize>,
        /// The env file the roll's plan read; absent when none is
        /// configured. `the-loop history` shows what changed in it
        /// between one roll and the next from this and `env_fingerprints`.
        #[serde(skip_serializing_if = "Option::is_none")]
        env_file: Option<PathBuf>,
        /// Name → fingerprint of every value that file declared, as the
        /// plan read it: the state the roll rolls sessions onto.
        #[serde(skip_serializing_if = "Option::is_none")]
        env_fingerprints: Option<std::collections::BTreeMap<String, crate::secret::Shown>>,
    },
    /// A roll is over; each session's outcome.
    #[serde(rename = "apply.finished")]
    ApplyFinished {
        command: RollCommand,
        failed: bool,
        /// A signal stopped new respawns from starting.
        interrupted: bool,
        /// How long the roll took from its `apply.started`, in
        /// milliseconds, on the monotonic clock: unlike the two lines'
        /// `ts`, it does not move when the wall clock is set. Always written
        /// since issue 46; absent from lines written before.
        #[serde(skip_serializing_if = "Option::is_none")]
        duration_ms: Option<u64>,
        sessions: Vec<SessionOutcome>,
        /// What became of each host beside tmux the roll rolled (its
        /// layer and sessions); absent when it rolled none. (Lines written
        /// before hosts shared one list have `background_host`, one
        /// report of Claude Code's background host.)
        #[serde(skip_serializing_if = "Vec::is_empty")]
        hosts: Vec<super::host::HostRollReport>,
    },
    #[serde(rename = "session.spawned")]
    SessionSpawned {
        #[serde(flatten)]
        subject: Subject,
        /// Null for a harness that makes its own id (Codex) and had not
        /// begun a conversation when the start finished.
        harness_session_id: Option<String>,
        resumed: bool,
    },
    /// `the-loop import` took a harness a person started under management:
    /// the pane it runs in (`pane_id`), its pid, the conversation it is in
    /// and where that was read (`hooks`, `harness` or `argv`), the session it was in,
    /// and how its session got the record's name (`kept`, `renamed`,
    /// `moved`). Nothing was signalled.
    #[serde(rename = "session.imported")]
    SessionImported {
        #[serde(flatten)]
        subject: Subject,
        pid: i32,
        harness_session_id: String,
        conversation_from: String,
        from_session: String,
        naming: String,
    },
    /// A harness ended: by a roll (`pid`, `ending`), by a close (`panes`),
    /// or a close that did not end it (`result`, `reason`).
    #[serde(rename = "session.harness_terminated")]
    SessionHarnessTerminated {
        #[serde(flatten)]
        subject: Subject,
        #[serde(skip_serializing_if = "Option::is_none")]
        pid: Option<i32>,
        #[serde(skip_serializing_if = "Option::is_none")]
        ending: Option<super::roll::Ending>,
        #[serde(skip_serializing_if = "Option::is_none")]
        panes: Option<Vec<super::roll::PaneEnding>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        result: Option<TerminateResult>,
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// A session runs a harness again: after a roll (`verification`), a
    /// `standing start`, or a delivery's respawn (`boot_prompt`).
    #[serde(rename = "session.respawned")]
    SessionRespawned {
        #[serde(flatten)]
        subject: Subject,
        #[serde(flatten)]
        dispatch: Option<Dispatch>,
        #[serde(skip_serializing_if = "Option::is_none")]
        old_pid: Option<i32>,
        #[serde(skip_serializing_if = "Option::is_none")]
        new_pid: Option<i32>,
        resumed: Option<bool>,
        harness_session_id: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        verification: Option<Verification>,
        /// Why the environment could not be verified.
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        boot_prompt: Option<bool>,
    },
    /// A respawned process does not hold the desired environment.
    #[serde(rename = "env.verify_mismatch")]
    EnvVerifyMismatch {
        #[serde(flatten)]
        subject: Subject,
        old_pid: Option<i32>,
        new_pid: i32,
        resumed: bool,
        harness_session_id: Option<String>,
        changes: Vec<super::roll::Change>,
    },
    /// A respawned harness stopped at a screen that waits for a person.
    #[serde(rename = "session.blocked")]
    SessionBlocked {
        #[serde(flatten)]
        subject: Subject,
        /// The screen's name (never its text: the API-key dialog shows
        /// the end of the key).
        screen: String,
    },
    /// A session a roll did not touch because of its safe point.
    #[serde(rename = "session.deferred")]
    SessionDeferred {
        #[serde(flatten)]
        subject: Subject,
        reason: String,
    },
    #[serde(rename = "session.left_alone")]
    SessionLeftAlone {
        #[serde(flatten)]
        subject: Subject,
        reason: String,
    },
    #[serde(rename = "session.interrupted_respawn_completing")]
    SessionInterruptedRespawnCompleting {
        #[serde(flatten)]
        subject: Subject,
        since: String,
        old_pid: i32,
        harness_session_id: String,
    },
    #[serde(rename = "session.resume_failed")]
    SessionResumeFailed {
        #[serde(flatten)]
        subject: Subject,
        reason: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        resumed: Option<bool>,
        /// Whether a fresh conversation took over.
        fresh_started: bool,
    },
    #[serde(rename = "session.occupant_cleared")]
    SessionOccupantCleared {
        #[serde(flatten)]
        subject: Subject,
    },
    #[serde(rename = "session.spawn_collided")]
    SessionSpawnCollided {
        #[serde(flatten)]
        subject: Subject,
        round: usize,
    },
    #[serde(rename = "session.spawn_unverified")]
    SessionSpawnUnverified {
        #[serde(flatten)]
        subject: Subject,
    },
    #[serde(rename = "session.closed")]
    SessionClosed {
        #[serde(flatten)]
        subject: Subject,
    },
    #[serde(rename = "session.terminated")]
    SessionTerminated {
        #[serde(flatten)]
        subject: Subject,
    },
    #[serde(rename = "session.retained")]
    SessionRetained {
        #[serde(flatten)]
        subject: Subject,
        harness_ended: bool,
    },
    #[serde(rename = "session.reset")]
    SessionReset {
        #[serde(flatten)]
        subject: Subject,
        ended_live_session: bool,
        record_deleted: bool,
    },
    #[serde(rename = "session.cleaned")]
    SessionCleaned {
        #[serde(flatten)]
        subject: Subject,
        endpoints: Vec<CleanedEndpoint>,
        record_deleted: bool,
        checkouts: Vec<CleanedCheckout>,
    },
    #[serde(rename = "session.paused")]
    SessionPaused {
        #[serde(flatten)]
        subject: Subject,
    },
    #[serde(rename = "session.resumed")]
    SessionResumed {
        #[serde(flatten)]
        subject: Subject,
    },
    #[serde(rename = "session.pr_linked")]
    SessionPrLinked {
        #[serde(flatten)]
        subject: Subject,
        pull_request: String,
    },
    #[serde(rename = "cleanup.deferred")]
    CleanupDeferred {
        #[serde(flatten)]
        subject: Subject,
        reason: super::session::Deferral,
        actor: Option<String>,
    },
    #[serde(rename = "session.launch_args_dropped")]
    SessionLaunchArgsDropped {
        #[serde(flatten)]
        subject: Subject,
        dropped: super::session::Dropped,
    },
    #[serde(rename = "session.announced")]
    SessionAnnounced {
        #[serde(flatten)]
        subject: Subject,
    },
    #[serde(rename = "session.announce_skipped")]
    SessionAnnounceSkipped {
        #[serde(flatten)]
        subject: Subject,
        reason: String,
    },
    #[serde(rename = "session.announce_failed")]
    SessionAnnounceFailed {
        #[serde(flatten)]
        subject: Subject,
        reason: String,
    },
    #[serde(rename = "session.respawn_averted")]
    SessionRespawnAverted {
        #[serde(flatten)]
        subject: Subject,
        #[serde(flatten)]
        dispatch: Dispatch,
        reason: String,
    },
    #[serde(rename = "dispatch.dropped")]
    DispatchDropped {
        #[serde(flatten)]
        subject: Subject,
        #[serde(flatten)]
        dispatch: Dispatch,
        reason: String,
        level: Level,
    },
    #[serde(rename = "dispatch.skipped")]
    DispatchSkipped {
        #[serde(flatten)]
        subject: Subject,
        #[serde(flatten)]
        dispatch: Dispatch,
        reason: String,
    },
    #[serde(rename = "dispatch.suppressed")]
    DispatchSuppressed {
        #[serde(flatten)]
        subject: Subject,
        #[serde(flatten)]
        dispatch: Dispatch,
        reason: String,
    },
    #[serde(rename = "dispatch.failed")]
    DispatchFailed {
        #[serde(flatten)]
        subject: Subject,
        #[serde(flatten)]
        dispatch: Dispatch,
        reason: String,
    },
    #[serde(rename = "dispatch.delivered")]
    DispatchDelivered {
        #[serde(flatten)]
        subject: Subject,
        #[serde(flatten)]
        dispatch: Dispatch,
        route: super::session::Route,
    },
    /// `apply --scrub-tmux-env`: names unset from tmux's environments.
    #[serde(rename = "tmux_env.scrubbed")]
    TmuxEnvScrubbed {
        unset: Vec<super::roll::ScrubTarget>,
        remaining: Vec<super::roll::ScrubTarget>,
    },
    /// The harness's settings were prepared: a trusted workspace
    /// (`directories`) or an installed plugin (`plugin`).
    #[serde(rename = "workspace.trusted")]
    WorkspaceTrusted {
        #[serde(skip_serializing_if = "Option::is_none")]
        directories: Option<Vec<String>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        plugin: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        marketplace_repo: Option<String>,
        file: PathBuf,
        #[serde(skip_serializing_if = "Option::is_none")]
        bypass_accepted: Option<bool>,
    },
    #[serde(rename = "workspace.trust_failed")]
    WorkspaceTrustFailed {
        step: String,
        file: Option<PathBuf>,
        reason: String,
    },
    #[serde(rename = "web_terminal.started")]
    WebTerminalStarted {
        url: String,
        ttyd_pid: u32,
        pid: u32,
    },
    #[serde(rename = "web_terminal.stopped")]
    WebTerminalStopped {
        url: String,
        ttyd_pid: u32,
        pid: u32,
    },
    #[serde(rename = "watch.started")]
    WatchStarted {
        pid: u32,
        config: PathBuf,
        env_file: Option<PathBuf>,
        interval_seconds: u64,
        debounce_ms: u64,
        auto_apply: bool,
        metrics_listen: Option<std::net::SocketAddr>,
    },
    #[serde(rename = "watch.stopped")]
    WatchStopped { pid: u32, reason: String },
    #[serde(rename = "watch.error")]
    WatchError { error: String },
    /// Watch holds a drifted session back (reported once per change).
    #[serde(rename = "watch.held")]
    WatchHeld {
        #[serde(rename = "ref")]
        reference: Option<String>,
        standing: Option<String>,
        label: String,
        #[schemars(with = "serde_json::Value")]
        decision: super::roll::Decision,
        #[schemars(with = "String")]
        desired: Fingerprint,
    },
    #[serde(rename = "env.drift")]
    EnvDrift {
        count: usize,
        sessions: Vec<DriftedSession>,
        env_file: Option<PathBuf>,
        env_fingerprints: std::collections::BTreeMap<String, crate::secret::Shown>,
        #[schemars(with = "String")]
        desired: Fingerprint,
        fix_command: String,
        auto_apply: bool,
        rolling: usize,
    },
    #[serde(rename = "env.clean")]
    EnvClean {
        sessions: usize,
        #[schemars(with = "String")]
        desired: Fingerprint,
    },
    #[serde(rename = "env.unverified")]
    EnvUnverified { sessions: Vec<UnverifiedSession> },
}
