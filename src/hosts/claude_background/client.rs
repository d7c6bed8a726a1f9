//! The client of Claude Code's background host: a command of the host's
//! (`claude daemon run`, `claude respawn`, `claude --bg`) run with an
//! environment of the policy's, not the caller's, since every worker ends
//! up holding what its daemon holds; and the daemon made one that holds the
//! policy's. When the daemon does not, it is stopped with its workers kept
//! (`claude daemon stop --any --keep-workers`, nothing is cut), and a
//! daemon the-loop starts itself (`claude daemon run`) takes its place;
//! what that daemon holds is read back before any respawn, and a daemon
//! another client started meanwhile is refused, with its pid.

use super::observe::{self as host, DaemonSeen};
use crate::desired::policy::Policy;
use crate::events::host::{LayerOutcome, LayerReport};
use crate::plan::host::HostPlan;
use crate::proc_env::EnvRead;
use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long a host command may take (`daemon stop`, `respawn`).
pub(super) const HOST_COMMAND: Duration = Duration::from_secs(30);
/// How long the new daemon, or a respawned worker, may take to show.
pub(super) const SHOWS_WITHIN: Duration = Duration::from_secs(30);
/// How often the host is looked at while something is awaited.
const LOOK_EVERY: Duration = Duration::from_millis(500);

/// Looks with `look` every [`LOOK_EVERY`] until it answers, for at most
/// [`SHOWS_WITHIN`]: `None` once that has passed with no answer.
pub(super) fn await_shown<T>(mut look: impl FnMut() -> Option<T>) -> Option<T> {
    let until = Instant::now().checked_add(SHOWS_WITHIN);
    loop {
        if let Some(answer) = look() {
            return Some(answer);
        }
        if until.is_none_or(|u| Instant::now() >= u) {
            return None;
        }
        std::thread::sleep(LOOK_EVERY);
    }
}

/// What a command of the host's (`claude daemon run`, `claude respawn`,
/// `claude --bg`) runs with: the Claude binary, and an environment of
/// the policy's, not the caller's: what every worker ends up holding.
pub struct HostClient<'a> {
    pub claude: &'a OsString,
    pub policy: &'a Policy,
    /// `env.sessionPassthrough`: the non-secret names passed from the
    /// caller, as to a new tmux session.
    pub passthrough: &'a [String],
    /// Where the roll's journal is kept (`registry::host_roll`).
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
pub fn ensure_daemon(client: &HostClient, config_dir: &Path, host_plan: &HostPlan) -> LayerReport {
    let (claude, policy) = (client.claude, client.policy);
    let old_pid = host_plan
        .layer
        .as_ref()
        .map(|d| d.pid)
        .filter(|pid| *pid > 0);
    if host_plan.layer.is_some() && !host_plan.layer_drifts() {
        return LayerReport {
            outcome: LayerOutcome::Kept,
            old_pid,
            new_pid: old_pid,
            detail: None,
        };
    }
    let refused = |detail: String| LayerReport {
        outcome: LayerOutcome::Refused,
        old_pid,
        new_pid: None,
        detail: Some(detail),
    };
    if let Some(old) = old_pid {
        if let Err(why) = host::run_claude(
            claude,
            config_dir,
            &["daemon", "stop", "--any", "--keep-workers"],
            HOST_COMMAND,
        ) {
            return refused(format!("the old daemon could not be stopped: {why}"));
        }
        if let Err(why) = gone(config_dir, old) {
            return refused(why);
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
    let shown = await_shown(|| {
        match host::daemon(config_dir) {
            DaemonSeen::Running { pid, env, .. } if pid == ours => {
                return Some(match env {
                    EnvRead::Read(env) if policy.diff(&desired, &env).is_empty() => LayerReport {
                        outcome: LayerOutcome::Replaced,
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
                });
            }
            DaemonSeen::Running { pid, .. } => {
                return Some(refused(format!(
                    "another client started a daemon (pid {pid}) after the old one was stopped; \
                     its environment is its starter's, so nothing is respawned onto it (stop it with \
                     `claude daemon stop --any --keep-workers`, then apply again)"
                )))
            }
            DaemonSeen::Unreadable(why) => return Some(refused(format!("daemon.lock: {why}"))),
            DaemonSeen::None => {}
        }
        // One that ended before it took the config dir says so at once.
        daemon.try_wait().ok().flatten().map(|status| {
            refused(format!(
                "the daemon the-loop started (pid {ours}) exited ({status}) before it took the config dir"
            ))
        })
    });
    shown.unwrap_or_else(|| {
        refused(format!(
            "the daemon the-loop started (pid {ours}) did not take the config dir within {} s",
            SHOWS_WITHIN.as_secs()
        ))
    })
}

/// Waits until the daemon `old`, told to stop, no longer holds the config
/// dir: `claude daemon stop` can return before it has (seen once on the
/// real Claude Code 2.1.332), and a daemon seen there after the new one was
/// started would otherwise be taken for another client's.
fn gone(config_dir: &Path, old: i32) -> Result<(), String> {
    let gone = await_shown(|| match host::daemon(config_dir) {
        DaemonSeen::Running { pid, .. } if pid == old => None,
        _ => Some(()),
    });
    gone.ok_or_else(|| {
        format!(
            "the old daemon (pid {old}) still held the config dir {} s after it was told to stop",
            SHOWS_WITHIN.as_secs()
        )
    })
}
