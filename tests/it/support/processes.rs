//! Processes read from /proc, waiting without hanging, and what a test
//! needs from the machine: a free port, a turn alone for the heavy tests,
//! and the tools (a real CLI among them) it runs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The environment a process really holds, from /proc.
pub fn environ(pid: i32) -> BTreeMap<String, String> {
    let bytes = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
    bytes
        .split(|b| *b == 0)
        .filter_map(|kv| {
            let text = String::from_utf8_lossy(kv);
            text.split_once('=')
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
        })
        .collect()
}

pub fn cmdline(pid: i32) -> Vec<String> {
    let bytes = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    bytes
        .split(|b| *b == 0)
        .filter(|s| !s.is_empty())
        .map(|s| String::from_utf8_lossy(s).into_owned())
        .collect()
}

/// How long [`wait_for`] waits before calling a wait a hang. It guards
/// against a hang and times nothing (speed lives in `scripts/bench.sh`):
/// the full suite runs many tmux servers and harnesses on two cores, and
/// once a harness that had been sent SIGTERM took its pane past a
/// 10-second deadline there while the same test passed alone every time.
pub const HANG_GUARD: Duration = Duration::from_secs(30);

pub fn wait_for(mut check: impl FnMut() -> bool, what: &str) {
    let deadline = Instant::now() + HANG_GUARD;
    while !check() {
        assert!(Instant::now() < deadline, "timed out waiting: {what}");
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// Whether the process with this pid is still running: it exists and is
/// not a zombie. tmux 3.3a can miss a pane process's SIGCHLD (seen here:
/// a stand-in that exited on SIGTERM stayed a zombie until the server got
/// another SIGCHLD), so an ended harness may wait a long while to be
/// reaped; it has ended all the same, as the-loop's own check says
/// (`src/runner/signal.rs`, `has_exited`).
pub fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the command name's closing parenthesis.
        Ok(stat) => stat
            .rsplit_once(')')
            .is_none_or(|(_, rest)| !rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

/// A TCP port on 127.0.0.1 that was free a moment ago.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Waits until the pane's launcher has exec'd the harness: until then the
/// pid still runs `the-loop exec … -- claude …` and holds the launcher's
/// environment, not the harness's.
pub fn wait_for_harness(pid: i32) {
    wait_for(
        || {
            let argv = cmdline(pid);
            !argv.is_empty() && argv.get(1).map(String::as_str) != Some("exec")
        },
        "the launcher exec'd the harness",
    );
}

/// Every pid below `pid` (children, grandchildren, ...), from /proc.
pub fn descendants(pid: i32) -> Vec<i32> {
    let mut found = Vec::new();
    let mut queue = vec![pid];
    while let Some(p) = queue.pop() {
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{p}/task")) else {
            continue;
        };
        for task in tasks.flatten() {
            let children =
                std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
            for child in children.split_whitespace().filter_map(|c| c.parse().ok()) {
                if !found.contains(&child) {
                    found.push(child);
                    queue.push(child);
                }
            }
        }
    }
    found
}

/// Held by each test of `tests/heavy/` for its whole run: they load the
/// machine, so they run one at a time (a failed one's poison is ignored).
pub fn alone() -> std::sync::MutexGuard<'static, ()> {
    static HEAVY: std::sync::Mutex<()> = std::sync::Mutex::new(());
    HEAVY.lock().unwrap_or_else(|e| e.into_inner())
}

/// A tool a test needs, `found` or not: when it is missing the test says
/// SKIP loudly (`how` to get it) and its caller passes, unless
/// THE_LOOP_REQUIRE_TOOLS is set (CI sets it), when it fails.
pub fn required_tool(found: Option<PathBuf>, what: &str, how: &str) -> Option<PathBuf> {
    if found.is_none() {
        assert!(
            std::env::var_os("THE_LOOP_REQUIRE_TOOLS").is_none(),
            "{what} is not installed and THE_LOOP_REQUIRE_TOOLS is set (.ci/run installs it)"
        );
        // Straight to fd 2: libtest captures eprintln!, and a skip must be seen.
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr(),
            "\n*** SKIP: {what} is not installed ({how}) ***\n"
        );
    }
    found
}

/// A real CLI for the tiers that run one (`real_claude`, `real_codex`): at
/// `$<variable>`, else at `installed` (under the repository, where
/// `.ci/run` installs it); see [`required_tool`].
pub fn real_cli(what: &str, variable: &str, installed: &str) -> Option<PathBuf> {
    let installed = Path::new(env!("CARGO_MANIFEST_DIR")).join(installed);
    let found = std::env::var_os(variable)
        .map(PathBuf::from)
        .or(Some(installed))
        .filter(|p| p.is_file());
    required_tool(found, what, &format!("set {variable}, or run .ci/run"))
}
