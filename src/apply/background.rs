//! The roll of Claude Code's background host. Every worker holds the
//! daemon's environment, never its caller's, so a respawn alone would
//! start the session on the retired value again. First the daemon: when it
//! does not hold the policy's environment it is stopped with its workers
//! kept (`claude daemon stop --any --keep-workers`, nothing is cut), and a
//! daemon the-loop starts itself (`claude daemon run`, its environment the
//! policy's, no caller's) takes its place; what that daemon holds is read
//! back before any respawn, and a daemon another client started meanwhile
//! is refused, with its pid. Then each managed drifted session, at its
//! safe point only: idle, never busy or waiting (the host's own `respawn`
//! cuts a running turn), never by a signal to a pid. A respawn is verified
//! by its new worker: what it holds, and that it holds the same
//! conversation.

mod roll;
pub use roll::{roll, roll_host, HostRoll};

use crate::desired::policy::Policy;
pub use crate::events::host::{
    BackgroundOutcome, BackgroundRollReport, BackgroundSessionReport, DaemonOutcome, DaemonReport,
};
use crate::observed::background::{self as host, DaemonSeen};
use crate::plan::background::BackgroundHostPlan;
use crate::proc_env::EnvRead;
use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long a host command may take (`daemon stop`, `respawn`).
const HOST_COMMAND: Duration = Duration::from_secs(30);
/// How long the new daemon, or a respawned worker, may take to show.
const SHOWS_WITHIN: Duration = Duration::from_secs(30);
/// How often the host is looked at while something is awaited.
const LOOK_EVERY: Duration = Duration::from_millis(500);

/// What a command of the host's (`claude daemon run`, `claude respawn`,
/// `claude --bg`) runs with: the Claude binary, and an environment of
/// the policy's, not the caller's: what every worker ends up holding.
pub struct HostClient<'a> {
    pub claude: &'a OsString,
    pub policy: &'a Policy,
    /// `env.sessionPassthrough`: the non-secret names passed from the
    /// caller, as to a new tmux session.
    pub passthrough: &'a [String],
    /// Where the roll's journal is kept (`registry::background_roll`).
    pub state_root: &'a Path,
}

/// What a process needs to run as the user, kept from the caller's
/// environment; everything else of it is left out.
const BASE_NAMES: &[&str] = &[
    "HOME",
    "PATH",
    "USER",
    "LOGNAME",
    "SHELL",
    "TMPDIR",
    "XDG_RUNTIME_DIR",
];

impl HostClient<'_> {
    pub fn new<'a>(
        config: &'a crate::desired::config::Config,
        claude: &'a OsString,
        policy: &'a Policy,
    ) -> HostClient<'a> {
        HostClient {
            claude,
            policy,
            passthrough: &config.env.session_passthrough,
            state_root: &config.state_root,
        }
    }

    /// Clears the command's environment to the base names (`HOME`, `PATH`,
    /// `USER`, `LOGNAME`, `SHELL`, `TMPDIR`, `XDG_RUNTIME_DIR`) and the
    /// passthrough names as the caller holds them, then sets the policy's
    /// (the env file's delivered values, the-loop's identifiers).
    pub fn environment(&self, command: &mut Command) {
        command.env_clear();
        let kept = BASE_NAMES
            .iter()
            .copied()
            .chain(self.passthrough.iter().map(String::as_str));
        for name in kept {
            if let Some(value) = std::env::var_os(name) {
                command.env(name, value);
            }
        }
        self.policy.desired_for_host().apply_to(command);
    }
}

/// Makes the config dir's daemon one that holds the policy's environment
/// (also before `sessions start --host claude-background` starts a session
/// under it).
pub fn ensure_daemon(
    client: &HostClient,
    config_dir: &Path,
    host_plan: &BackgroundHostPlan,
) -> DaemonReport {
    let (claude, policy) = (client.claude, client.policy);
    let old_pid = host_plan
        .daemon
        .as_ref()
        .map(|d| d.pid)
        .filter(|pid| *pid > 0);
    if host_plan.daemon.is_some() && !host_plan.daemon_drifts() {
        return DaemonReport {
            outcome: DaemonOutcome::Kept,
            old_pid,
            new_pid: old_pid,
            detail: None,
        };
    }
    let refused = |detail: String| DaemonReport {
        outcome: DaemonOutcome::Refused,
        old_pid,
        new_pid: None,
        detail: Some(detail),
    };
    if old_pid.is_some() {
        if let Err(why) = host::run_claude(
            claude,
            config_dir,
            &["daemon", "stop", "--any", "--keep-workers"],
            HOST_COMMAND,
        ) {
            return refused(format!("the old daemon could not be stopped: {why}"));
        }
    }
    let mut command = Command::new(claude);
    command
        .args(["daemon", "run"])
        .current_dir(config_dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    client.environment(&mut command);
    command.env("CLAUDE_CONFIG_DIR", config_dir);
    // A process group of its own: it outlives this command, and the
    // operator's Ctrl-C (sent to the terminal's foreground group) does not
    // reach it.
    command.process_group(0);
    let mut daemon = match command.spawn() {
        Ok(child) => child,
        Err(e) => {
            return refused(format!(
                "`claude daemon run` could not be started: {}",
                crate::fsutil::IoKind(e.kind())
            ))
        }
    };
    let ours = i32::try_from(daemon.id()).unwrap_or(0);
    let desired = policy.desired_for_host();
    let until = Instant::now().checked_add(SHOWS_WITHIN);
    loop {
        match host::daemon(config_dir) {
            DaemonSeen::Running { pid, env, .. } if pid == ours => {
                return match env {
                    EnvRead::Read(env) if policy.diff(&desired, &env).is_empty() => DaemonReport {
                        outcome: DaemonOutcome::Replaced,
                        old_pid,
                        new_pid: Some(pid),
                        detail: None,
                    },
                    EnvRead::Read(_) => refused(format!(
                        "the daemon the-loop started (pid {pid}) does not hold the policy's environment"
                    )),
                    EnvRead::Unverified(why) => refused(format!(
                        "what the daemon the-loop started (pid {pid}) holds could not be read: {why}"
                    )),
                };
            }
            DaemonSeen::Running { pid, .. } => {
                return refused(format!(
                    "another client started a daemon (pid {pid}) after the old one was stopped; \
                     its environment is its starter's, so nothing is respawned onto it (stop it with \
                     `claude daemon stop --any --keep-workers`, then apply again)"
                ))
            }
            DaemonSeen::Unreadable(why) => return refused(format!("daemon.lock: {why}")),
            DaemonSeen::None => {}
        }
        // One that ended before it took the config dir says so at once.
        if let Ok(Some(status)) = daemon.try_wait() {
            return refused(format!(
                "the daemon the-loop started (pid {ours}) exited ({status}) before it took the config dir"
            ));
        }
        if until.is_none_or(|u| Instant::now() >= u) {
            return refused(format!(
                "the daemon the-loop started (pid {ours}) did not take the config dir within {} s",
                SHOWS_WITHIN.as_secs()
            ));
        }
        std::thread::sleep(LOOK_EVERY);
    }
}

/// What became of `session`, before any new worker is known of it.
fn report_of(
    session: &crate::plan::background::BackgroundSessionPlan,
    outcome: BackgroundOutcome,
    detail: Option<String>,
) -> BackgroundSessionReport {
    BackgroundSessionReport {
        id: session.id.clone(),
        reference: session.reference.clone(),
        outcome,
        old_pid: session.pid,
        new_pid: None,
        conversation: session.conversation.clone(),
        detail,
    }
}

/// `claude respawn <id>`, then the new worker, verified.
pub(super) fn respawn(
    client: &HostClient,
    config_dir: &Path,
    session: &crate::plan::background::BackgroundSessionPlan,
) -> BackgroundSessionReport {
    let (claude, policy) = (client.claude, client.policy);
    let mut report = report_of(session, BackgroundOutcome::Failed, None);
    // The client holds what the host's daemon holds, and stands in the
    // session's directory: Claude Code refuses a respawn from a client
    // that would not bring the session's gateway (`ANTHROPIC_BASE_URL`),
    // and leaves the session running.
    let desired = policy.desired_for_host();
    let cwd = session
        .cwd
        .as_deref()
        .map(Path::new)
        .filter(|dir| dir.is_dir());
    let respawned = host::run_claude_as(
        claude,
        config_dir,
        &["respawn", &session.id],
        HOST_COMMAND,
        &mut |command| {
            client.environment(command);
            if let Some(dir) = cwd {
                command.current_dir(dir);
            }
        },
    );
    if let Err(why) = respawned {
        report.detail = Some(format!(
            "{why}; the session runs on as it was (`claude respawn {}` says why)",
            session.id
        ));
        return report;
    }
    let until = Instant::now().checked_add(SHOWS_WITHIN);
    loop {
        let seen = host::observe(claude, config_dir);
        let now = seen.sessions.iter().find(|s| s.listed.id == session.id);
        if let Some(now) = now.filter(|s| s.listed.pid.is_some() && s.listed.pid != session.pid) {
            report.new_pid = now.listed.pid;
            match &now.env {
                Some(EnvRead::Read(env)) => {
                    let changes = crate::harness::claude_background::worker_changes(
                        policy.diff(&desired, env),
                    );
                    if !changes.is_empty() {
                        let names: Vec<&str> = changes.iter().map(|c| c.name.as_str()).collect();
                        report.detail = Some(format!(
                            "the new worker holds other than the policy: {}",
                            names.join(", ")
                        ));
                    } else if now.listed.session_id != session.conversation {
                        report.detail = Some(format!(
                            "the new worker holds conversation {}, not {}",
                            now.listed.session_id.as_deref().unwrap_or("none"),
                            session.conversation.as_deref().unwrap_or("none")
                        ));
                    } else {
                        report.outcome = BackgroundOutcome::Restarted;
                    }
                    return report;
                }
                Some(EnvRead::Unverified(_)) | None => {}
            }
        }
        if until.is_none_or(|u| Instant::now() >= u) {
            report.detail = Some(format!(
                "no new worker could be verified within {} s of `claude respawn`",
                SHOWS_WITHIN.as_secs()
            ));
            return report;
        }
        std::thread::sleep(LOOK_EVERY);
    }
}
