//! The one roll engine behind `apply`, `sessions restart`, `standing
//! restart` and `watch --apply`: lock, plan (or take the plan a watch
//! cycle made), approve, roll, report. Every caller gets the same canary,
//! the same stop at the first failure and the same events; what differs is
//! only what it is told through its [`ApplySink`].

use crate::apply::drain::{self, Waiting};
use crate::apply::lock::{ApplyLock, LockError};
use crate::apply::report::{EnvFileChanged, Stop};
use crate::apply::roll::Roller;
use crate::apply::screen::{self, HookVerdict};
use crate::apply::scrub::scrub;
use crate::apply::{interrupt, Mode, Outcome, Report, RollOptions, SessionReport};
use crate::desired::envfile::EnvFile;
use crate::desired::policy::Policy;
use crate::desired::DesiredError;
pub use crate::events::roll::RollCommand;
use crate::events::Event;
use crate::observed::Probe;
use crate::ops::Context;
use crate::plan::gather::{plan_now, Looks, Observed};
use crate::plan::safe_point::{self, Drain};
use crate::plan::saved::{self, SavedPlanError};
use crate::plan::{Action, Plan, SessionKind, SessionPlan, Targets};
use crate::registry::journal::{Entry, Journal};
use crate::runner::batch::Batcher;
use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

impl RollCommand {
    pub fn as_str(self) -> &'static str {
        match self {
            RollCommand::Apply => "apply",
            RollCommand::SessionsRestart => "sessions restart",
            RollCommand::StandingRestart => "standing restart",
            RollCommand::Watch => "watch",
            RollCommand::Deliver => "sessions deliver",
        }
    }
}

/// Where the roll's plan comes from.
pub enum Source<'a> {
    /// Planned under the lock, as Terraform's state lock comes before its
    /// refresh: a roll that waited for another must plan the world that roll
    /// left behind. `saved` is a plan from `plan --out`, applied as saved.
    Plan {
        targets: Targets,
        saved: Option<&'a Path>,
    },
    /// A plan a `watch` cycle already made (and reported drift from), rolled
    /// for the sessions named in `labels` only.
    Given {
        policy: &'a Policy,
        plan: &'a Plan,
        observed: &'a Observed,
        labels: &'a BTreeSet<String>,
    },
}

pub struct ApplyOptions<'a> {
    pub command: RollCommand,
    pub mode: Mode,
    pub source: Source<'a>,
    pub dry_run: bool,
    /// How many sessions may be in flight at once after the canary.
    pub parallelism: usize,
    /// `apply --scrub-tmux-env`.
    pub scrub_tmux_env: bool,
    /// `--lock-timeout`: how long to wait for another roll's lock; zero refuses at once.
    pub lock_timeout: Duration,
    /// Safe points: `--drain-timeout`, `--now`, `--include-attached`.
    pub drain: Drain,
}

/// What a caller is told as the roll goes. Called from the roll's worker
/// threads, so it takes `&self`.
pub trait ApplySink: Sync {
    /// Another roll holds the lock; this one waits up to `left` more.
    fn lock_waiting(&self, _holder: &str, _left: Duration) {}
    /// The plan, before anything is touched. `acts` says whether the roll
    /// would change anything; an error here (no approval) ends the run
    /// with nothing changed.
    fn planned(&self, _plan: &Plan, _acts: bool) -> Result<(), ApplyError> {
        Ok(())
    }
    /// Just before a harness is ended.
    fn respawning(&self, _session: &SessionPlan) {}
    /// A session's outcome, as it is known.
    fn session(&self, _report: &SessionReport) {}
    /// Sessions held until their turn ends; the drain gives up in `left`.
    fn draining(&self, _held: &[&SessionPlan], _left: Duration) {}
    /// `--now` is about to end this session's running turn.
    fn interrupting(&self, _session: &SessionPlan) {}
}

/// The drain's progress goes to the caller's sink.
struct Drained<'a>(&'a dyn ApplySink);

impl Waiting for Drained<'_> {
    fn draining(&self, held: &[&SessionPlan], left: Duration) {
        self.0.draining(held, left)
    }
    fn interrupting(&self, session: &SessionPlan) {
        self.0.interrupting(session)
    }
}

/// Why a roll did not run.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum ApplyError {
    #[error(transparent)]
    #[diagnostic(transparent)]
    Lock(#[from] LockError),
    #[error(transparent)]
    #[diagnostic(transparent)]
    Desired(#[from] DesiredError),
    #[error(transparent)]
    #[diagnostic(transparent)]
    SavedPlan(#[from] SavedPlanError),
    #[error("refusing to respawn sessions without confirmation: {0}")]
    #[diagnostic(
        code(the_loop::apply::needs_approval),
        help("review `the-loop plan`, then add --auto-approve: `the-loop apply --auto-approve`; or save the plan you review and apply that file, which asks nothing: `the-loop plan --out tfplan`, then `the-loop apply tfplan`")
    )]
    NeedsApproval(&'static str),
    #[error("apply cancelled; nothing was changed")]
    #[diagnostic(code(the_loop::apply::cancelled))]
    Cancelled,
}

/// Runs one roll and returns its report (in plan order).
pub fn apply(
    ctx: &Context,
    options: &ApplyOptions,
    sink: &dyn ApplySink,
) -> Result<Report, ApplyError> {
    let command = options.command.as_str();
    let _lock = if options.dry_run {
        None
    } else {
        Some(ApplyLock::acquire_waiting(
            &ctx.config.state_root,
            command,
            options.lock_timeout,
            &|holder, left| sink.lock_waiting(holder, left),
        )?)
    };
    let fresh: (Policy, Observed);
    let (policy, plan, observed) = match &options.source {
        Source::Plan { targets, saved } => {
            let (policy, plan, observed) = plan_under_lock(ctx, targets, *saved, options.mode)?;
            fresh = (policy, observed);
            (&fresh.0, plan, &fresh.1)
        }
        Source::Given {
            policy,
            plan,
            observed,
            labels,
        } => {
            let mut plan = (*plan).clone();
            plan.sessions
                .retain(|s| s.action.acts() && labels.contains(s.label()));
            (*policy, plan, *observed)
        }
    };
    let mut plan = plan;
    // The plan shows what this roll, with its own flags, does at each safe point.
    safe_point::annotate(&mut plan, options.mode, &options.drain);
    let selected = plan
        .sessions
        .iter()
        .filter(|s| safe_point::selects(options.mode, s.action))
        .count();
    let will_scrub = options.scrub_tmux_env
        && plan
            .residue
            .as_ref()
            .is_some_and(|r| r.scrubbable().next().is_some());
    sink.planned(&plan, will_scrub || selected > 0)?;
    let took = crate::clock::Stopwatch::start_on(ctx.events.clock());
    // `watch` rolls the hosts in a step of its own (`watch/run/hosts.rs`).
    let from_a_command = matches!(options.source, Source::Plan { .. });
    let hosts: &[crate::plan::host::HostPlan] = match (options.mode, from_a_command) {
        (Mode::Apply, true) => &plan.hosts,
        _ => &[],
    };
    if !options.dry_run {
        interrupt::install();
        ctx.events.emit(started(
            options.command,
            &plan,
            selected,
            (!hosts.is_empty()).then(|| hosts.iter().map(|h| h.to_respawn()).sum()),
        ));
    }
    let respawning = |s: &SessionPlan| sink.respawning(s);
    let root = ctx.config.state_root.clone();
    let now_anyway = options.drain.now;
    let batch = Batcher::new(&ctx.tmux);
    let last_look = |s: &SessionPlan| match drain::hooks_now(&root, s) {
        HookVerdict::Ended(why) => Err((crate::apply::Outcome::Skipped, why)),
        _ if now_anyway => Ok(()),
        hooks => screen::last_look(&batch, s, hooks),
    };
    let in_turn: &crate::apply::roll::SafePointCheck = &last_look;
    let roller = Roller {
        safe_point: Some(in_turn),
        config: &ctx.config,
        policy,
        tmux: &batch,
        home: Default::default(),
        events: &ctx.events,
        respawning: Some(&respawning),
    };
    // Before the roll, so nothing tmux starts meanwhile inherits the names.
    let scrubbed = options.scrub_tmux_env.then(|| {
        scrub(
            &ctx.tmux,
            policy,
            plan.residue.as_ref(),
            &ctx.events,
            options.dry_run,
        )
    });
    let roll = RollOptions {
        mode: options.mode,
        parallelism: options.parallelism,
        dry_run: options.dry_run,
        // Naming a session is asking for it, even one that could not resume.
        retry_failed: matches!(&options.source, Source::Plan { targets, .. } if !targets.is_all()),
    };
    let progress = |r: &SessionReport| sink.session(r);
    let mut report = drain::run(
        &roller,
        &ctx.registry,
        &plan,
        observed,
        roll,
        &options.drain,
        &Drained(sink),
        &progress,
    );
    report.tmux_env_scrub = scrubbed;
    if options.dry_run {
        return Ok(report);
    }
    let drain = if options.drain.now {
        Duration::ZERO
    } else {
        options.drain.timeout
    };
    report.hosts = crate::hosts::roll_all(
        &ctx.config,
        policy,
        hosts,
        crate::hosts::HostRoll {
            drain,
            parallelism: options.parallelism,
        },
    );
    crate::apply::failures::settle(&ctx.config.state_root, &report.sessions);
    report.env_file_changed = env_file_changed(policy, &report);
    if let crate::observed::FleetView::Answered(fleet) = &observed.fleet {
        // The panes as listed before the roll plus each respawn's new
        // pid: no further tmux call, and the replaced harness is gone.
        let panes = fleet
            .pane_pids()
            .chain(report.sessions.iter().filter_map(|s| s.new_pid))
            .collect();
        report.detached_residue = crate::plan::gather::detached_now(policy, &panes);
    }
    ctx.events.emit(Event::ApplyFinished {
        command: options.command,
        failed: report.failed(),
        interrupted: report.interrupted,
        duration_ms: Some(crate::clock::millis(took.elapsed_on(ctx.events.clock()))),
        sessions: report.sessions.iter().map(Into::into).collect(),
        hosts: report.hosts.clone(),
    });
    Ok(report)
}

/// A roll's `apply.started` line: how many sessions it selected (and of
/// the hosts beside tmux, how many it is to respawn), and the env file as
/// its plan read it, by fingerprint, for `history` to compare.
pub fn started(
    command: RollCommand,
    plan: &Plan,
    sessions: usize,
    host_sessions: Option<usize>,
) -> Event {
    Event::ApplyStarted {
        command,
        sessions,
        host_sessions,
        env_file: plan.env_file.clone(),
        env_fingerprints: plan
            .env_file
            .is_some()
            .then(|| plan.env_fingerprints.clone()),
    }
}

/// Clears the intent journal's entries of rolls that ended after their
/// respawn and before their verification (killed in the probe wait), for
/// sessions `plan` found up to date and live: what `apply` does for such
/// sessions in its roll (`apply/fleet.rs`), for a caller whose roll does
/// not include them (`watch`). Under the apply lock, never waiting (a roll
/// in flight owns its entries); and since `plan` may have been read before
/// the lock, only where the pane runs another process than the one the
/// entry was about to end. Returns how many were cleared.
pub fn clear_finished_rolls(ctx: &Context, plan: &Plan) -> Result<usize, LockError> {
    let journal = Journal::under(&ctx.config.state_root);
    let finished = |entries: Vec<Entry>| -> Vec<String> {
        entries
            .into_iter()
            .filter(|e| {
                plan.sessions.iter().any(|s| {
                    s.kind != SessionKind::Unmanaged
                        && s.action == Action::None
                        && s.probe == Probe::Live
                        && s.tmux_target == e.tmux_target
                        && s.pane_pid.is_some_and(|pid| pid != e.old_pid)
                })
            })
            .map(|e| e.tmux_target)
            .collect()
    };
    if finished(journal.entries()).is_empty() {
        return Ok(0);
    }
    let _lock = ApplyLock::acquire(&ctx.config.state_root, RollCommand::Watch.as_str())?;
    // Read again under the lock: a roll that ran meanwhile cleared its own.
    let targets = finished(journal.entries());
    for target in &targets {
        journal.clear(target);
    }
    Ok(targets.len())
}

/// Whether the env file changed while the roll ran (it declares now
/// something other than what the plan read, or the roll saw it change), and
/// how many of the sessions it respawned hold a value it no longer declares.
fn env_file_changed(policy: &Policy, report: &Report) -> Option<EnvFileChanged> {
    let planned = policy.env_file()?;
    let now = EnvFile::load(&planned.path).ok().map(|f| f.reading());
    let seen = report
        .sessions
        .iter()
        .any(|s| s.stop_after() == Some(Stop::EnvFileChanged));
    (seen || now != Some(planned.reading())).then(|| EnvFileChanged {
        superseded_sessions: report
            .sessions
            .iter()
            .filter(|s| s.respawned())
            .filter(|s| matches!(s.outcome, Outcome::Restarted | Outcome::Superseded))
            .filter(|s| s.env_reading.is_none() || s.env_reading != now)
            .count(),
    })
}

/// Re-reads the env file (the roll is against the file as it is now) and
/// plans; a saved plan is applied to its own sessions, or the `--target`
/// subset of them, and refused if anything changed since it was saved.
fn plan_under_lock(
    ctx: &Context,
    targets: &Targets,
    saved: Option<&Path>,
    mode: Mode,
) -> Result<(Policy, Plan, Observed), ApplyError> {
    let policy = crate::desired::load_policy_with_key(&ctx.config)?;
    let saved = match saved {
        Some(path) => Some((path, saved::read(path)?)),
        None => None,
    };
    let targets = match &saved {
        Some((path, saved)) => saved::targets_within(path, saved, targets)?,
        None => targets.clone(),
    };
    let (mut plan, observed) = plan_now(
        &policy,
        &ctx.registry,
        &ctx.tmux,
        &targets,
        Looks::Roll(mode),
    );
    // The hosts beside tmux, as far as the targets name their sessions.
    crate::hosts::annotate(&mut plan, &ctx.config, &policy, &targets);
    if let Some((path, saved)) = &saved {
        saved::same_fingerprints(path, saved, &plan)?;
        let changes = saved::staleness(&saved.restricted_to(&targets), &plan);
        if !changes.is_empty() {
            return Err(SavedPlanError::Stale {
                path: path.to_path_buf(),
                changes,
            }
            .into());
        }
    }
    Ok((policy, plan, observed))
}
