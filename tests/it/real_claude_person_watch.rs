//! `watch --apply` over a real Claude Code session (the pinned CLI): held
//! while a turn runs, a shell runs in the background or a person is
//! attached, and rolled soon after what held it ends: within five seconds
//! of an Escape or a detach, which fire no hook (watch's own re-look sees
//! them). The person's helpers are `real_claude_person`'s.

use crate::real_claude::wait_long;
use crate::real_claude_person::{
    end_tool, model_backgrounds_a_shell, person, person_backgrounds_a_shell, resumes, Mode,
};
use crate::real_claude_turns::{Real, NEW};
use crate::support::watching::{Watch, RELOOK};
use crate::support::*;
use std::time::{Duration, Instant};

/// Watch started on `real`: as patient as `wait_long`, a real CLI being
/// slow to start and resume.
fn watching(real: &Real) -> Watch {
    Watch::start(&real.w, Duration::from_secs(60))
}

/// Held for `seconds` across re-looks: the same claude (`old`) all along,
/// `also` holding at every look, never ended.
fn stays_held(real: &Real, watch: &Watch, old: i32, seconds: u64, why: &str, also: &dyn Fn()) {
    let looks = watch.count(RELOOK);
    let until = Instant::now() + Duration::from_secs(seconds);
    while Instant::now() < until {
        assert_eq!(real.pid(), old, "{why}:\n{}", watch.text());
        also();
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(real.w.events_named("session.harness_terminated").is_empty());
    assert!(watch.count(RELOOK) > looks, "{}", watch.text());
}

/// The new claude in the pane once `old` was rolled, and how long after
/// `since` it was seen.
fn next_claude(real: &Real, old: i32, since: Instant, what: &str) -> (i32, Duration) {
    let mut pid = old;
    wait_long(
        || {
            pid = real.w.pane(&real.name).map_or(old, |p| p.pid);
            pid != old
        },
        what,
    );
    (pid, since.elapsed())
}

/// One respawn, onto the rotated value, resuming the conversation.
fn rolled_onto_the_rotation(real: &Real, watch: &Watch, pid: i32) {
    watch.wait_for("watch roll finished: 1 respawned, 0 failed");
    wait_for_harness(pid);
    assert_eq!(real.pid(), pid, "one respawn");
    assert_eq!(
        environ(pid).get("EXTRA_TOKEN").map(String::as_str),
        Some(NEW)
    );
    resumes(real, pid);
}

/// Escape mid-turn fires no hook; watch's own re-look sees the turn over on
/// screen and rolls the session within five seconds of the key.
#[test]
fn watch_rolls_an_escape_mid_turn_on_the_real_cli_within_five_seconds() {
    let _alone = alone();
    let Some(real) = person(Mode::Auto) else {
        return;
    };
    real.converse();
    let watch = watching(&real);
    real.start_slow_turn();
    let old = real.pid();
    real.rotate();
    watch.wait_for("rolled the moment its turn ends");
    stays_held(&real, &watch, old, 4, "ended mid-turn", &|| {});
    assert!(alive(old) && real.screen().contains("esc to interrupt"));

    // Taken before the key: the interval measured is, if anything, long.
    let escaped = Instant::now();
    real.keys(&["Escape"]);
    let (pid, took) = next_claude(&real, old, escaped, "a new claude in the pane");
    assert!(
        took < Duration::from_secs(5),
        "rolled {took:?} after Escape:\n{}",
        watch.text()
    );
    rolled_onto_the_rotation(&real, &watch, pid);
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
    let tail = model_backgrounds_a_shell(&real);
    held_by_its_shell_then_rolled(real, tail);

    // The person's way: Ctrl-B twice on a running tool.
    let Some((real, tail)) = person_backgrounds_a_shell() else {
        return;
    };
    held_by_its_shell_then_rolled(real, tail);
}

/// Rotated under `watch --apply` with a shell (`tail`) in the background:
/// held while it runs, neither claude nor the shell ended; rolled once it
/// ends.
fn held_by_its_shell_then_rolled(real: Real, tail: i32) {
    let watch = watching(&real);
    let old = real.pid();
    real.rotate();
    watch.wait_for("held: a background shell or task runs");
    stays_held(&real, &watch, old, 6, "ended with its shell", &|| {
        assert!(alive(tail), "the shell was cut:\n{}", watch.text());
    });

    end_tool(tail);
    let (pid, _) = next_claude(
        &real,
        old,
        Instant::now(),
        "a new claude in the pane once the shell ended",
    );
    rolled_onto_the_rotation(&real, &watch, pid);
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
    let watch = watching(&real);
    let old = real.pid();
    real.rotate();
    watch.wait_for(&format!(
        "{reference}: 1 tmux client(s) attached; rolled once no client is attached"
    ));
    stays_held(&real, &watch, old, 4, "rolled while attached", &|| {});

    let detached = Instant::now();
    real.w
        .tmux_ok(&["detach-client", "-s", &format!("={}", real.name)]);
    let (pid, took) = next_claude(
        &real,
        old,
        detached,
        "a new claude in the pane after the detach",
    );
    assert!(
        took < Duration::from_secs(5),
        "rolled {took:?} after the detach:\n{}",
        watch.text()
    );
    rolled_onto_the_rotation(&real, &watch, pid);
}
