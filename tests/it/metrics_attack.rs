//! `watch --metrics-listen` under hostile clients (issue 34 part 4): a
//! declared body of any size, a client that pipelines and never reads,
//! idle connections by the thousand, a head that never ends and a flood
//! neither stop `watch`, nor pile up its threads, nor keep a well-behaved
//! scraper out; a rotation saved during the attack is rolled and verified.
//! The listen address is checked too: `localhost:PORT` works, a
//! non-loopback address is served with a warning, anything else is refused
//! naming the flag.

use super::metrics::{clean_fleet, rotate, sample, start_watch, Background, CANARIES, ROTATED};
use crate::support::*;
use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Threads a well-behaved server may add under attack: its connection cap
/// (16), the handlers it has just dropped, its accept loop, with room to spare.
const THREAD_ALLOWANCE: usize = 40;

/// The `Threads:` line of `/proc/PID/status`.
fn threads(watch: &Background) -> usize {
    let status = std::fs::read_to_string(format!("/proc/{}/status", watch.child.id())).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("Threads:"))
        .and_then(|n| n.trim().parse().ok())
        .unwrap()
}

/// Fails, with the log, when `watch` has exited.
fn assert_alive(watch: &mut Background) {
    let status = watch.child.try_wait().unwrap();
    assert!(
        status.is_none(),
        "watch exited ({status:?}) under attack; its log:\n{}",
        watch.text()
    );
}

/// A watch that rolls on a clean fleet of two, with metrics on a free port.
fn watched() -> (World, Vec<LegacySession>, Background, SocketAddr) {
    let w = World::new();
    let sessions = clean_fleet(&w);
    let (watch, addr) = start_watch(
        &w,
        &["--apply", "--interval", "3600", "--debounce-ms", "200"],
    );
    watch.wait_for_log("no drift: 2 running session(s)", Duration::from_secs(10));
    (w, sessions, watch, addr)
}

/// Writes `bytes` and reads until the server closes; `Ok(None)` when it
/// neither answered nor closed within `within`.
fn exchange(addr: SocketAddr, bytes: &[u8], within: Duration) -> std::io::Result<Option<Vec<u8>>> {
    let mut stream = TcpStream::connect(addr)?;
    stream.set_read_timeout(Some(within))?;
    stream.write_all(bytes)?;
    let mut got = Vec::new();
    match stream.read_to_end(&mut got) {
        Ok(_) => Ok(Some(got)),
        Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => Ok(None),
        Err(e) => Err(e),
    }
}

/// A well-behaved scraper: one GET, closing, with a short patience; it may
/// retry (as Prometheus does on its next interval) within `within`.
fn scrape_within(addr: SocketAddr, within: Duration) -> String {
    let start = Instant::now();
    let mut last = String::new();
    while start.elapsed() < within {
        let request = format!("GET /metrics HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
        match exchange(addr, request.as_bytes(), Duration::from_secs(2)) {
            Ok(Some(raw)) => {
                let raw = String::from_utf8_lossy(&raw).into_owned();
                if raw.starts_with("HTTP/1.1 200 ") {
                    return raw;
                }
                last = format!("answer: {raw:.200}");
            }
            Ok(None) => last = "no answer within 2s".into(),
            Err(e) => last = format!("error: {e}"),
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("no scrape answered within {within:?}; last: {last}");
}

/// `GET /metrics` declaring a body of `length` bytes it never sends; says
/// whether it was let go: an answer, a close or a reset are all fine,
/// hanging (no answer within 10s) is not.
fn declared_body(addr: SocketAddr, length: &str) -> Result<(), String> {
    let head = format!("GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: {length}\r\n\r\n");
    match exchange(addr, head.as_bytes(), Duration::from_secs(10)) {
        Ok(None) => Err(format!(
            "Content-Length {length}: neither answered nor closed within 10s"
        )),
        _ => Ok(()),
    }
}

/// A client that pipelines 20,000 GETs and never reads; it holds its
/// connection until `stop`.
fn pipeliner(addr: SocketAddr, stop: Arc<AtomicBool>) -> JoinHandle<()> {
    std::thread::spawn(move || {
        let Ok(mut stream) = TcpStream::connect(addr) else {
            return;
        };
        let _ = stream.set_write_timeout(Some(Duration::from_millis(200)));
        let request = b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
        let mut sent = 0;
        while !stop.load(Ordering::SeqCst) {
            if sent < 20_000 && stream.write_all(request).is_ok() {
                sent += 1;
            } else {
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    })
}

/// Up to `want` idle connections (fewer when this process's open-file
/// limit is low), nothing sent on any.
fn idle_connections(addr: SocketAddr, want: usize) -> Vec<TcpStream> {
    let limits = std::fs::read_to_string("/proc/self/limits").unwrap_or_default();
    let soft: usize = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .and_then(|l| l.split_whitespace().nth(3)?.parse().ok())
        .unwrap_or(1024);
    let n = want.min(soft.saturating_sub(300));
    (0..n)
        .filter_map(|_| TcpStream::connect(addr).ok())
        .collect()
}

/// A head that never ends: a header line every 300ms. Returns how long the
/// server kept the connection open (capped at `give_up`).
fn slowloris(addr: SocketAddr, give_up: Duration) -> Duration {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_millis(300)))
        .unwrap();
    let start = Instant::now();
    let _ = stream.write_all(b"GET /metrics HTTP/1.1\r\n");
    let mut buf = [0; 512];
    while start.elapsed() < give_up {
        match stream.read(&mut buf) {
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
            // Closed (perhaps after a 408 or 431): the server let go.
            _ => return start.elapsed(),
        }
        if stream.write_all(b"X-Slow: 1\r\n").is_err() {
            return start.elapsed();
        }
    }
    let _ = stream.shutdown(Shutdown::Both);
    give_up
}

/// `threads` clients, each sending `each` GETs one after another; returns
/// how many were answered 200.
fn flood(addr: SocketAddr, threads: usize, each: usize) -> JoinHandle<usize> {
    std::thread::spawn(move || {
        let clients: Vec<_> = (0..threads)
            .map(|_| {
                std::thread::spawn(move || {
                    (0..each)
                        .filter(|_| {
                            let request = b"GET /metrics HTTP/1.0\r\n\r\n";
                            matches!(exchange(addr, request, Duration::from_secs(5)),
                                Ok(Some(raw)) if raw.starts_with(b"HTTP/1.1 200 "))
                        })
                        .count()
                })
            })
            .collect();
        clients.into_iter().map(|c| c.join().unwrap()).sum()
    })
}

#[test]
fn a_declared_body_of_any_size_neither_aborts_watch_nor_silences_its_port() {
    let (_w, _sessions, mut watch, addr) = watched();
    let let_go = declared_body(addr, &u64::MAX.to_string());
    let log = watch.text();
    assert!(!log.contains("panicked"), "{log}");
    assert!(
        !log.contains("intent journal"),
        "no respawn was in flight: {log}"
    );
    let_go.unwrap();
    scrape_within(addr, Duration::from_secs(5));
    let let_go = declared_body(addr, "99999999999");
    assert_alive(&mut watch);
    let_go.unwrap();
    scrape_within(addr, Duration::from_secs(5));
}

#[test]
fn a_pipelining_client_that_never_reads_keeps_no_scrape_waiting() {
    let (_w, _sessions, mut watch, addr) = watched();
    let stop = Arc::new(AtomicBool::new(false));
    let client = pipeliner(addr, Arc::clone(&stop));
    std::thread::sleep(Duration::from_secs(1));
    for _ in 0..3 {
        scrape_within(addr, Duration::from_secs(5));
    }
    assert_alive(&mut watch);
    stop.store(true, Ordering::SeqCst);
    client.join().unwrap();
}

#[test]
fn idle_connections_by_the_thousand_do_not_pile_up_threads() {
    let (_w, _sessions, mut watch, addr) = watched();
    scrape_within(addr, Duration::from_secs(5));
    let before = threads(&watch);
    let idle = idle_connections(addr, 2_000);
    assert!(idle.len() >= 500, "only {} connections opened", idle.len());
    std::thread::sleep(Duration::from_millis(500));
    let during = threads(&watch);
    assert!(
        during <= before + THREAD_ALLOWANCE,
        "{} idle connections: {before} threads became {during}",
        idle.len()
    );
    scrape_within(addr, Duration::from_secs(5));
    assert_alive(&mut watch);
    drop(idle);
}

#[test]
fn a_head_that_never_ends_is_dropped_after_the_timeout() {
    let (_w, _sessions, mut watch, addr) = watched();
    let held = slowloris(addr, Duration::from_secs(20));
    assert!(held < Duration::from_secs(10), "held open for {held:?}");
    assert_alive(&mut watch);
    scrape_within(addr, Duration::from_secs(5));
}

#[test]
fn a_rotation_during_an_attack_is_rolled_and_scrapes_still_answer() {
    let (w, sessions, mut watch, addr) = watched();
    let before: Vec<i32> = sessions
        .iter()
        .map(|s| w.pane(&s.name).unwrap().pid)
        .collect();
    scrape_within(addr, Duration::from_secs(5));
    let baseline = threads(&watch);

    let stop = Arc::new(AtomicBool::new(false));
    let pipe = pipeliner(addr, Arc::clone(&stop));
    let loris = std::thread::spawn(move || slowloris(addr, Duration::from_secs(20)));
    let idle = idle_connections(addr, 1_000);
    let flooded = flood(addr, 4, 150);
    declared_body(addr, "99999999999").unwrap();
    declared_body(addr, &u64::MAX.to_string()).unwrap();

    rotate(&w);
    let start = Instant::now();
    let mut most = 0;
    while !watch
        .text()
        .contains("watch roll finished: 2 respawned, 0 failed")
    {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the roll did not finish under attack; log:\n{}",
            watch.text()
        );
        assert_alive(&mut watch);
        let text = scrape_within(addr, Duration::from_secs(5));
        assert!(sample(text.split_once("\r\n\r\n").unwrap().1, "the_loop_plan_ok").is_some());
        most = most.max(threads(&watch));
        std::thread::sleep(Duration::from_millis(200));
    }
    // The roll's own workers come and go as well (parallelism 8).
    assert!(
        most <= baseline + THREAD_ALLOWANCE + 8,
        "{baseline} threads before the attack, {most} during it"
    );
    let answered = flooded.join().unwrap();
    assert!(
        answered >= 300,
        "only {answered} of 600 flood requests answered"
    );
    stop.store(true, Ordering::SeqCst);
    pipe.join().unwrap();
    assert!(loris.join().unwrap() < Duration::from_secs(10));
    drop(idle);

    for (s, old) in sessions.iter().zip(before) {
        let pid = w.pane(&s.name).unwrap().pid;
        assert_ne!(pid, old, "{} was respawned", s.reference);
        assert_eq!(
            environ(pid).get("SLACK_BOT_TOKEN").map(String::as_str),
            Some(ROTATED),
            "the new process holds the rotated value"
        );
    }
    let after = scrape_within(addr, Duration::from_secs(5));
    assert!(
        after.contains("the_loop_rolls_total{outcome=\"restarted\"} 2"),
        "{after}"
    );
    assert_alive(&mut watch);
    let log = watch.text();
    assert!(!log.contains("panicked"), "{log}");
    assert_no_canary(log.as_bytes(), CANARIES, "the watch log");
}

/// `watch --metrics-listen VALUE`, until it serves or exits; its log.
fn listen(w: &World, value: &str) -> (Background, Option<String>) {
    let mut command = w.the_loop_command(&["watch", "--metrics-listen", value]);
    command.env_remove("RUST_LOG");
    let mut watch = Background::start(command, w.root().join(format!("watch-{value}.log")));
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(10) {
        let text = watch.text();
        if let Some(line) = text
            .lines()
            .find(|l| l.contains("serving Prometheus metrics at"))
        {
            return (watch, Some(line.to_owned()));
        }
        if watch.child.try_wait().unwrap().is_some() {
            return (watch, None);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("watch neither served nor exited: {}", watch.text());
}

#[test]
fn localhost_is_loopback_and_another_interface_is_served_with_a_warning() {
    let w = World::new();
    w.write_env("A=1\n");
    let (watch, line) = listen(&w, "localhost:0");
    let line = line.unwrap_or_else(|| panic!("localhost:0 refused: {}", watch.text()));
    assert!(line.contains("http://127.0.0.1:"), "{line}");
    assert!(
        !watch.text().contains("no authentication"),
        "{}",
        watch.text()
    );
    drop(watch);

    let (watch, line) = listen(&w, "0.0.0.0:0");
    assert!(line.is_some(), "{}", watch.text());
    assert!(
        watch.text().contains("no authentication"),
        "a port open beyond this host is said to be: {}",
        watch.text()
    );
    drop(watch);

    for bad in [
        "example.com:9464",
        "127.0.0.1:65536",
        "127.0.0.1:-1",
        "[::1]",
        "::1:9464",
    ] {
        let out = w.the_loop(&["watch", "--metrics-listen", bad]);
        assert_eq!(out.status.code(), Some(1), "{bad}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("--metrics-listen"),
            "{bad}: {}",
            stderr(&out)
        );
        assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
    }

    let help = w.the_loop(&["watch", "--help"]);
    assert!(
        stdout(&help).contains("no authentication"),
        "{}",
        stdout(&help)
    );
}
