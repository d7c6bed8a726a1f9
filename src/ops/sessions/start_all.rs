//! `sessions start --all`: every active record whose tmux session is gone
//! (after a reboot, a `tmux kill-server`, a session killed by hand) brought
//! back in its recorded directory, with its recorded harness and launch
//! arguments, resuming its conversation, and verified as a roll verifies:
//! the new process holds the env file's values and the conversation.
//!
//! The launches come first, all of them, and then one wait for the probes,
//! so a fleet of 100 costs about one probe, not 100. What cannot be
//! resumed is left alone with its reason: a start never swaps a
//! conversation for a new one ([`super::revive`] decides).

pub use super::revival::{
    Outcome, Revival, StartAllOptions, StartAllReport, Summary, FORMAT_VERSION,
};
use super::revive::{decide, Revivable};
use crate::lifecycle::key::{self as records, Record};
use crate::lifecycle::spawn::{
    launch_on, probe_launched, AttemptError, LaunchBase, Launched, Start,
};
use crate::observed::{observe, FleetView, Probe, Wanted};
use crate::ops::Context;
use crate::plan::gather::{plan_now, Looks};
use crate::plan::safe_point::Mode;
use crate::plan::{Action, Targets};
use crate::registry::queue;
use std::path::PathBuf;
use std::sync::Mutex;

/// The `--json` document's version.
/// Brings every down session back; `progress` is told of each as its
/// outcome is known.
pub fn start_all(
    ctx: &Context,
    options: &StartAllOptions,
    progress: &(dyn Fn(&Revival) + Sync),
) -> miette::Result<StartAllReport> {
    let policy = crate::desired::load_policy(&ctx.config, false)?;
    let observation = observe(&ctx.registry, &ctx.tmux, &Wanted::default());
    let fleet = match &observation.fleet {
        FleetView::Answered(fleet) => fleet,
        FleetView::Unknown(why) => miette::bail!(
            code = "the_loop::start_all::tmux",
            help = "check that the tmux server answers (`tmux ls`) and retry; nothing was started",
            "tmux did not answer ({why}), so which sessions are down is unknown"
        ),
    };
    // Read once for every launch and for the verifying plan: the policy,
    // and where a new pane's harness keeps its files (the transcripts are
    // looked for there).
    let base = LaunchBase::with_policy(ctx, policy);
    let home = base.home();
    // A conversation two live records name is resumed for neither, until a
    // person says whose it is (`plan` reports it the same way).
    let mut named: std::collections::BTreeMap<(&str, &str), usize> = Default::default();
    for o in observation.sessions.iter().filter(|o| o.record_live) {
        if let Some(id) = o.facts.session_id.as_deref() {
            *named.entry((o.facts.harness.as_str(), id)).or_default() += 1;
        }
    }
    let shared = |s: &crate::observed::ManagedSession| {
        s.facts
            .session_id
            .as_deref()
            .is_some_and(|id| named.get(&(s.facts.harness.as_str(), id)) > Some(&1))
    };
    let mut down = Vec::new();
    for session in &observation.sessions {
        if !session.record_live || fleet.probe(&session.tmux_target) == Probe::Live {
            continue;
        }
        // A session moved or renamed by a person still runs: not down.
        if fleet.runs_elsewhere(&session.tmux_target) {
            continue;
        }
        let Ok(Some(record)) = records::load(&ctx.registry, &session.key) else {
            continue;
        };
        if record.status() != crate::registry::Status::Active {
            continue;
        }
        let dead = fleet.probe(&session.tmux_target) == Probe::Dead;
        down.push((session.key.clone(), record, dead, shared(session)));
    }
    let mut revivals = Vec::new();
    let mut ready = Vec::new();
    for (key, record, dead, shared) in down {
        let mut revival = Revival::of(&key, &record);
        let decided = if shared {
            Err(format!(
                "conversation {} is named by another record too; neither is resumed until a person says whose it is (`the-loop plan` names both)",
                revival.harness_session_id.as_deref().unwrap_or_default()
            ))
        } else if dead {
            Err(format!(
                "its harness exited and tmux keeps the dead pane; read it with `tmux attach -r -t {}`, then `the-loop sessions start {}` clears it",
                revival.tmux_target,
                key.label()
            ))
        } else {
            decide(&record, &home.as_env())
        };
        match decided {
            Err(why) => {
                revival.outcome = Outcome::LeftAlone;
                revival.detail = Some(why);
                progress(&revival);
                revivals.push(revival);
            }
            Ok(revivable) => {
                revival.harness_session_id = Some(revivable.session_id.clone());
                revival.resumed = !revivable.fresh;
                if options.dry_run {
                    revival.outcome = Outcome::WouldStart;
                    progress(&revival);
                    revivals.push(revival);
                } else {
                    ready.push((key, record, revivable, revival));
                }
            }
        }
    }
    let launched = launch_all(ctx, &base, ready, options.parallelism);
    let mut live = Vec::new();
    for (key, launched, mut revival) in launched {
        match launched {
            Err(done) => {
                progress(&done);
                revivals.push(done);
            }
            Ok(launched) => match probe_launched(ctx, &revival.tmux_target, launched) {
                Probe::Live => live.push((key, revival)),
                Probe::Unknown => {
                    revival.outcome = Outcome::StartedUnverified;
                    revival.detail = Some(
                        "tmux did not answer the probe: whether it stayed up is unknown".into(),
                    );
                    progress(&revival);
                    revivals.push(revival);
                }
                Probe::Dead | Probe::Absent => {
                    revival.outcome = Outcome::Failed;
                    revival.detail = Some(format!(
                        "the harness exited at once: the conversation did not resume; read what it said with `tmux attach -r -t {}`",
                        revival.tmux_target
                    ));
                    progress(&revival);
                    revivals.push(revival);
                }
            },
        }
    }
    revivals.extend(verify(ctx, base.policy(), live, progress));
    revivals.sort_by(|a, b| a.tmux_target.cmp(&b.tmux_target));
    let summary = Summary {
        down: revivals.len(),
        started: revivals
            .iter()
            .filter(|r| {
                matches!(
                    r.outcome,
                    Outcome::Started | Outcome::StartedUnverified | Outcome::Mismatch
                )
            })
            .count(),
        left_alone: revivals
            .iter()
            .filter(|r| r.outcome == Outcome::LeftAlone)
            .count(),
        failed: revivals
            .iter()
            .filter(|r| r.outcome == Outcome::Failed)
            .count(),
    };
    if !options.dry_run && revivals.iter().all(|r| r.outcome.is_success()) {
        // Whatever a replacement of the server left to do is done.
        let journal = crate::registry::server::replacement_journal(&ctx.config.state_root);
        let _ = std::fs::remove_file(journal);
    }
    Ok(StartAllReport {
        format_version: FORMAT_VERSION.into(),
        dry_run: options.dry_run,
        tmux_server: ctx.tmux.socket().map(PathBuf::from),
        sessions: revivals,
        summary,
    })
}

type Ready = (crate::registry::SessionKey, Record, Revivable, Revival);
type LaunchedOne = (
    crate::registry::SessionKey,
    Result<Launched, Revival>,
    Revival,
);

/// Launches each ready session (`parallelism` at a time), its record
/// written first, as `sessions start` writes it; none is probed yet.
fn launch_all(
    ctx: &Context,
    base: &LaunchBase,
    ready: Vec<Ready>,
    parallelism: usize,
) -> Vec<LaunchedOne> {
    let queue = Mutex::new(ready.into_iter());
    let done = Mutex::new(Vec::new());
    let workers = parallelism.max(1);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let next = queue.lock().expect("queue").next();
                let Some((key, record, revivable, revival)) = next else {
                    break;
                };
                let one = launch_one(ctx, base, &key, record, &revivable, revival);
                done.lock().expect("done").push(one);
            });
        }
    });
    done.into_inner().expect("done")
}

fn launch_one(
    ctx: &Context,
    base: &LaunchBase,
    key: &crate::registry::SessionKey,
    mut record: Record,
    revivable: &Revivable,
    revival: Revival,
) -> LaunchedOne {
    let failed = |outcome: Outcome, why: String| {
        let mut done = revival.clone();
        done.outcome = outcome;
        done.detail = Some(why);
        done
    };
    let name = revival.tmux_target.clone();
    let turn = queue::wait_turn(&ctx.config.state_root, &name, queue::DEFAULT_WAIT);
    if let Err(e) = turn {
        let why = format!("another command holds this session's turn: {e}");
        return (key.clone(), Err(failed(Outcome::Failed, why)), revival);
    }
    record.set_tmux_target(&name);
    ctx.note_server(record.session_mut());
    record.touch();
    if let Err(e) = records::save(&ctx.registry, &record) {
        let why = format!("its record cannot be written ({e}); nothing was started");
        return (key.clone(), Err(failed(Outcome::Failed, why)), revival);
    }
    let start = Start {
        harness: revivable.harness,
        launch: revivable.launch(),
        args: &revivable.args,
        prompt: None,
    };
    match launch_on(ctx, base, key, &name, &revivable.cwd, start) {
        Ok(launched) => {
            ctx.events.emit(crate::events::Event::SessionSpawned {
                subject: key.subject().target(&name),
                harness_session_id: Some(revivable.session_id.clone()),
                resumed: !revivable.fresh,
            });
            (key.clone(), Ok(launched), revival)
        }
        Err(AttemptError::Duplicate) => {
            let why = "a tmux session appeared under its name while starting; left alone".into();
            (key.clone(), Err(failed(Outcome::LeftAlone, why)), revival)
        }
        // A live process holding the conversation is refused before
        // anything starts: that is a session to leave alone, not a fault.
        Err(AttemptError::Held(why)) => {
            (key.clone(), Err(failed(Outcome::LeftAlone, why)), revival)
        }
        Err(AttemptError::Failed(why)) => (key.clone(), Err(failed(Outcome::Failed, why)), revival),
    }
}

/// One plan of the started sessions: each new process is compared with
/// the env file as a roll's verification compares it, and its argv must
/// name the conversation it was started on.
fn verify(
    ctx: &Context,
    policy: &crate::desired::policy::Policy,
    live: Vec<(crate::registry::SessionKey, Revival)>,
    progress: &(dyn Fn(&Revival) + Sync),
) -> Vec<Revival> {
    if live.is_empty() {
        return Vec::new();
    }
    let targets = Targets(live.iter().map(|(key, _)| key.label()).collect());
    let (plan, observed) = plan_now(
        policy,
        &ctx.registry,
        &ctx.tmux,
        &targets,
        Looks::Roll(Mode::Apply),
    );
    live.into_iter()
        .map(|(key, mut revival)| {
            let label = key.label();
            let planned = plan.sessions.iter().find(|s| s.label() == label);
            // What the new process says of its conversation: its hooks'
            // SessionStart, else its argv (a harness may re-exec itself).
            let pid = planned.and_then(|s| s.pane_pid);
            let from_hooks = pid
                .and_then(|pid| observed.activities.get(&pid))
                .and_then(|a| a.conversation.clone());
            let from_argv = pid
                .and_then(|pid| observed.processes.get(&pid))
                .and_then(|p| p.argv.as_ref())
                .and_then(|argv| crate::harness::by_name(&revival.harness)?.read_launch(argv))
                .and_then(|launch| launch.conversation);
            let held = from_hooks.or(from_argv);
            revival.new_pid = planned.and_then(|s| s.pane_pid);
            (revival.outcome, revival.detail) = match planned {
                None => (
                    Outcome::StartedUnverified,
                    Some("the verifying plan did not find it".into()),
                ),
                Some(s) if s.observation != crate::plan::EnvReading::Read => (
                    Outcome::StartedUnverified,
                    s.reason.as_ref().map(|r| r.to_string()),
                ),
                Some(s) if s.action != Action::None => (
                    Outcome::Mismatch,
                    Some(format!(
                        "it does not hold the env file's values: {}",
                        s.changes
                            .iter()
                            .map(|c| c.name.as_str())
                            .chain(s.args_changes.iter().map(|_| "launch arguments"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )),
                ),
                Some(_) if held.is_some() && held != revival.harness_session_id => (
                    Outcome::Mismatch,
                    Some(format!(
                        "its harness runs conversation {}, not the recorded one",
                        held.as_deref().unwrap_or_default()
                    )),
                ),
                Some(_) if held.is_none() => (
                    Outcome::Started,
                    Some("its conversation is not confirmed yet: neither its hooks nor its argv name one".into()),
                ),
                Some(_) => (Outcome::Started, None),
            };
            progress(&revival);
            revival
        })
        .collect()
}
