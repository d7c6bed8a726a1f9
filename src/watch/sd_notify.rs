//! The service manager's notify protocol (systemd's `sd_notify`), for
//! `watch` under `Type=notify` (`examples/the-loop-watch.service`):
//! `READY=1` once watch holds its lock, serves its metrics and has planned
//! once; `WATCHDOG=1` from the loop at half of `WATCHDOG_USEC`; `STOPPING=1`
//! when a stop signal arrives; and `STATUS=` lines that carry counts only,
//! never a value, an env-file name or a session's ref.
//!
//! A datagram per message on the unix socket `NOTIFY_SOCKET` names: a path,
//! or an abstract name when it starts with `@`. Without the variable every
//! call does nothing. The variables are taken out of the environment before
//! watch starts a thread or a child, so no tmux client (nor a tmux server
//! one might start, nor its panes) inherits them.

use std::ffi::OsString;
use std::os::linux::net::SocketAddrExt;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::net::{SocketAddr, UnixDatagram};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Mutex;
use std::time::{Duration, Instant};

const NOTIFY_SOCKET: &str = "NOTIFY_SOCKET";
const WATCHDOG_USEC: &str = "WATCHDOG_USEC";
const WATCHDOG_PID: &str = "WATCHDOG_PID";

/// Talks to the service manager, or to nobody when none is listening.
/// `Sync`: the roll's workers keep the watchdog fed as sessions finish.
#[derive(Debug)]
pub struct Notifier {
    socket: Option<(UnixDatagram, SocketAddr)>,
    /// Half of `WATCHDOG_USEC`, when the manager expects keep-alives.
    ping_every: Option<Duration>,
    next_ping: Mutex<Option<Instant>>,
    /// When a roll last finished a session (see [`Notifier::while_rolling`]).
    progressed_at: Mutex<Instant>,
    ready: AtomicBool,
    stopping: AtomicBool,
    /// A failed send is logged once, not every ping.
    failed: AtomicBool,
}

impl Notifier {
    /// Reads `NOTIFY_SOCKET`, `WATCHDOG_USEC` and `WATCHDOG_PID` and removes
    /// them from the process's environment. Call it before watch starts any
    /// thread (the first thing [`super::run()`] does): changing the
    /// environment while another thread may read it is not sound.
    pub fn from_env() -> Notifier {
        let socket = std::env::var_os(NOTIFY_SOCKET);
        let usec = std::env::var(WATCHDOG_USEC).ok();
        let pid = std::env::var(WATCHDOG_PID).ok();
        for name in [NOTIFY_SOCKET, WATCHDOG_USEC, WATCHDOG_PID] {
            std::env::remove_var(name);
        }
        Notifier::from_vars(socket, usec.as_deref(), pid.as_deref(), std::process::id())
    }

    fn from_vars(
        socket: Option<OsString>,
        watchdog_usec: Option<&str>,
        watchdog_pid: Option<&str>,
        pid: u32,
    ) -> Notifier {
        let socket = socket.and_then(|name| match open(&name) {
            Ok(socket) => Some(socket),
            Err(err) => {
                tracing::warn!(
                    "cannot talk to the service manager at {} ({}); watch runs without it",
                    name.to_string_lossy(),
                    crate::fsutil::IoKind(err.kind())
                );
                None
            }
        });
        let ping_every = watchdog_interval(watchdog_usec, watchdog_pid, pid)
            .filter(|_| socket.is_some())
            .map(|usec| usec / 2);
        Notifier {
            next_ping: Mutex::new(ping_every.map(crate::clock::deadline)),
            progressed_at: Mutex::new(Instant::now()),
            socket,
            ping_every,
            ready: AtomicBool::new(false),
            stopping: AtomicBool::new(false),
            failed: AtomicBool::new(false),
        }
    }

    /// A notifier that says nothing (no service manager).
    pub fn none() -> Notifier {
        Notifier::from_vars(None, None, None, 0)
    }

    /// `READY=1` the first time, with `status`; `STATUS=` alone after that.
    pub fn planned(&self, status: &str) {
        if self.ready.swap(true, Ordering::SeqCst) {
            self.status(status);
        } else {
            self.send(&format!("READY=1\nSTATUS={status}\n"));
        }
    }

    pub fn status(&self, status: &str) {
        self.send(&format!("STATUS={status}\n"));
    }

    /// `STOPPING=1`, once.
    pub fn stopping(&self) {
        if !self.stopping.swap(true, Ordering::SeqCst) {
            self.send("STOPPING=1\nSTATUS=stopping: the respawns in flight finish first\n");
        }
    }

    /// When the loop must next call [`Notifier::keep_alive`], if ever.
    pub fn ping_deadline(&self) -> Option<Instant> {
        *self.next_ping.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `WATCHDOG=1` when half the watchdog interval has passed since the
    /// last one.
    pub fn keep_alive(&self) {
        if self
            .ping_deadline()
            .is_some_and(|due| Instant::now() >= due)
        {
            self.ping();
        }
    }

    /// `WATCHDOG=1` now, when the manager expects them.
    pub fn ping(&self) {
        let Some(every) = self.ping_every else {
            return;
        };
        *self.next_ping.lock().unwrap_or_else(|e| e.into_inner()) =
            Some(crate::clock::deadline(every));
        self.send("WATCHDOG=1\n");
    }

    /// A roll finished a session: it is making progress.
    pub fn progressed(&self) {
        *self.progressed_at.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
        self.ping();
    }

    /// Runs `roll` while a thread feeds the watchdog at half its interval,
    /// as long as the roll finishes a session ([`Notifier::progressed`])
    /// at least every `patience`: a roll takes as long as its sessions do,
    /// whatever `WatchdogSec` says, but one stuck longer than any session
    /// takes is left to the watchdog.
    pub fn while_rolling<T>(&self, patience: Duration, roll: impl FnOnce() -> T) -> T {
        let Some(every) = self.ping_every else {
            return roll();
        };
        *self.progressed_at.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
        let (done, finished) = mpsc::channel::<()>();
        std::thread::scope(|scope| {
            let feeder = std::thread::Builder::new()
                .name("watchdog".into())
                .spawn_scoped(scope, move || {
                    while let Err(RecvTimeoutError::Timeout) = finished.recv_timeout(every) {
                        let at = *self.progressed_at.lock().unwrap_or_else(|e| e.into_inner());
                        if crate::clock::Stopwatch::from(at).elapsed() < patience {
                            self.ping();
                        }
                    }
                });
            if let Err(err) = feeder {
                tracing::warn!(
                    "cannot feed the service manager's watchdog during the roll ({})",
                    crate::fsutil::IoKind(err.kind())
                );
            }
            let out = roll();
            drop(done);
            out
        })
    }

    fn send(&self, message: &str) {
        let Some((socket, addr)) = &self.socket else {
            return;
        };
        if let Err(err) = socket.send_to_addr(message.as_bytes(), addr) {
            if !self.failed.swap(true, Ordering::SeqCst) {
                tracing::warn!(
                    "cannot notify the service manager ({}); its watchdog may end watch",
                    crate::fsutil::IoKind(err.kind())
                );
            }
        }
    }
}

/// An unbound datagram socket and the manager's address: a path, or an
/// abstract name for `@name`.
fn open(name: &std::ffi::OsStr) -> std::io::Result<(UnixDatagram, SocketAddr)> {
    let bytes = name.as_bytes();
    let addr = match bytes.strip_prefix(b"@") {
        Some(abstract_name) => SocketAddr::from_abstract_name(abstract_name)?,
        None if bytes.starts_with(b"/") => SocketAddr::from_pathname(name)?,
        // `vsock:` and the like are for virtual machines, not a user's services.
        None => return Err(std::io::ErrorKind::Unsupported.into()),
    };
    let socket = UnixDatagram::unbound()?;
    // A manager that stops reading must not stop watch: a full queue drops
    // the message (and says so once) rather than blocking the loop.
    socket.set_nonblocking(true)?;
    Ok((socket, addr))
}

/// `WATCHDOG_USEC`, unless `WATCHDOG_PID` names another process (then the
/// watchdog is that one's, as `sd_watchdog_enabled` reads it).
fn watchdog_interval(usec: Option<&str>, for_pid: Option<&str>, pid: u32) -> Option<Duration> {
    if for_pid.is_some_and(|p| p.trim().parse::<u32>().ok() != Some(pid)) {
        return None;
    }
    let usec: u64 = usec?.trim().parse().ok().filter(|u| *u > 0)?;
    Some(Duration::from_micros(usec))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_watchdog_is_ours_only_when_its_pid_is_ours_or_unnamed() {
        let two = Some(Duration::from_secs(2));
        assert_eq!(watchdog_interval(Some("2000000"), None, 7), two);
        assert_eq!(watchdog_interval(Some("2000000"), Some("7"), 7), two);
        assert_eq!(watchdog_interval(Some("2000000"), Some("8"), 7), None);
        assert_eq!(watchdog_interval(Some("0"), None, 7), None);
        assert_eq!(watchdog_interval(Some("soon"), None, 7), None);
        assert_eq!(watchdog_interval(None, Some("7"), 7), None);
    }

    #[test]
    fn messages_reach_a_path_or_an_abstract_socket() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notify");
        let by_path = UnixDatagram::bind(&path).unwrap();
        let name = format!("the-loop-test-{}", std::process::id());
        let by_name =
            UnixDatagram::bind_addr(&SocketAddr::from_abstract_name(name.as_bytes()).unwrap())
                .unwrap();
        for (variable, listener) in [
            (path.clone().into_os_string(), &by_path),
            (OsString::from(format!("@{name}")), &by_name),
        ] {
            let n = Notifier::from_vars(Some(variable), Some("2000000"), None, 1);
            n.planned("2 sessions");
            n.planned("3 sessions");
            n.ping();
            n.stopping();
            n.stopping();
            let mut got = Vec::new();
            listener.set_nonblocking(true).unwrap();
            let mut buf = [0; 512];
            while let Ok(len) = listener.recv(&mut buf) {
                got.push(String::from_utf8_lossy(&buf[..len]).into_owned());
            }
            assert_eq!(
                got,
                [
                    "READY=1\nSTATUS=2 sessions\n",
                    "STATUS=3 sessions\n",
                    "WATCHDOG=1\n",
                    "STOPPING=1\nSTATUS=stopping: the respawns in flight finish first\n",
                ]
            );
            assert!(n.ping_deadline().is_some());
        }
    }

    /// Counts the pings `listener` receives, read as they come (a
    /// datagram queue holds only a few); [`Counter::take`] reads the count.
    struct Counter(std::sync::Arc<std::sync::atomic::AtomicUsize>);

    impl Counter {
        fn on(listener: UnixDatagram) -> Counter {
            let count = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
            let counted = std::sync::Arc::clone(&count);
            std::thread::spawn(move || {
                let mut buf = [0; 64];
                while let Ok(len) = listener.recv(&mut buf) {
                    if buf[..len] == *b"WATCHDOG=1\n" {
                        counted.fetch_add(1, Ordering::SeqCst);
                    }
                }
            });
            Counter(count)
        }

        fn take(&self) -> usize {
            std::thread::sleep(Duration::from_millis(30));
            self.0.swap(0, Ordering::SeqCst)
        }
    }

    #[test]
    fn a_roll_feeds_the_watchdog_only_while_it_finishes_sessions() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notify");
        let pings = Counter::on(UnixDatagram::bind(&path).unwrap());
        // Pinged every 50 ms.
        let n = Notifier::from_vars(Some(path.into_os_string()), Some("100000"), None, 1);
        let sleep = |ms| std::thread::sleep(Duration::from_millis(ms));
        n.while_rolling(Duration::from_secs(60), || sleep(420));
        let fed = pings.take();
        assert!((4..=9).contains(&fed), "{fed} pings in 420 ms");
        // Stuck: no session finished for longer than the patience.
        n.while_rolling(Duration::from_millis(120), || sleep(600));
        let fed = pings.take();
        assert!(fed <= 3, "{fed} pings past the patience");
        // Each finished session renews it.
        n.while_rolling(Duration::from_millis(120), || {
            for _ in 0..6 {
                sleep(100);
                n.progressed();
            }
        });
        let fed = pings.take();
        assert!(fed >= 9, "{fed} pings while sessions finish");
    }

    #[test]
    fn without_a_socket_nothing_is_sent_and_no_ping_is_due() {
        let n = Notifier::from_vars(None, Some("2000000"), None, 1);
        assert_eq!(n.ping_deadline(), None);
        n.planned("x");
        n.keep_alive();
        let n = Notifier::from_vars(Some("vsock:2:1".into()), Some("2000000"), None, 1);
        assert!(n.socket.is_none());
    }
}
