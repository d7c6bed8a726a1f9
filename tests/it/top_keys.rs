//! `top`'s Enter and `d`, driven in a real tmux pane (`tests/it/top.rs`'s
//! helpers): Enter moves a real client as `sessions attach` does and `top`
//! is still there after; `d` delivers what was typed, through the one rule
//! of `src/typed_text.rs`, only after `y`.

use crate::support::*;
use crate::top::{
    assert_given_back, capture, keys, press_until, shell_pane, start_top, wait_for_screen, NEW, OLD,
};
use std::time::Duration;

/// A real client (a terminal of its own, `tests/it/support/in-pty`) on the
/// world's tmux session `session`, as a person at a terminal would be.
fn client_on(w: &World, session: &str) -> PtyProcess {
    let log = w.root().join(format!("client-{session}.log"));
    let helper = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/it/support/in-pty");
    let mut cmd = std::process::Command::new("python3");
    cmd.env_remove("TMUX")
        .env("TMUX_TMPDIR", &w.tmux_tmpdir)
        .env("HOME", &w.home)
        .env("TERM", "xterm")
        .args([helper, log.to_str().unwrap(), "--", "tmux"])
        .args(["attach-session", "-t", &format!("={session}")])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let client = PtyProcess {
        child: cmd.spawn().unwrap(),
        log,
    };
    wait_for(
        || w.clients().iter().any(|c| c.session == session),
        &format!("a client on {session}"),
    );
    client
}

fn client_sessions(w: &World) -> Vec<String> {
    w.clients().into_iter().map(|c| c.session).collect()
}

#[test]
fn enter_inside_tmux_switches_this_client_and_top_keeps_running() {
    let w = World::new();
    let fleet = w.rotated_fleet(2, OLD, NEW);
    let pane = shell_pane(&w, 120, 30);
    let _client = client_on(&w, "top-driver");
    start_top(&w, &pane, "");
    keys(&w, &pane, &["j", "Enter"]);
    wait_for(
        || client_sessions(&w) == [fleet[1].name.clone()],
        "the client was switched to #2's session",
    );
    // The same one client, switched: no tmux nested in top's pane.
    assert_eq!(w.clients().len(), 1, "{:?}", w.clients());
    // top still runs in its pane and says where the client went.
    wait_for_screen(&w, &pane, "switched this client to github:octo/repo#2");
    let screen = capture(&w, &pane);
    assert!(screen.contains("github:octo/repo#1"), "{screen}");
    // Back, as `prefix (` takes a person: top is still drawing and answers keys.
    w.tmux_ok(&["switch-client", "-t", "=top-driver"]);
    wait_for(
        || client_sessions(&w) == ["top-driver"],
        "the client is back on top's session",
    );
    press_until(&w, &pane, &["?"], "this help");
    // Apart: an Escape and the next key read in one go are one Alt-key.
    keys(&w, &pane, &["Escape"]);
    wait_for(
        || !capture(&w, &pane).contains("this help"),
        "the pop-up closes",
    );
    keys(&w, &pane, &["q"]);
    assert_given_back(&w, &pane, "q after an attach");
}

#[test]
fn enter_outside_tmux_runs_tmux_attach_and_top_resumes_when_it_detaches() {
    let w = World::new();
    let fleet = w.rotated_fleet(2, OLD, NEW);
    let mut top = w.the_loop_in_pty(&["top"]);
    wait_for(
        || top.screen().contains("github:octo/repo#1"),
        "top draws the table",
    );
    assert!(w.clients().is_empty(), "{:?}", w.clients());
    top.type_text("\r");
    wait_for(
        || client_sessions(&w) == [fleet[0].name.clone()],
        "tmux attach runs on top's terminal",
    );
    assert!(
        top.child.try_wait().unwrap().is_none(),
        "top waits for the attach, it did not become it"
    );
    w.tmux_ok(&["detach-client", "-s", &format!("={}", fleet[0].name)]);
    wait_for(|| w.clients().is_empty(), "detached");
    let said = "back from tmux attach to github:octo/repo#1";
    let resumed = (0..100).any(|_| {
        std::thread::sleep(Duration::from_millis(100));
        top.screen().contains(said)
    });
    let screen = top.screen();
    assert!(
        resumed,
        "top resumed and says {said:?}:\n{:?}",
        &screen[screen.len().saturating_sub(3000)..]
    );
    top.type_text("q");
    wait_for(
        || top.child.try_wait().unwrap().is_some(),
        "q quits the resumed top",
    );
    assert_eq!(top.child.wait().unwrap().code(), Some(0));
}

/// What the stand-in read from its terminal, waiting `settle` for more.
fn inputs_after(w: &World, s: &LegacySession, settle: Duration) -> Vec<String> {
    std::thread::sleep(settle);
    w.inputs(s)
}

#[test]
fn d_delivers_the_typed_text_after_y_and_nothing_after_n() {
    let w = World::new();
    w.write_env("EXAMPLE_SETTING=not-secret\n");
    let s = w.started_session("github:octo/repo#1", "github-octo-repo-1");
    let pane = shell_pane(&w, 120, 30);
    start_top(&w, &pane, "");

    // `n` at the confirm: nothing reaches the harness.
    keys(&w, &pane, &["d"]);
    w.tmux_ok(&["send-keys", "-t", &pane, "-l", "not this one"]);
    keys(&w, &pane, &["Enter"]);
    wait_for_screen(
        &w,
        &pane,
        "deliver 12 characters to github:octo/repo#1? [y/N]",
    );
    press_until(&w, &pane, &["n"], "cancelled; nothing was changed");
    assert_eq!(
        inputs_after(&w, &s, Duration::from_secs(1)),
        Vec::<String>::new()
    );
    assert!(w.events_named("dispatch.delivered").is_empty());

    // `y`: one delivery, typed as `sessions deliver` types it. A text that
    // begins with `/` would be a slash command: the rule makes it a prompt.
    keys(&w, &pane, &["d"]);
    w.tmux_ok(&["send-keys", "-t", &pane, "-l", "/clear the cache"]);
    press_until(&w, &pane, &["Enter"], "deliver 16 characters");
    press_until(&w, &pane, &["y"], "(any key closes)");
    let screen = capture(&w, &pane);
    assert!(screen.contains("delivered"), "{screen}");
    wait_for(|| !w.inputs(&s).is_empty(), "the harness read the delivery");
    assert_eq!(
        inputs_after(&w, &s, Duration::from_millis(300)),
        ["\u{1b}[200~› /clear the cache\u{1b}[201~"]
    );
    assert_eq!(w.events_named("dispatch.delivered").len(), 1);
    keys(&w, &pane, &["x", "q"]);
    assert_given_back(&w, &pane, "q after a delivery");
}
