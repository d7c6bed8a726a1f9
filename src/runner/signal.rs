//! Ending a harness: SIGTERM, a grace period, then SIGKILL.
//!
//! Claude Code writes its conversation out on SIGTERM; a bare kill can lose
//! it. Signals go through a pidfd where the kernel has one, so a pid that
//! exited and was reused between the read and the signal is never hit.

pub use crate::events::roll::Ending;
use crate::proc_env::ProcStat;
use nix::errno::Errno;
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use rustix::process::{pidfd_open, pidfd_send_signal, PidfdFlags};
use std::os::fd::OwnedFd;
use std::time::{Duration, Instant};

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
        let Some(rpid) = rustix::process::Pid::from_raw(pid) else {
            return Err(Errno::EINVAL);
        };
        match pidfd_open(rpid, PidfdFlags::empty()) {
            Ok(fd) => Ok(ProcessHandle {
                pid,
                pidfd: Some(fd),
            }),
            Err(rustix::io::Errno::SRCH) => Err(Errno::ESRCH),
            // Older kernels (ENOSYS) or a sandbox refusing it: plain pids.
            Err(_) => Ok(ProcessHandle { pid, pidfd: None }),
        }
    }

    pub fn pid(&self) -> i32 {
        self.pid
    }

    pub fn signal(&self, signal: Signal) -> Result<(), Errno> {
        match &self.pidfd {
            Some(fd) => {
                let signal =
                    rustix::process::Signal::from_named_raw(signal as i32).ok_or(Errno::EINVAL)?;
                pidfd_send_signal(fd, signal).map_err(|e| Errno::from_raw(e.raw_os_error()))
            }
            None => kill(Pid::from_raw(self.pid), signal),
        }
    }

    pub fn is_alive(&self) -> bool {
        match &self.pidfd {
            Some(fd) => !exited_within(fd, Duration::ZERO),
            None => !has_exited(self.pid),
        }
    }

    /// Waits up to `within` for the process to exit (a zombie counts);
    /// true once it has. With a pidfd the wait ends when the kernel says
    /// the process exited, not on a poll's tick: a roll ends every
    /// harness this way, the canary's on its critical path.
    pub fn wait_exit(&self, within: Duration) -> bool {
        let deadline = crate::clock::deadline(within);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match &self.pidfd {
                Some(fd) => {
                    if exited_within(fd, left) {
                        return true;
                    }
                }
                None if has_exited(self.pid) => return true,
                // Without a pidfd (an old kernel) nothing says when: look again.
                None => std::thread::sleep(left.min(Duration::from_millis(20))),
            }
            if Instant::now() >= deadline {
                return false;
            }
        }
    }
}

/// Whether `pidfd`'s process exits within `within` (at once for zero): a
/// pidfd polls readable once its process has exited. An interrupted poll
/// reads as not yet, and the caller's deadline decides.
fn exited_within(pidfd: &OwnedFd, within: Duration) -> bool {
    use rustix::event::{poll, PollFd, PollFlags, Timespec};
    let mut fds = [PollFd::new(pidfd, PollFlags::IN)];
    let timeout = Timespec {
        tv_sec: i64::try_from(within.as_secs()).unwrap_or(i64::MAX),
        tv_nsec: i64::from(within.subsec_nanos()),
    };
    let ready = poll(&mut fds, Some(&timeout)).unwrap_or(0);
    ready > 0 && fds[0].revents().contains(PollFlags::IN)
}

/// Whether `pid` is gone, or a zombie its parent has not reaped yet. A
/// process that cannot be seen otherwise (a restricted `/proc`) is alive.
pub fn has_exited(pid: i32) -> bool {
    matches!(kill(Pid::from_raw(pid), None), Err(Errno::ESRCH)) || is_zombie(pid)
}

fn is_zombie(pid: i32) -> bool {
    ProcStat::read(std::path::Path::new("/proc"), pid).is_some_and(|stat| stat.is_zombie())
}

/// SIGTERM, wait up to `grace`, then SIGKILL and wait a little more.
pub fn end_gracefully(handle: &ProcessHandle, grace: Duration) -> Ending {
    end_with(handle, Signal::SIGTERM, grace)
}

/// SIGHUP, as a shell gets when its terminal closes (an interactive shell
/// ignores SIGTERM), then as [`end_gracefully`]. For the shell a person
/// started a harness from, in a pane `the-loop import` adopted, once the
/// harness has ended.
pub fn hang_up(handle: &ProcessHandle, grace: Duration) -> Ending {
    end_with(handle, Signal::SIGHUP, grace)
}

/// `first`, wait up to `grace`, then SIGKILL and wait a little more.
fn end_with(handle: &ProcessHandle, first: Signal, grace: Duration) -> Ending {
    match handle.signal(first) {
        Err(Errno::ESRCH) => return Ending::AlreadyGone,
        Err(err) => {
            tracing::warn!(pid = handle.pid(), error = %err, signal = %first, "signal refused")
        }
        Ok(()) => {}
    }
    if handle.wait_exit(grace) {
        return Ending::Terminated;
    }
    match handle.signal(Signal::SIGKILL) {
        Err(Errno::ESRCH) => return Ending::Terminated,
        Err(err) => tracing::warn!(pid = handle.pid(), error = %err, "SIGKILL refused"),
        Ok(()) => {}
    }
    if handle.wait_exit(Duration::from_secs(3)) {
        Ending::Killed
    } else {
        Ending::Survived
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pidfd_handle_signals_and_sees_the_exit() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let pid = i32::try_from(child.id()).unwrap();
        let handle = ProcessHandle::open(pid).unwrap();
        assert!(handle.pidfd.is_some(), "this kernel has pidfd_open");
        assert!(handle.is_alive());
        assert_eq!(
            end_gracefully(&handle, Duration::from_secs(5)),
            Ending::Terminated
        );
        // Exited (a zombie until reaped) counts as gone.
        assert!(!handle.is_alive());
        child.wait().unwrap();
        // The reaped pid: no process to open a handle on.
        assert_eq!(ProcessHandle::open(pid).err(), Some(Errno::ESRCH));
        assert_eq!(ProcessHandle::open(0).err(), Some(Errno::EINVAL));
    }

    #[test]
    fn a_wait_ends_with_the_exit_and_a_live_process_outlasts_it() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let handle = ProcessHandle::open(i32::try_from(child.id()).unwrap()).unwrap();
        // Alive through the whole wait: false, and not before the deadline.
        let started = Instant::now();
        assert!(!handle.wait_exit(Duration::from_millis(200)));
        assert!(started.elapsed() >= Duration::from_millis(200));
        // Ended meanwhile (a zombie, not reaped yet): true.
        handle.signal(Signal::SIGKILL).unwrap();
        assert!(handle.wait_exit(Duration::from_secs(10)));
        child.wait().unwrap();
        // The same without a pidfd (an old kernel), by the pid alone.
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let plain = ProcessHandle {
            pid: i32::try_from(child.id()).unwrap(),
            pidfd: None,
        };
        assert!(!plain.wait_exit(Duration::from_millis(50)));
        plain.signal(Signal::SIGKILL).unwrap();
        assert!(plain.wait_exit(Duration::from_secs(10)));
        child.wait().unwrap();
    }
}
