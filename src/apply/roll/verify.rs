//! What the new process holds, compared name by name with the desired
//! state the plan read. The launcher reads the env file itself when it
//! starts the harness (`cli/exec.rs`), so a rewrite of the file during the
//! roll reaches every harness started after it: such a process is compared
//! with the file as it is now too, and is `superseded`, never a mismatch,
//! when it differs from the plan only where the file changed.

use super::Roller;
use crate::apply::report::{Outcome, SessionReport};
use crate::desired::envfile::{EnvFile, Reading};
use crate::desired::policy::Identity;
use crate::events::{Event, Subject, Verification};
use crate::observed::EnvRead;
use crate::plan::change::Change;
use crate::plan::gather::{read_harness, read_harness_environment, StillLauncher};
use crate::process_env::ProcessEnv;
use std::time::{Duration, Instant};

/// Why a session is `superseded`, in the words its report gives.
const HOLDS_CURRENT: &str =
    "the env file changed during the roll; it holds the file's current value";
const HOLDS_BETWEEN: &str =
    "the env file changed during the roll; it holds a value the file declared in between";

impl Roller<'_> {
    /// Whether the env file now declares anything other than what the plan
    /// read (an unreadable file included: what it declares is unknown).
    pub(super) fn env_file_moved_on(&self) -> bool {
        let Some(planned) = self.policy.env_file() else {
            return false;
        };
        EnvFile::load(&planned.path).map_or(true, |now| now.reading() != planned.reading())
    }

    /// Reads the new process (after the launcher's exec) and compares it
    /// name by name with the desired state.
    pub(super) fn verify(
        &self,
        mut report: SessionReport,
        subject: &Subject,
        identity: &Identity,
        pid: i32,
    ) -> SessionReport {
        let launcher = std::env::current_exe().ok();
        let deadline = Instant::now() + Duration::from_secs(3);
        let read = loop {
            match read_harness(pid, launcher.as_deref()) {
                Ok(read) => break read,
                Err(StillLauncher) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(25))
                }
                Err(StillLauncher) => break read_harness_environment(pid, launcher.as_deref()),
            }
        };
        let respawned = |verification, reason| Event::SessionRespawned {
            subject: subject.clone(),
            dispatch: None,
            old_pid: report.old_pid,
            new_pid: Some(pid),
            resumed: Some(true),
            harness_session_id: report.harness_session_id.clone(),
            verification: Some(verification),
            reason,
            boot_prompt: None,
        };
        match read {
            EnvRead::Read(env) => {
                let mismatches = self.policy.diff(&self.policy.desired_for(identity), &env);
                if mismatches.is_empty() {
                    report.outcome = Outcome::Restarted;
                    if report.fresh_start {
                        report.detail = Some(NO_CONVERSATION_YET.into());
                    }
                    report.env_reading = self.policy.env_file().map(EnvFile::reading);
                    self.events.emit(respawned(Verification::Verified, None));
                } else if let Some((reading, why)) = self.superseded(identity, &env, &mismatches) {
                    report.outcome = Outcome::Superseded;
                    report.env_reading = reading;
                    report.detail = Some(why.to_owned());
                    self.events
                        .emit(respawned(Verification::Superseded, Some(why.to_owned())));
                } else {
                    report.outcome = Outcome::Mismatch;
                    self.events.emit(Event::EnvVerifyMismatch {
                        subject: subject.clone(),
                        old_pid: report.old_pid,
                        new_pid: pid,
                        resumed: true,
                        harness_session_id: report.harness_session_id.clone(),
                        changes: mismatches.clone(),
                    });
                    report.mismatches = mismatches;
                }
            }
            EnvRead::Unverified(reason) => {
                report.outcome = Outcome::RestartedUnverified;
                self.events
                    .emit(respawned(Verification::Unverified, Some(reason.clone())));
                report.detail = Some(reason);
            }
        }
        report
    }

    /// A process that differs from the plan's desired state, when the env
    /// file changed since the plan read it: `Some` when it holds the file's
    /// current desired state (with that reading), or differs from the plan
    /// only in names the rewrite changed (a value the file held in between,
    /// `None` for its reading). Anything else is a real mismatch.
    fn superseded(
        &self,
        identity: &Identity,
        env: &ProcessEnv,
        mismatches: &[Change],
    ) -> Option<(Option<Reading>, &'static str)> {
        let planned = self.policy.env_file()?.reading();
        let now = crate::desired::load_policy(self.config, true).ok()?;
        let current = now.env_file()?.reading();
        if current == planned {
            return None;
        }
        let want_now = now.desired_for(identity);
        if now.diff(&want_now, env).is_empty() {
            return Some((Some(current), HOLDS_CURRENT));
        }
        let want_then = self.policy.desired_for(identity);
        let rewritten = |name: &str| {
            want_then.set.get(name) != want_now.set.get(name)
                || want_then.withheld.contains(name) != want_now.withheld.contains(name)
        };
        mismatches
            .iter()
            .all(|change| rewritten(&change.name))
            .then_some((None, HOLDS_BETWEEN))
    }
}

/// The detail of a session relaunched on a conversation that never began.
pub const NO_CONVERSATION_YET: &str = "no conversation yet: relaunched on the same id";
