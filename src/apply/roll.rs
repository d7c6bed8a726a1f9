//! Rolling one session: end the harness gracefully, respawn the same pane
//! with the launcher resuming the recorded conversation, probe it, and
//! verify what the new process holds.

mod complete;
mod verify;

use super::report::{not_attempted, Outcome, SessionReport, Stop};
use crate::desired::config::Config;
use crate::desired::policy::{Identity, Policy};
use crate::events::{Event, EventLog, Subject};
use crate::harness::resumable::Resumable;
use crate::harness::user_files::HarnessHome;
use crate::harness::Launch;
use crate::observed::EnvRead;
use crate::plan::{Action, SessionPlan};
use crate::registry::journal::{Entry, Journal};
use crate::runner::batch::Batcher;
use crate::runner::prelaunch;
use crate::runner::remain_on_exit;
use crate::runner::respawn::{self, Ready};
use crate::runner::signal::{end_gracefully, hang_up, Ending, ProcessHandle};
use crate::runner::spawn::{panes_listed, session_panes, session_panes_command};
use std::time::Instant;

/// The pieces one roll needs, shared by every worker.
pub struct Roller<'a> {
    pub config: &'a Config,
    pub policy: &'a Policy,
    /// Shared by the roll's workers, so the commands of a wave share tmux clients.
    pub tmux: &'a Batcher<'a>,
    pub events: &'a EventLog,
    /// Where the new panes' harness keeps its files: read from the tmux
    /// server once per roll (two calls), not once per session.
    pub home: std::sync::OnceLock<HarnessHome>,
    /// Told just before a harness is ended, for a progress view
    /// (`apply --json-stream`).
    pub respawning: Option<&'a (dyn Fn(&SessionPlan) + Sync)>,
    /// The last look before the journal and the signal: `Err((outcome,
    /// why))` when the harness is now inside a turn (`deferred`) or the
    /// person ended it (`skipped`); it is then not ended. `None` only
    /// where nothing was planned from activity.
    pub safe_point: Option<&'a SafePointCheck<'a>>,
}

/// See [`Roller::safe_point`].
/// The error is the outcome the session gets instead (`deferred` for a
/// turn that began, `skipped` for a harness the person ended) and why.
pub type SafePointCheck<'a> = dyn Fn(&SessionPlan) -> Result<(), (Outcome, String)> + Sync + 'a;

/// A session whose pane runs the resuming launcher, waiting for its probe.
/// The disruptive part of its roll is over; what is left only reads.
pub struct Respawned {
    report: SessionReport,
    subject: Subject,
    identity: Identity,
    target: String,
    pane_id: String,
    /// When the probe may look: the respawn plus `resumeProbeSeconds`.
    pub probe_at: Instant,
}

/// Where a roll stands after its disruptive part. One exists per session
/// in flight, moved a few times, so the larger variant is not boxed.
#[allow(
    clippy::large_enum_variant,
    reason = "one per session in flight, moved a few times: boxing buys nothing"
)]
pub enum Respawn {
    /// The pane runs the resuming launcher; probe it at `probe_at`.
    Waiting(Respawned),
    /// The roll ended here: left alone, skipped, or the respawn failed.
    Done(SessionReport),
}

impl Roller<'_> {
    /// One session, start to finish: respawn, wait out the probe, verify.
    pub fn roll(
        &self,
        plan: &SessionPlan,
        identity: &Identity,
        resumable: Resumable,
    ) -> SessionReport {
        match self.respawn(plan, identity, resumable) {
            Respawn::Waiting(respawned) => {
                std::thread::sleep(respawned.probe_at.saturating_duration_since(Instant::now()));
                self.probe_and_verify(respawned)
            }
            Respawn::Done(report) => report,
        }
    }

    /// The disruptive part of a roll: check provenance, end the harness, respawn the pane.
    pub fn respawn(
        &self,
        plan: &SessionPlan,
        identity: &Identity,
        resumable: Resumable,
    ) -> Respawn {
        if plan.action == Action::Resume {
            return self.complete(plan, identity, resumable);
        }
        let mut report = SessionReport::from_plan(plan, Outcome::LeftAlone, None);
        report.harness_session_id = Some(resumable.session_id.clone());
        report.fresh_start = resumable.fresh;
        let (Some(pane_id), Some(pid)) = (plan.pane_id.clone(), plan.pane_pid) else {
            report.detail = Some("no pane was observed".into());
            return Respawn::Done(report);
        };
        let target = plan.tmux_target.as_str();
        let subject = Subject::planned(plan.reference.clone(), plan.standing.clone())
            .target(target)
            .pane(&pane_id);

        // Provenance: the pid must still be what tmux reports for this
        // loop-* pane, and the handle is taken before the check so a reused
        // pid can never be signalled.
        let handle = match ProcessHandle::open(pid) {
            Ok(handle) => handle,
            Err(_) => {
                report.detail =
                    Some("the harness exited before it could be respawned; not restarted".into());
                report.outcome = Outcome::Skipped;
                return Respawn::Done(report);
            }
        };
        // A harness beneath the shell of a pane `import` adopted: the shell
        // is the pane's process, and it is ended after the harness.
        let shell = match plan.pane_process.map(ProcessHandle::open) {
            None => None,
            Some(Ok(shell)) => Some(shell),
            Some(Err(_)) => {
                report.detail = Some("the pane changed since it was planned; not touched".into());
                return Respawn::Done(report);
            }
        };
        let pane_pid = plan.pane_process.unwrap_or(pid);
        // Asked in one wave with the option as it holds for this pane; it is
        // set (the loop's own setting on its own pane) only when it is not on.
        let [listed, option] = self.tmux.run_together([
            session_panes_command(target),
            remain_on_exit::query(target, &pane_id),
        ]);
        match panes_listed(listed) {
            Ok(panes)
                if panes
                    .iter()
                    .any(|p| p.pane_id == pane_id && p.pid == pane_pid && !p.dead) => {}
            Ok(_) => {
                report.detail = Some("the pane changed since it was planned; not touched".into());
                return Respawn::Done(report);
            }
            Err(err) => {
                report.detail = Some(format!(
                    "tmux did not confirm the pane ({err}); not touched"
                ));
                return Respawn::Done(report);
            }
        }

        if let Err(err) = remain_on_exit::ensure(self.tmux, target, &pane_id, Some(option)) {
            // Without remain-on-exit the session would vanish with the harness.
            report.detail = Some(format!("cannot set remain-on-exit ({err}); not touched"));
            return Respawn::Done(report);
        }
        let ready = match self.prepared(identity, &resumable, &subject, Some(pid)) {
            Ok(ready) => ready,
            Err(reason) => {
                report.detail = Some(reason);
                return Respawn::Done(report);
            }
        };
        if let Some(Err((outcome, why))) = self.safe_point.map(|check| check(plan)) {
            report.outcome = outcome;
            report.detail = Some(why);
            return Respawn::Done(report);
        }
        // The launcher reads the env file when it starts the harness: once
        // the file no longer says what the plan read, no harness is ended
        // for it (the roll stops; the next plan starts from the new file).
        if self.env_file_moved_on() {
            return Respawn::Done(not_attempted(plan, Stop::EnvFileChanged));
        }
        // The person moved to another conversation in this process (`/clear`,
        // an in-app `/resume`): the record names it before anything is
        // journaled or signalled, so a completion after a crash agrees.
        if let (Some(moved), Some(key)) = (&plan.conversation_moved, &plan.key) {
            let registry = crate::registry::Registry::new(&self.config.state_root);
            if let Err(why) = crate::registry::follow::follow(&registry, key, &moved.to) {
                report.detail = Some(format!(
                    "cannot write conversation {} into the record ({why}); not touched",
                    moved.to
                ));
                return Respawn::Done(report);
            }
        }
        // On disk before the signal: if we die from here, the next run completes it.
        let journal = Journal::under(&self.config.state_root);
        let entry = Entry {
            reference: plan.reference.clone(),
            standing: plan.standing.clone(),
            tmux_target: target.to_owned(),
            pane_id: pane_id.clone(),
            old_pid: pid,
            harness_session_id: resumable.session_id.clone(),
            cwd: resumable.cwd.clone(),
            transcript: resumable.transcript.clone(),
            since: crate::clock::now_utc(),
        };
        if let Err(err) = journal.record(&entry) {
            let file = journal.path(target).unwrap_or_default();
            report.detail = Some(format!(
                "cannot write the intent journal {} ({}); not touched",
                file.display(),
                crate::fsutil::describe(&err)
            ));
            return Respawn::Done(report);
        }
        crate::apply::interrupt::crash_point("after-journal");
        if let Some(respawning) = self.respawning {
            respawning(plan);
        }
        // Read before the signal, while the pidfd pins the process: which
        // activity file is the ended harness's, once it has gone.
        let started_at = crate::activity::store::process_start(pid);
        let grace = self.config.routing.tmux.harness_kill_grace;
        // Until the pane is respawned, a panic names the journal entry.
        let _in_flight = crate::apply::interrupt::RespawnInFlight::begin();
        let ending = end_gracefully(&handle, grace);
        self.events.emit(Event::SessionHarnessTerminated {
            subject: subject.clone(),
            pid: Some(pid),
            ending: Some(ending),
            panes: None,
            result: None,
            reason: None,
        });
        if ending == Ending::Survived {
            journal.clear(target);
            report.detail = Some("the harness survived SIGKILL; not respawned".into());
            return Respawn::Done(report);
        }
        if let Some(shell) = &shell {
            // The harness has ended; the shell it ran beneath goes with it
            // (one that survived makes the respawn fail, and says so).
            hang_up(shell, grace);
        }
        crate::apply::interrupt::crash_point("after-signal");
        if let Some(start) = started_at {
            crate::activity::store::forget(&self.config.state_root, pid, start);
        }

        self.relaunch(report, subject, identity, target, pane_id, ready)
    }

    /// The launch a respawn runs, pre-launch checked (`pid`: the harness whose
    /// environment it starts from; our own when it cannot be read), files prepared.
    /// The environment it starts from is the session's own (its pane's, as the
    /// harness holds it now), with the desired one applied over it.
    fn prepared(
        &self,
        identity: &Identity,
        resumable: &Resumable,
        subject: &Subject,
        pid: Option<i32>,
    ) -> Result<Ready, String> {
        let base = match pid.map(crate::proc_env::read_environ) {
            Some(EnvRead::Read(env)) => prelaunch::base_of(&env),
            Some(EnvRead::Unverified(_)) | None => prelaunch::base_of_caller(&[]),
        };
        respawn::ready(respawn::Request {
            harness: resumable.harness,
            config: self.config,
            events: self.events,
            subject,
            identity,
            cwd: &resumable.cwd,
            launch: match resumable.fresh {
                // Never begun: started again on the same pre-assigned id.
                true => Launch::Fresh {
                    session_id: resumable.session_id.clone(),
                    prompt: None,
                },
                false => Launch::Resume {
                    session_id: resumable.session_id.clone(),
                },
            },
            args: &resumable.args,
            prompt: None,
            desired: &self.policy.desired_for(identity),
            base,
            home: self
                .home
                .get_or_init(|| crate::harness::home_for_new_pane(self.tmux, &[])),
            replacing: pid,
        })
        .map_err(|err| {
            // Nothing has been signalled: the session runs on, stale, and
            // the next run meets the same refusal instead of a dead pane.
            let reason = format!("not restarted: the new launch cannot start: {err}");
            self.events.emit(Event::SessionLeftAlone {
                subject: subject.clone(),
                reason: reason.clone(),
            });
            reason
        })
    }

    /// Runs the prepared launch in the dead pane and starts its probe clock:
    /// the tail shared by a roll and the completion of an interrupted one.
    fn relaunch(
        &self,
        report: SessionReport,
        subject: Subject,
        identity: &Identity,
        target: &str,
        pane_id: String,
        ready: Ready,
    ) -> Respawn {
        // A journaled dead pane (this roll's, or an earlier run's to complete).
        let _in_flight = crate::apply::interrupt::RespawnInFlight::begin();
        let place = respawn::Place::DeadPane {
            pane_id: &pane_id,
            tmux: self.tmux,
        };
        let started = match ready.start(&self.config.state_root, place) {
            Ok(started) => started,
            Err(err) => {
                let reason = format!("tmux respawn-pane failed: {err}");
                return Respawn::Done(self.resume_failed(report, &subject, reason));
            }
        };
        if started.dropped {
            // The record says what was launched.
            let registry = crate::registry::Registry::new(&self.config.state_root);
            let args = &started.spec.args;
            if let Err(err) = crate::harness::models::record_launched(&registry, identity, args) {
                tracing::warn!(session = target, error = %err, "the record still names the dropped launch arguments");
            }
        }
        Respawn::Waiting(Respawned {
            report,
            subject,
            identity: identity.clone(),
            target: target.to_owned(),
            pane_id,
            probe_at: crate::clock::deadline(self.config.routing.tmux.resume_probe),
        })
    }

    /// The rest of a roll, once `probe_at` has passed: is the harness still
    /// up (the conversation resumed), and what does the new process hold?
    pub fn probe_and_verify(&self, respawned: Respawned) -> SessionReport {
        let Respawned {
            mut report,
            subject,
            identity,
            target,
            pane_id,
            probe_at: _,
        } = respawned;
        let new_pid = match session_panes(self.tmux, &target) {
            Ok(panes) => match panes.into_iter().find(|p| p.pane_id == pane_id) {
                Some(p) if !p.dead => p.pid,
                Some(_) => {
                    report.harness_exited = true;
                    return self.resume_failed(
                        report,
                        &subject,
                        "the harness exited: the conversation did not resume".into(),
                    );
                }
                None => return self.resume_failed(report, &subject, "the pane is gone".into()),
            },
            Err(err) => {
                return self.resume_failed(
                    report,
                    &subject,
                    format!("tmux did not answer the probe ({err})"),
                )
            }
        };
        report.new_pid = Some(new_pid);
        let report = self.verify(report, &subject, &identity, new_pid);
        // Fulfilled; a failed resume keeps its entry, so the dead pane stays reported.
        Journal::under(&self.config.state_root).clear(&target);
        report
    }

    fn resume_failed(
        &self,
        mut report: SessionReport,
        subject: &Subject,
        reason: String,
    ) -> SessionReport {
        self.events.emit(Event::SessionResumeFailed {
            subject: subject.clone(),
            reason: reason.clone(),
            resumed: None,
            fresh_started: false,
        });
        report.outcome = Outcome::ResumeFailed;
        report.detail = Some(reason);
        report
    }
}
