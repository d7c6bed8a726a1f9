//! One look at Claude Code's background host (`routing.hosts` names
//! `claude-background`): which background sessions run under the daemon of
//! a Claude config dir, what each worker process holds, and what the
//! daemon itself holds, the host's own layer (as tmux's server is a pane's).
//!
//! `claude agents --json --all` lists the sessions: it needs no terminal
//! and starts no daemon. Each listed pid is proved to be that session's
//! worker through `sessions/<pid>.json` (its `jobId`, and its `procStart`
//! against `/proc/<pid>/stat`), and the daemon through `daemon.lock` the
//! same way, before its environment is read. Nothing here writes or runs
//! anything else.

use crate::harness::claude_background::{self as files, BackgroundStatus, ListedSession};
use crate::proc_env::{EnvRead, ProcStat};
use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// The `claude` this host is run through: `routing.harnessBinary.claude`,
/// else `claude` on `PATH`, as for Claude Code in a pane.
pub fn claude_binary(config: &crate::desired::config::Config) -> OsString {
    crate::harness::resumable::harness_binary(config, &crate::harness::claude::ClaudeCode)
}

/// How long `claude agents --json` may take before the look gives up.
pub const LISTING_TIMEOUT: Duration = Duration::from_secs(20);
/// A listing larger than this is refused rather than read.
const LISTING_CAP: u64 = 4 * 1024 * 1024;
/// `daemon.lock` and `sessions/<pid>.json` are a few hundred bytes.
const SMALL_FILE: crate::bounded_read::Limit = crate::bounded_read::Limit {
    what: "a Claude Code host file",
    cap: 64 * 1024,
    links: crate::bounded_read::Links::Refuse,
    owner: None,
};

/// The host as one look saw it.
#[derive(Debug, Clone)]
pub struct BackgroundObservation {
    /// The Claude config dir whose daemon this is.
    pub config_dir: PathBuf,
    pub daemon: DaemonSeen,
    pub sessions: Vec<SeenSession>,
    /// The listing could not be had or read: the look is blind, and says
    /// why (a plan then counts it as an observation failure).
    pub failed: Option<String>,
}

/// The daemon of the config dir.
#[derive(Debug, Clone)]
pub enum DaemonSeen {
    /// None runs (no lock, or the lock's process is gone).
    None,
    Running {
        pid: i32,
        origin: Option<String>,
        version: Option<String>,
        env: EnvRead,
    },
    /// Its lock could not be read as this version's.
    Unreadable(String),
}

/// One background session, and what its worker holds.
#[derive(Debug, Clone)]
pub struct SeenSession {
    pub listed: ListedSession,
    /// `None` for a stopped session; unverified when the pid could not be
    /// proved to be its worker.
    pub env: Option<EnvRead>,
}

/// The Claude config dir the-loop manages: the one its own environment
/// names (`CLAUDE_CONFIG_DIR`), else `~/.claude`.
pub fn config_dir() -> Option<PathBuf> {
    std::env::var_os("CLAUDE_CONFIG_DIR")
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".claude")))
}

/// Looks at the host once.
pub fn observe(claude: &OsString, config_dir: &Path) -> BackgroundObservation {
    let daemon = daemon(config_dir);
    let (sessions, failed) = match list(claude, config_dir) {
        Ok(listed) => (
            listed
                .into_iter()
                .map(|listed| {
                    let env = worker_env(config_dir, &listed);
                    SeenSession { listed, env }
                })
                .collect(),
            None,
        ),
        Err(why) => (Vec::new(), Some(why)),
    };
    BackgroundObservation {
        config_dir: config_dir.to_path_buf(),
        daemon,
        sessions,
        failed,
    }
}

/// Runs `claude agents --json --all` for the config dir, with a timeout.
fn list(claude: &OsString, config_dir: &Path) -> Result<Vec<ListedSession>, String> {
    let json = run_claude(
        claude,
        config_dir,
        &["agents", "--json", "--all"],
        LISTING_TIMEOUT,
    )?;
    files::parse_agents(&json)
}

/// Runs one `claude` command of the host for `config_dir` and returns its
/// stdout; its stderr is dropped (it may echo the environment's words),
/// and a failure is said by its exit status only.
pub fn run_claude(
    claude: &OsString,
    config_dir: &Path,
    args: &[&str],
    timeout: Duration,
) -> Result<Vec<u8>, String> {
    run_claude_as(claude, config_dir, args, timeout, &mut |_| {})
}

/// [`run_claude`], the command first shaped by `shape` (its working
/// directory, the environment a client must hold for the host to act).
pub fn run_claude_as(
    claude: &OsString,
    config_dir: &Path,
    args: &[&str],
    timeout: Duration,
    shape: &mut dyn FnMut(&mut Command),
) -> Result<Vec<u8>, String> {
    let shown = args.join(" ");
    let mut command = Command::new(claude);
    shape(&mut command);
    let mut child = command
        .args(args)
        .env("CLAUDE_CONFIG_DIR", config_dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| {
            format!(
                "cannot run `claude {shown}`: {}",
                crate::fsutil::IoKind(e.kind())
            )
        })?;
    let stdout = child.stdout.take().expect("piped");
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let read = stdout.take(LISTING_CAP + 1).read_to_end(&mut bytes);
        let _ = send.send(read.map(|_| bytes));
    });
    let bytes = match receive.recv_timeout(timeout) {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(e)) => {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!(
                "cannot read `claude {shown}`: {}",
                crate::fsutil::IoKind(e.kind())
            ));
        }
        Err(_) => {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!(
                "`claude {shown}` did not answer within {} s",
                timeout.as_secs()
            ));
        }
    };
    let status = child
        .wait()
        .map_err(|e| format!("`claude {shown}`: {}", crate::fsutil::IoKind(e.kind())))?;
    if u64::try_from(bytes.len()).unwrap_or(u64::MAX) > LISTING_CAP {
        return Err(format!(
            "`claude {shown}` printed more than {LISTING_CAP} bytes"
        ));
    }
    if !status.success() {
        return Err(format!("`claude {shown}` failed ({status})"));
    }
    Ok(bytes)
}

/// The daemon `daemon.lock` names, if that very process still runs.
pub fn daemon(config_dir: &Path) -> DaemonSeen {
    let bytes = match crate::bounded_read::read(&config_dir.join("daemon.lock"), &SMALL_FILE) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return DaemonSeen::None,
        Err(e) => return DaemonSeen::Unreadable(crate::bounded_read::describe(&e)),
    };
    let lock = match files::parse_daemon_lock(&bytes) {
        Ok(lock) => lock,
        Err(why) => return DaemonSeen::Unreadable(why),
    };
    if !same_process(lock.pid, lock.proc_start) {
        return DaemonSeen::None;
    }
    DaemonSeen::Running {
        pid: lock.pid,
        origin: lock.origin,
        version: lock.version,
        env: crate::proc_env::read_environ(lock.pid),
    }
}

/// Whether `pid` is still the process that started at `start`.
fn same_process(pid: i32, start: u64) -> bool {
    pid > 0
        && ProcStat::read(Path::new("/proc"), pid)
            .is_some_and(|stat| stat.start == start && !stat.is_zombie())
}

/// The worker's environment, once its pid is proved to be the session's.
fn worker_env(config_dir: &Path, listed: &ListedSession) -> Option<EnvRead> {
    if listed.status == BackgroundStatus::Stopped {
        return None;
    }
    let pid = listed.pid?;
    let path = config_dir.join("sessions").join(format!("{pid}.json"));
    let proved = crate::bounded_read::read(&path, &SMALL_FILE)
        .map_err(|e| crate::bounded_read::describe(&e))
        .and_then(|bytes| files::parse_worker(&bytes))
        .and_then(|worker| {
            if worker.pid != pid || worker.job_id.as_deref() != Some(listed.id.as_str()) {
                Err(format!("sessions/{pid}.json names another session"))
            } else if !same_process(pid, worker.proc_start) {
                Err(format!(
                    "pid {pid} is no longer the process sessions/{pid}.json names"
                ))
            } else {
                Ok(())
            }
        });
    Some(match proved {
        Ok(()) => crate::proc_env::read_environ(pid),
        Err(why) => EnvRead::Unverified(why),
    })
}
