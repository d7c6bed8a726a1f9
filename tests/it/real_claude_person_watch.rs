//! `watch --apply` over a real Claude Code session (the pinned CLI), mid
//! turn: held while the turn runs, and rolled within five seconds of the
//! person's Escape, which fires no hook (watch's own re-look sees the turn
//! over on screen). The helpers are `real_claude_person`'s.

use crate::real_claude::wait_long;
use crate::real_claude_person::{
    a_shell_in_the_background, end_tool, person, resumes, tool_below, Mode,
};
use crate::real_claude_turns::NEW;
use crate::support::watching::{Watch, RELOOK};
use crate::support::*;
use std::time::{Duration, Instant};

/// Escape mid-turn fires no hook; watch's own re-look sees the turn over on
/// screen and rolls the session within five seconds of the key.
#[test]
fn watch_rolls_an_escape_mid_turn_on_the_real_cli_within_five_seconds() {
    let _alone = alone();
    let Some(real) = person(Mode::Auto) else {
        return;
    };
    real.converse();
    // As long as `wait_long` waits: a real CLI is slow to start and resume.
    let watch = Watch::start(&real.w, Duration::from_secs(60));
    real.start_slow_turn();
    let old = real.pid();
    real.rotate();
    watch.wait_for("rolled the moment its turn ends");

    // Held across re-looks: watched for seconds, never ended.
    let looks = watch.count(RELOOK);
    let until = Instant::now() + Duration::from_secs(4);
    while Instant::now() < until {
        assert_eq!(real.pid(), old, "ended mid-turn:\n{}", watch.text());
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(alive(old) && real.screen().contains("esc to interrupt"));
    assert!(real.w.events_named("session.harness_terminated").is_empty());
    assert!(watch.count(RELOOK) > looks, "{}", watch.text());

    // Taken before the key: the interval measured is, if anything, long.
    let escaped = Instant::now();
    real.keys(&["Escape"]);
    let mut pid = old;
    wait_long(
        || {
            pid = real.w.pane(&real.name).map_or(old, |p| p.pid);
            pid != old
        },
        "a new claude in the pane",
    );
    let took = escaped.elapsed();
    assert!(
        took < Duration::from_secs(5),
        "rolled {took:?} after Escape:\n{}",
        watch.text()
    );
    watch.wait_for("watch roll finished: 1 respawned, 0 failed");
    wait_for_harness(pid);
    assert_eq!(real.pid(), pid, "one respawn");
    assert_eq!(
        environ(pid).get("EXTRA_TOKEN").map(String::as_str),
        Some(NEW)
    );
    resumes(&real, pid);
}

/// A shell the model left in the background under `watch --apply`: held
/// across re-looks, the harness and the shell never ended, the log saying
/// why; once the shell ends, the next look rolls the session.
#[test]
fn watch_holds_a_background_shell_on_the_real_cli_and_rolls_once_it_ends() {
    let _alone = alone();
    let Some(real) = person(Mode::Auto) else {
        return;
    };
    real.type_line("background please");
    a_shell_in_the_background(&real);
    let tail = tool_below(&real, "120");
    let watch = Watch::start(&real.w, Duration::from_secs(60));
    let old = real.pid();
    real.rotate();
    watch.wait_for("held: a background shell or task runs");
    let looks = watch.count(RELOOK);
    let until = Instant::now() + Duration::from_secs(6);
    while Instant::now() < until {
        assert_eq!(real.pid(), old, "ended with its shell:\n{}", watch.text());
        assert!(alive(tail), "the shell was cut:\n{}", watch.text());
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(watch.count(RELOOK) > looks, "{}", watch.text());
    assert!(real.w.events_named("session.harness_terminated").is_empty());

    end_tool(tail);
    let mut pid = old;
    wait_long(
        || {
            pid = real.w.pane(&real.name).map_or(old, |p| p.pid);
            pid != old
        },
        "a new claude in the pane once the shell ended",
    );
    watch.wait_for("watch roll finished: 1 respawned, 0 failed");
    wait_for_harness(pid);
    assert_eq!(
        environ(pid).get("EXTRA_TOKEN").map(String::as_str),
        Some(NEW)
    );
    resumes(&real, pid);
}

/// A detach fires no hook: under `watch --apply` a session a person is
/// attached to is held, and rolled within five seconds of the detach.
#[test]
fn watch_rolls_the_real_cli_within_five_seconds_of_a_detach() {
    let _alone = alone();
    let Some(real) = person(Mode::Auto) else {
        return;
    };
    real.converse();
    let reference = "github:octo/repo#1";
    let _client = real.w.the_loop_in_pty(&["sessions", "attach", reference]);
    wait_for(|| !real.w.clients().is_empty(), "a real client attached");
    let watch = Watch::start(&real.w, Duration::from_secs(60));
    let old = real.pid();
    real.rotate();
    watch.wait_for(&format!(
        "{reference}: 1 tmux client(s) attached; rolled once no client is attached"
    ));
    let until = Instant::now() + Duration::from_secs(4);
    while Instant::now() < until {
        assert_eq!(real.pid(), old, "rolled while attached:\n{}", watch.text());
        std::thread::sleep(Duration::from_millis(100));
    }

    let detached = Instant::now();
    real.w
        .tmux_ok(&["detach-client", "-s", &format!("={}", real.name)]);
    let mut pid = old;
    wait_long(
        || {
            pid = real.w.pane(&real.name).map_or(old, |p| p.pid);
            pid != old
        },
        "a new claude in the pane after the detach",
    );
    let took = detached.elapsed();
    assert!(
        took < Duration::from_secs(5),
        "rolled {took:?} after the detach:\n{}",
        watch.text()
    );
    watch.wait_for("watch roll finished: 1 respawned, 0 failed");
    wait_for_harness(pid);
    assert_eq!(
        environ(pid).get("EXTRA_TOKEN").map(String::as_str),
        Some(NEW)
    );
    resumes(&real, pid);
}
