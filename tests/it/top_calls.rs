//! One `top` refresh asks tmux what one `plan` asks, however many sessions
//! run: no call per session. A recording `tmux` first on PATH (as in
//! `tests/it/tmux_call_count.rs`) logs each call with its parent's pid and
//! a timestamp; top's calls are those whose parent is top, and a refresh is
//! a burst of them (refreshes are `--interval 1s` apart).

use crate::support::*;
use crate::top::{NEW, OLD};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

/// The `tmux` wrapper: `PPID NANOS ARGS` a line, then the real tmux.
fn install_timed_tmux(w: &World, log: &Path) {
    let real = crate::tmux_call_count::real_tmux();
    let script = format!(
        "#!/bin/sh\nprintf '%s %s %s\\n' \"$PPID\" \"$(date +%s%N)\" \"$*\" >> '{}'\nexec '{}' \"$@\"\n",
        log.display(),
        real.display()
    );
    let wrapper = w.bin_dir.join("tmux");
    std::fs::write(&wrapper, script).unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// top's calls (parent `pid`) in bursts: calls less than 300 ms apart are
/// one refresh. The first burst (top's own start, then its first refresh)
/// is left out.
fn refreshes(log: &Path, pid: u32) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let mut bursts: Vec<Vec<String>> = Vec::new();
    let mut last: Option<u128> = None;
    for line in text.lines() {
        let mut parts = line.splitn(3, ' ');
        let (Some(ppid), Some(nanos), args) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        if ppid != pid.to_string() {
            continue;
        }
        let nanos: u128 = nanos.parse().unwrap();
        if last.is_none_or(|l| nanos - l > 300_000_000) {
            bursts.push(Vec::new());
        }
        last = Some(nanos);
        let args = args.unwrap_or_default();
        // The command, not its arguments (names and formats vary).
        let verb = args
            .split_whitespace()
            .find(|a| !a.starts_with('-') && *a != "/dev/null")
            .unwrap_or(args);
        bursts.last_mut().unwrap().push(verb.to_owned());
    }
    bursts.into_iter().skip(1).collect()
}

/// The tmux calls of each refresh after the first, at `size` sessions.
fn calls_per_refresh(size: usize) -> Vec<Vec<String>> {
    let w = World::new();
    let log = w.root().join("tmux-calls.log");
    install_timed_tmux(&w, &log);
    w.rotated_fleet(size, OLD, NEW);
    let top = w.the_loop_in_pty(&["top", "--interval", "1s"]);
    let last = format!("github:octo/repo#{size}");
    wait_for(|| top.screen().contains(&last), "top draws every session");
    // The-loop runs under in-pty's fork: top is in-pty's child.
    let pid = descendants(top.child.id() as i32)
        .into_iter()
        .find(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/comm"))
                .is_ok_and(|c| c.trim() == "the-loop")
        })
        .expect("the-loop runs under in-pty") as u32;
    // A fourth begun: the third has made all its calls (a refresh read
    // while its screen look was still on its way looked one call short).
    wait_for(|| refreshes(&log, pid).len() >= 4, "four more refreshes");
    std::thread::sleep(Duration::from_millis(50));
    refreshes(&log, pid).into_iter().take(3).collect()
}

#[test]
fn a_refresh_asks_tmux_as_often_at_12_sessions_as_at_3() {
    let small = calls_per_refresh(3);
    let large = calls_per_refresh(12);
    assert!(!small[0].is_empty(), "{small:?}");
    assert!(
        small[0].len() <= 3,
        "one refresh is one plan's calls: {small:?}"
    );
    for refresh in small.iter().chain(&large) {
        assert_eq!(
            refresh, &small[0],
            "3 sessions: {small:?}\n12 sessions: {large:?}"
        );
    }
}
