//! The `watch` loop: the imperative shell around [`super::decide`] and
//! [`super::report`]. It waits for a change to the env file or the config
//! (debounced), or for the interval, then runs one cycle: re-read, plan,
//! report what changed, and with auto-apply roll what may be rolled.
//!
//! Import circle: `run.rs` ↔ `run/wait.rs`, `run/service.rs`. The wait
//! between cycles and the plan with its status for the service manager read
//! the loop's own state (`use super::*`), and the loop goes through them
//! (and keeps a `service::Status`); they are files of their own only for
//! size.

use super::debounce::Debouncer;
use super::decide::{self, assess, desired_fingerprint, Assessment, Decision, Drifted};
use super::memory::Memory;
use super::metrics::Metrics;
use super::metrics_server;
use super::reconcile::{self, Snapshot};
use super::report;
use super::sd_notify::Notifier;
use crate::apply::lock::LockError;
use crate::apply::report::Report;
use crate::apply::report::Stop;
use crate::apply::{interrupt, Outcome, SessionReport};
use crate::desired::DesiredError;
use crate::events::Event;
use crate::ops::apply::ApplyError;
use crate::ops::Context;
use crate::plan::{Action, SessionKind, SessionPlan};
use crate::secret::Fingerprint;
use crate::services::watch_lock::WatchGuard;
use notify::event::{AccessKind, AccessMode};
use notify::{EventKind, RecursiveMode, Watcher};
use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

mod follow;
mod hold;
mod hosts;
mod revive;
mod rolled;
mod say;
mod service;
mod settle;
mod wait;

use wait::Wake;

/// How soon watch looks again (a whole cycle: one tmux listing, one batch
/// of screen captures) while it holds a session. An Escape mid-turn, the
/// end of a `!` command, a closed menu, a sent draft and a detach fire no
/// hook: only a fresh look sees them. Two seconds between looks, plus the
/// plan's own time and the roll's second look [`crate::plan::screen::LOOKS_APART`]
/// later for an interrupted turn, rolls such a session within five seconds
/// of the event. Nothing held, no such wake-up: an idle watch sleeps.
const HELD_RELOOK: Duration = Duration::from_secs(2);

/// How soon to try again when a manual apply holds the apply lock.
const LOCK_RETRY: Duration = Duration::from_secs(5);

#[derive(Debug, Clone)]
pub struct WatchOptions {
    pub config: Option<PathBuf>,
    pub interval: Duration,
    pub debounce: Duration,
    /// `--apply`; `env.autoApply` in the config also turns rolling on.
    pub apply: bool,
    pub parallelism: usize,
    /// `--metrics-listen`: where to serve Prometheus metrics, if anywhere.
    pub metrics_listen: Option<SocketAddr>,
    /// `--start-down`: bring back active sessions whose tmux session is gone.
    pub start_down: bool,
}

/// What has been said already, so each thing is said once per change.
#[derive(Default)]
struct Said {
    /// `None` until the first cycle has said whether there is drift.
    drift: Option<Option<Fingerprint>>,
    unverified: Option<Fingerprint>,
    problem: Option<String>,
    lock_busy: bool,
    fs_trouble: BTreeSet<String>,
    /// The lines last said of the sessions held for their safe point,
    /// each naming its session, why it is held and when it is rolled.
    held: BTreeSet<String>,
}

struct Watch {
    options: WatchOptions,
    config_path: PathBuf,
    state_root: PathBuf,
    ctx: Context,
    memory: Memory,
    said: Said,
    files: BTreeSet<PathBuf>,
    dirs: BTreeSet<PathBuf>,
    fs: Option<notify::RecommendedWatcher>,
    /// Re-plan at once: a roll just finished, so say whether it cleaned the fleet.
    recheck: bool,
    retry_at: Option<Instant>,
    /// Kept whether or not they are served: updating them is cheap.
    metrics: Metrics,
    /// Harness pids a roll deferred because their turn was running: a
    /// write to the activity directory that shows one of them idle runs a
    /// cycle at once (see `wait::Watch::turn_ended`).
    in_turn: BTreeSet<i32>,
    /// The last cycle that planned held a session for its safe point (or
    /// its roll deferred one): the loop looks again every
    /// `HELD_RELOOK`. A cycle that could not plan leaves it as it
    /// was: the session it held is still there to look at.
    holding: bool,
    /// This cycle looks at files still being written (the debounce's
    /// unsettled `Due`): it plans and exports the gauges, and acts only if
    /// the desired state read the same at the previous such look.
    settling: bool,
    /// The desired state the last unsettled look read, while the files are
    /// being written; `None` once a look was settled.
    unsettled: Option<Fingerprint>,
    /// The service manager (`Type=notify`), if watch runs under one.
    notify: Notifier,
    /// What `STATUS=` says of the last plan and the last roll: counts only.
    status: service::Status,
    /// The down sessions `--start-down` last tried to start.
    tried_down: BTreeSet<String>,
    /// Rolls in a row cut short by a rewrite of the env file: the quiet
    /// period before the next is stretched ([`super::debounce::storm_quiet`]).
    cut_short: u32,
}

fn epoch_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

pub fn run(options: WatchOptions) -> miette::Result<ExitCode> {
    // First, while watch has no other thread: no child inherits the socket.
    let notify = Notifier::from_env();
    let ctx = Context::load(options.config.as_deref())?;
    if ctx.config.env.file.is_none() {
        return Err(DesiredError::NoEnvFile {
            config: ctx.config.path.clone(),
        }
        .into());
    }
    let state_root = ctx.config.state_root.clone();
    let _guard = WatchGuard::acquire(&state_root)?;
    let metrics = Metrics::new();
    // Bound before the first cycle, so a bad address fails at once.
    let metrics_at = match options.metrics_listen {
        Some(addr) => Some(metrics_server::serve(addr, metrics.clone())?),
        None => None,
    };
    // File events and stop signals arrive on one channel, so the loop
    // sleeps until either (or its next deadline) without polling.
    let (tx, rx) = mpsc::channel();
    interrupt::forward(tx.clone(), Wake::Signal)
        .map_err(|e| miette::miette!("cannot route signals to the watch loop: {e}"))?;
    let fs = match notify::recommended_watcher(move |event| {
        let _ = tx.send(Wake::File(event));
    }) {
        Ok(watcher) => Some(watcher),
        Err(err) => {
            tracing::warn!("cannot watch files ({err}); re-planning every interval only");
            None
        }
    };
    let mut watch = Watch {
        config_path: ctx.config.path.clone(),
        memory: Memory::load(&state_root),
        state_root,
        ctx,
        options,
        said: Said::default(),
        files: BTreeSet::new(),
        dirs: BTreeSet::new(),
        fs,
        recheck: false,
        retry_at: None,
        metrics,
        in_turn: BTreeSet::new(),
        holding: false,
        settling: false,
        unsettled: None,
        notify,
        status: service::Status::default(),
        tried_down: BTreeSet::new(),
        cut_short: 0,
    };
    watch.rewatch();
    let auto = watch.auto_apply();
    watch.ctx.events.emit(Event::WatchStarted {
        pid: std::process::id(),
        config: watch.config_path.clone(),
        env_file: watch.ctx.config.env.file.clone(),
        interval_seconds: watch.options.interval.as_secs(),
        debounce_ms: u64::try_from(watch.options.debounce.as_millis()).unwrap_or(u64::MAX),
        auto_apply: auto,
        metrics_listen: metrics_at,
    });
    if let Some(at) = metrics_at {
        tracing::info!("serving Prometheus metrics at http://{at}/metrics");
    }
    tracing::info!(
        "watch started (pid {}): watching {}; re-planning every {}s; {}",
        std::process::id(),
        watch
            .files
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(" and "),
        watch.options.interval.as_secs(),
        if auto {
            "drifted sessions are rolled (auto-apply)"
        } else {
            "drift is reported, not rolled (pass --apply or set env.autoApply to roll)"
        }
    );
    watch.cycle("start");
    let stop = watch.wait_loop(&rx);
    watch.notify.stopping();
    watch.ctx.events.emit(Event::WatchStopped {
        pid: std::process::id(),
        reason: stop.into(),
    });
    tracing::info!("watch stopped ({stop})");
    Ok(ExitCode::SUCCESS)
}

impl Watch {
    fn auto_apply(&self) -> bool {
        self.options.apply || self.ctx.config.env.auto_apply
    }

    /// Says a problem once; a cycle that cannot observe does nothing else.
    fn problem(&mut self, text: String) {
        self.metrics.plan_failed();
        if self.said.problem.as_deref() != Some(text.as_str()) {
            tracing::error!("watch cannot plan: {text}; nothing is rolled until this is fixed");
            self.ctx.events.emit(Event::WatchError {
                error: text.clone(),
            });
            self.said.problem = Some(text);
        }
    }

    fn problem_cleared(&mut self) {
        if self.said.problem.take().is_some() {
            tracing::info!("watch can plan again");
        }
    }

    fn cycle(&mut self, trigger: &str) {
        tracing::debug!("cycle: {trigger}");
        let Some(snapshot) = self.plan_timed() else {
            return;
        };
        if self.still_being_written(&snapshot) {
            return;
        }
        self.clear_finished_rolls(&snapshot);
        self.follow_conversations(&snapshot);
        self.start_down(&snapshot);
        let before = self.memory.clone();
        self.reconcile(&snapshot);
        self.roll_hosts(&snapshot);
        let registered = snapshot
            .plan
            .sessions
            .iter()
            .filter(|s| s.kind != SessionKind::Unmanaged)
            .map(|s| s.label());
        self.memory.retain_labels(registered);
        if self.memory != before {
            if let Err(err) = self.memory.save(&self.state_root) {
                tracing::warn!(
                    "cannot save the watch memory ({}); a restart may roll a session again",
                    crate::fsutil::IoKind(err.kind())
                );
            }
        }
    }

    fn reconcile(&mut self, snapshot: &Snapshot) {
        let plan = &snapshot.plan;
        let desired = desired_fingerprint(&self.ctx.config, &snapshot.policy.file_state());
        let auto = self.auto_apply();
        let drifted: Vec<&SessionPlan> = plan.sessions.iter().filter(|s| s.action.acts()).collect();
        let unverified: Vec<&SessionPlan> =
            plan.sessions.iter().filter(|s| s.is_unverified()).collect();
        let facts: Vec<Drifted> = drifted
            .iter()
            .map(|s| Drifted {
                session: s,
                verdict: resumability(&self.ctx, snapshot, s),
            })
            .collect();
        let assessments = assess(&self.memory, desired, &facts, epoch_now());
        let mut to_roll: BTreeSet<String> = assessments
            .iter()
            .filter(|a| auto && matches!(a.decision, Decision::Roll { .. }))
            .map(|a| a.label.clone())
            .collect();
        // A session held for its safe point is rolled by watch all the same.
        let held = self.hold_for_safe_points(&drifted, &mut to_roll);
        self.say_drift(
            snapshot,
            desired,
            &drifted,
            auto.then_some(to_roll.len() + held),
        );
        self.say_unverified(&unverified, plan.observation_failed.as_ref());
        // Holds are about what watch would roll: said only when it rolls.
        for a in assessments.iter().filter(|a| auto && a.report) {
            if let Some(line) = report::hold_line(a) {
                tracing::warn!("{line}");
                let session = drifted.iter().find(|s| s.label() == a.label);
                self.ctx.events.emit(Event::WatchHeld {
                    reference: session.and_then(|s| s.reference.clone()),
                    standing: session.and_then(|s| s.standing.clone()),
                    label: a.label.clone(),
                    decision: a.decision.clone(),
                    desired: a.desired,
                });
                decide::mark_reported(&mut self.memory, &a.label, a.signature);
            }
        }
        // A stop that arrived during this cycle starts nothing new.
        if to_roll.is_empty() || interrupt::requested() {
            return;
        }
        let notify = &self.notify;
        let progress = |r: &SessionReport| {
            // Each session a roll finishes shows that it is not stuck.
            notify.progressed();
            if interrupt::requested() {
                notify.stopping();
            }
            if r.respawned() || r.outcome.is_failure() {
                let line = report::roll_line(r);
                if r.outcome.is_failure() {
                    tracing::warn!("{line}");
                } else {
                    tracing::info!("{line}");
                }
            }
        };
        tracing::info!(
            "watch is rolling {}: {}",
            if to_roll.len() == 1 {
                "1 session".to_owned()
            } else {
                format!("{} sessions", to_roll.len())
            },
            to_roll.iter().cloned().collect::<Vec<_>>().join(", ")
        );
        self.notify.status(&self.status.rolling(to_roll.len()));
        let stopwatch = crate::clock::Stopwatch::start();
        let result = self.notify.while_rolling(self.roll_patience(), || {
            reconcile::roll(
                &self.ctx,
                snapshot,
                &to_roll,
                self.options.parallelism,
                &progress,
            )
        });
        match result {
            Ok(rolled) => {
                self.metrics.roll_took(stopwatch.elapsed());
                self.rolled(&rolled, &assessments);
            }
            Err(ApplyError::Lock(LockError::Held { holder, .. })) => {
                if !self.said.lock_busy {
                    tracing::warn!(
                        "an apply is already running ({holder}); watch rolls after it finishes"
                    );
                    self.said.lock_busy = true;
                }
                self.retry_at = Some(Instant::now() + LOCK_RETRY);
            }
            Err(err) => self.problem(err.to_string()),
        }
    }
}

/// The same resumability check `apply` runs before touching a session; a
/// change in its answer is a change worth a retry.
fn resumability(ctx: &Context, snapshot: &Snapshot, session: &SessionPlan) -> Result<(), String> {
    match crate::plan::ownership::decide(&ctx.registry, session, &snapshot.observed) {
        Some((_, verdict)) => verdict.map(|_| ()),
        None => Err("not a managed session".into()),
    }
}
