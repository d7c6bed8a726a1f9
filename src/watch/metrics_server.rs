//! The HTTP side of `watch --metrics-listen`: a small server on `std::net`
//! that a hostile client cannot use to stop the reconciler (issue 34 part 4).
//!
//! - It reads only a request's head, at most [`HEAD_CAP`] bytes, and never
//!   a body: `Content-Length` is not read, so no size a client declares is
//!   ever allocated.
//! - It answers `GET`/`HEAD /metrics` (404, 405, 400, 408 or 431 otherwise)
//!   and closes the connection after that one response (`Connection:
//!   close`): a client that pipelines requests gets the first answered.
//! - The whole head must arrive within [`IO_TIMEOUT`], and the answer must be
//!   taken within it; a slow or idle client is dropped.
//! - At most [`MAX_CONNECTIONS`] are served at once, one thread each. A new
//!   connection beyond that makes room by dropping the oldest one still
//!   sending its head (an idle or slow client), or else the oldest, so a
//!   crowd of idle connections cannot keep a scraper out. At most
//!   [`MAX_HANDLERS`] threads exist (the served ones, and dropped ones not
//!   yet ended): beyond that a new connection waits up to a second, then
//!   is closed at once.
//!
//! The head's bounds and the response are in [`crate::watch::metrics_http`],
//! apart from the socket, so they can be fuzzed.

use super::metrics::Metrics;
use super::metrics_http::{plain, respond, Fed, Head};
use std::collections::VecDeque;
use std::io::{ErrorKind, Read, Write};
use std::net::{IpAddr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

pub use super::metrics_http::HEAD_CAP;
/// Connections served at once.
pub const MAX_CONNECTIONS: usize = 16;
/// Connection threads that may exist at once, counting ones dropped to make
/// room that have not ended yet (they end as soon as they run).
pub const MAX_HANDLERS: usize = 2 * MAX_CONNECTIONS;
/// How long a client has to send its whole head, and to take the answer.
pub const IO_TIMEOUT: Duration = Duration::from_secs(5);

#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("--metrics-listen: cannot listen on {addr}: {reason}")]
#[diagnostic(
    code(the_loop::watch::metrics_listen),
    help("pass a free local address and port, for example `--metrics-listen 127.0.0.1:9464`")
)]
pub struct ListenError {
    pub addr: SocketAddr,
    pub reason: String,
}

/// Binds `addr` and serves `/metrics` on a thread of its own until the
/// process exits. Returns the bound address (port 0 picks a free one). An
/// address other than loopback is served with a warning: the port has no
/// authentication.
pub fn serve(addr: SocketAddr, metrics: Metrics) -> Result<SocketAddr, ListenError> {
    let fail = |reason: String| ListenError { addr, reason };
    let listener = TcpListener::bind(addr).map_err(|err| fail(listen_reason(err.kind())))?;
    let bound = listener
        .local_addr()
        .map_err(|err| fail(listen_reason(err.kind())))?;
    if !is_loopback(bound.ip()) {
        tracing::warn!(
            "--metrics-listen {addr} is not a loopback address: the metrics port has no \
             authentication, and anyone who can reach it can read the fleet's counts; \
             prefer 127.0.0.1 behind a firewall or a tunnel"
        );
    }
    std::thread::Builder::new()
        .name("metrics".into())
        .spawn(move || accept_loop(&listener, &metrics))
        .map_err(|err| fail(format!("cannot start the server thread ({})", err.kind())))?;
    Ok(bound)
}

fn is_loopback(ip: IpAddr) -> bool {
    ip.to_canonical().is_loopback()
}

/// The io error's kind in words (the OS's own text can vary; the kind does not).
fn listen_reason(kind: ErrorKind) -> String {
    match kind {
        ErrorKind::AddrInUse => "the address is already in use".into(),
        ErrorKind::AddrNotAvailable => "the address is not available on this host".into(),
        ErrorKind::PermissionDenied => {
            "permission denied (ports below 1024 need privileges)".into()
        }
        kind => crate::fsutil::IoKind(kind).to_string(),
    }
}

/// One connection being served: a handle to drop it by, and whether it is
/// still sending its head.
struct Open {
    id: u64,
    handle: TcpStream,
    reading: bool,
}

#[derive(Default)]
struct Table {
    open: VecDeque<Open>,
    next: u64,
}

#[derive(Default)]
struct Shared {
    table: Mutex<Table>,
    handlers: AtomicUsize,
}

impl Shared {
    /// The table, even after a handler panicked holding it: it stays consistent.
    fn table(&self) -> MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A connection's place in the table and among the handlers, given back
/// when its thread ends, however it ends.
struct Slot {
    shared: Arc<Shared>,
    id: u64,
}

impl Slot {
    fn writing(&self) {
        let mut table = self.shared.table();
        let open = table.open.iter_mut().filter(|o| o.id == self.id);
        open.for_each(|o| o.reading = false);
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.shared.table().open.retain(|o| o.id != self.id);
        self.shared.handlers.fetch_sub(1, Ordering::SeqCst);
    }
}

fn accept_loop(listener: &TcpListener, metrics: &Metrics) {
    let shared = Arc::new(Shared::default());
    for stream in listener.incoming() {
        match stream {
            Ok(stream) => admit(&shared, stream, metrics),
            // Out of file descriptors and the like: wait rather than spin.
            Err(err) => {
                tracing::debug!(
                    "metrics: cannot accept a connection ({})",
                    crate::fsutil::IoKind(err.kind())
                );
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }
}

/// Gives `stream` a slot and a thread, dropping an older connection if the
/// table is full; closes it at once when that is not possible.
fn admit(shared: &Arc<Shared>, stream: TcpStream, metrics: &Metrics) {
    // Threads over the cap are ones just dropped to make room, ending as
    // soon as they run: wait for them a little, then close this one at once.
    let patience = Instant::now() + Duration::from_secs(1);
    while shared.handlers.load(Ordering::SeqCst) >= MAX_HANDLERS {
        if Instant::now() > patience {
            return;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let Ok(handle) = stream.try_clone() else {
        return;
    };
    let id = {
        let mut table = shared.table();
        if table.open.len() >= MAX_CONNECTIONS {
            let oldest = table.open.iter().position(|o| o.reading).unwrap_or(0);
            if let Some(dropped) = table.open.remove(oldest) {
                // Wakes its thread, which then ends.
                let _ = dropped.handle.shutdown(Shutdown::Both);
            }
        }
        let id = table.next;
        table.next += 1;
        table.open.push_back(Open {
            id,
            handle,
            reading: true,
        });
        id
    };
    shared.handlers.fetch_add(1, Ordering::SeqCst);
    let slot = Slot {
        shared: Arc::clone(shared),
        id,
    };
    let metrics = metrics.clone();
    // A thread that cannot start drops the closure, so the slot and the
    // connection with it.
    let _ = std::thread::Builder::new()
        .name("metrics-conn".into())
        .spawn(move || serve_connection(stream, &metrics, &slot));
}

/// Why no head was read.
enum NoHead {
    /// The client closed, or the connection was dropped to make room.
    Closed,
    TooLarge,
    TooSlow,
}

fn serve_connection(mut stream: TcpStream, metrics: &Metrics, slot: &Slot) {
    let response = match read_head(&mut stream, Instant::now() + IO_TIMEOUT) {
        Ok(head) => respond(metrics, &head),
        Err(NoHead::Closed) => return,
        Err(NoHead::TooLarge) => plain(
            431,
            "Request Header Fields Too Large",
            "request head too large\n",
        ),
        Err(NoHead::TooSlow) => plain(408, "Request Timeout", "the request head took too long\n"),
    };
    slot.writing();
    // All of it within the timeout, not each write: a client that takes a
    // byte at a time is dropped too. Not taking its answer is its problem.
    let deadline = Instant::now() + IO_TIMEOUT;
    let mut rest = &response[..];
    while !rest.is_empty() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || stream.set_write_timeout(Some(left)).is_err() {
            break;
        }
        match stream.write(rest) {
            Ok(0) => break,
            Ok(n) => rest = &rest[n..],
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    let _ = stream.shutdown(Shutdown::Write);
}

/// Reads up to the blank line that ends a head, and not a byte past
/// [`HEAD_CAP`] or `deadline` ([`Head`] keeps the count). Bytes after the
/// head (a body, a pipelined request) are never looked at.
fn read_head(stream: &mut TcpStream, deadline: Instant) -> Result<Vec<u8>, NoHead> {
    let mut head = Head::default();
    let mut buf = [0u8; 1024];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || stream.set_read_timeout(Some(left)).is_err() {
            return Err(NoHead::TooSlow);
        }
        let room = head.room().min(buf.len());
        let n = match stream.read(&mut buf[..room]) {
            Ok(0) => return Err(NoHead::Closed),
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                return Err(NoHead::TooSlow)
            }
            Err(_) => return Err(NoHead::Closed),
        };
        match head.feed(&buf[..n]) {
            Fed::More => {}
            Fed::Complete(head) => return Ok(head),
            Fed::TooLarge => return Err(NoHead::TooLarge),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exchange(addr: SocketAddr, bytes: &[u8]) -> String {
        let mut stream = TcpStream::connect(addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        stream.write_all(bytes).unwrap();
        let mut got = Vec::new();
        let _ = stream.read_to_end(&mut got);
        String::from_utf8_lossy(&got).into_owned()
    }

    #[test]
    fn a_declared_body_is_never_read_and_a_long_head_is_refused() {
        let addr = serve("127.0.0.1:0".parse().unwrap(), Metrics::new()).unwrap();
        let huge = format!(
            "GET /metrics HTTP/1.1\r\nContent-Length: {}\r\n\r\n",
            u64::MAX
        );
        assert!(exchange(addr, huge.as_bytes()).starts_with("HTTP/1.1 200 "));
        let long = format!(
            "GET /metrics HTTP/1.1\r\nX: {}\r\n\r\n",
            "a".repeat(HEAD_CAP)
        );
        let refused = exchange(addr, long.as_bytes());
        assert!(refused.starts_with("HTTP/1.1 431 "), "{refused}");
    }

    #[test]
    fn idle_connections_make_room_for_a_scraper() {
        let addr = serve("127.0.0.1:0".parse().unwrap(), Metrics::new()).unwrap();
        let idle: Vec<_> = (0..3 * MAX_CONNECTIONS)
            .map(|_| TcpStream::connect(addr).unwrap())
            .collect();
        let answer = exchange(addr, b"GET /metrics HTTP/1.1\r\n\r\n");
        assert!(answer.starts_with("HTTP/1.1 200 "), "{answer}");
        drop(idle);
    }

    #[test]
    fn a_port_in_use_is_a_clear_error_not_a_panic() {
        let taken = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = taken.local_addr().unwrap();
        let err = serve(addr, Metrics::new()).unwrap_err();
        assert_eq!(err.reason, "the address is already in use");
        assert!(err.to_string().contains(&addr.to_string()), "{err}");
    }

    #[test]
    fn only_loopback_counts_as_local() {
        for ip in ["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"] {
            assert!(is_loopback(ip.parse().unwrap()), "{ip}");
        }
        for ip in ["0.0.0.0", "::", "10.0.0.1", "::ffff:10.0.0.1"] {
            assert!(!is_loopback(ip.parse().unwrap()), "{ip}");
        }
    }
}
