//! Ending a harness: SIGTERM, a grace period, then SIGKILL.
//!
//! Claude Code writes its conversation out on SIGTERM; a bare kill can lose
//! it. Signals go through a pidfd where the kernel has one, so a pid that
//! exited and was reused between the read and the signal is never hit.

use nix::errno::Errno;
use nix::libc;
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::{Duration, Instant};

/// How the harness ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Ending {
    /// Exited within the grace period after SIGTERM.
    Terminated,
    /// Needed SIGKILL.
    Killed,
    /// Was already gone.
    AlreadyGone,
    /// Still there even after SIGKILL.
    Survived,
}

/// A handle on one process that stays valid if the pid is reused.
pub struct ProcessHandle {
    pid: i32,
    pidfd: Option<OwnedFd>,
}

impl ProcessHandle {
    /// Refuses non-positive pids: `kill(0)` and `kill(-1)` address groups.
    pub fn open(pid: i32) -> Result<Self, Errno> {
        if pid <= 0 {
            return Err(Errno::EINVAL);
        }
        // SAFETY: pidfd_open takes a pid and flags and returns a new fd or -1.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
        if fd >= 0 {
            // SAFETY: the kernel just returned this fd to us, and nothing else owns it.
            return Ok(ProcessHandle {
                pid,
                pidfd: Some(unsafe { OwnedFd::from_raw_fd(fd as i32) }),
            });
        }
        match Errno::last() {
            Errno::ESRCH => Err(Errno::ESRCH),
            // Older kernels: fall back to plain pids.
            _ => Ok(ProcessHandle { pid, pidfd: None }),
        }
    }

    pub fn pid(&self) -> i32 {
        self.pid
    }

    pub fn signal(&self, signal: Signal) -> Result<(), Errno> {
        match &self.pidfd {
            Some(fd) => {
                // SAFETY: a valid pidfd, a signal number, no siginfo, no flags.
                let rc = unsafe {
                    libc::syscall(
                        libc::SYS_pidfd_send_signal,
                        fd.as_raw_fd(),
                        signal as libc::c_int,
                        std::ptr::null::<libc::siginfo_t>(),
                        0,
                    )
                };
                if rc == 0 {
                    Ok(())
                } else {
                    Err(Errno::last())
                }
            }
            None => kill(Pid::from_raw(self.pid), signal),
        }
    }

    pub fn is_alive(&self) -> bool {
        match &self.pidfd {
            Some(fd) => {
                let mut poll = libc::pollfd {
                    fd: fd.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                };
                // SAFETY: one valid pollfd, zero timeout.
                let rc = unsafe { libc::poll(&mut poll, 1, 0) };
                !(rc > 0 && poll.revents & libc::POLLIN != 0)
            }
            None => {
                !matches!(kill(Pid::from_raw(self.pid), None), Err(Errno::ESRCH))
                    && !is_zombie(self.pid)
            }
        }
    }

    fn wait_gone(&self, within: Duration) -> bool {
        let deadline = crate::clock::deadline(within);
        loop {
            if !self.is_alive() {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn is_zombie(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| s.rsplit_once(") ").map(|(_, rest)| rest.starts_with('Z')))
        .unwrap_or(false)
}

/// SIGTERM, wait up to `grace`, then SIGKILL and wait a little more.
pub fn end_gracefully(handle: &ProcessHandle, grace: Duration) -> Ending {
    match handle.signal(Signal::SIGTERM) {
        Err(Errno::ESRCH) => return Ending::AlreadyGone,
        Err(err) => tracing::warn!(pid = handle.pid(), error = %err, "SIGTERM refused"),
        Ok(()) => {}
    }
    if handle.wait_gone(grace) {
        return Ending::Terminated;
    }
    match handle.signal(Signal::SIGKILL) {
        Err(Errno::ESRCH) => return Ending::Terminated,
        Err(err) => tracing::warn!(pid = handle.pid(), error = %err, "SIGKILL refused"),
        Ok(()) => {}
    }
    if handle.wait_gone(Duration::from_secs(3)) {
        Ending::Killed
    } else {
        Ending::Survived
    }
}
