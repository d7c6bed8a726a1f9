//! The fleet outlives its tmux server, on the real Claude Code (the pinned
//! CLI, `.ci/run`), offline. A person types the first prompt into a session
//! born on a server that holds the retired token in its own environment;
//! `apply --replace-server` moves it to a new server: the new process
//! resumes the same conversation and holds the new token, and nothing of
//! the new server holds either. Then the server is killed, and
//! `sessions start --all` brings the session back, resumed and verified.

use crate::real_claude::{real_claude, screen, wait_long};
use crate::support::real_setup::{claude_transcript, RealSession};
use crate::support::*;
use std::time::Duration;

const OLD: &str = "tok-OLD-server-canary";
const NEW: &str = "tok-NEW-server-canary";

#[test]
fn the_real_cli_moves_to_a_new_server_and_comes_back_after_a_kill_server() {
    let _alone = alone();
    let Some(claude) = real_claude() else {
        return;
    };
    // The server holds the retired token in its own environment.
    let RealSession {
        w,
        config_dir,
        cwd,
        name,
        id,
    } = RealSession::start(&claude, OLD, &[("EXTRA_TOKEN", OLD)]);
    wait_long(|| screen(&w, &name).contains('❯'), "the prompt");
    let target = format!("={name}:");
    w.tmux_ok(&["send-keys", "-t", &target, "-l", "remember the word zebra"]);
    std::thread::sleep(Duration::from_millis(500));
    w.tmux_ok(&["send-keys", "-t", &target, "Enter"]);
    let transcript = claude_transcript(&config_dir, &cwd, &id);
    wait_long(
        || transcript.is_file(),
        "the transcript of the first prompt",
    );
    // The offline turn ends in an error; the prompt comes back.
    wait_long(
        || screen(&w, &name).contains("resend your message") || screen(&w, &name).contains('❯'),
        "the turn ended",
    );
    w.write_env(&format!("EXTRA_TOKEN={NEW}\n"));

    // Run as a person would, from a shell whose Claude Code home is the
    // server's: the new server is started from it.
    let shell = [
        ("CLAUDE_CONFIG_DIR", config_dir.to_str().unwrap()),
        ("DISABLE_AUTOUPDATER", "1"),
    ];
    let old_server = w.server_pid().unwrap();
    let out = w.the_loop_with(
        &[
            "apply",
            "--replace-server",
            "--auto-approve",
            "--end-session",
            "keepalive",
            "--drain-timeout",
            "60s",
            "--json",
        ],
        &shell,
    );
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    assert_eq!(
        json(&out)["started"]["summary"]["started"],
        1,
        "{}",
        explain(&out)
    );
    let new_server = w.server_pid().unwrap();
    assert_ne!(new_server, old_server);
    let holds = |what: &str| {
        let pane = w.pane(&name).expect("the session is back");
        wait_for_harness(pane.pid);
        assert_eq!(
            environ(pane.pid).get("EXTRA_TOKEN").map(String::as_str),
            Some(NEW),
            "{what}: the new token"
        );
        let argv = cmdline(pane.pid);
        assert!(
            argv.windows(2).any(|a| a[0] == "--resume" && a[1] == id),
            "{what}: the same conversation: {argv:?}"
        );
        wait_long(|| screen(&w, &name).contains('❯'), "the resumed prompt");
        assert!(
            transcript.is_file(),
            "{what}: the transcript is where it was"
        );
    };
    holds("after --replace-server");
    let server_env = std::fs::read(format!("/proc/{new_server}/environ")).unwrap();
    assert_no_canary(&server_env, &[OLD, NEW], "the new server's environment");
    let plan = json(&w.the_loop_with(&["plan", "--json"], &shell));
    assert_eq!(
        plan["residue"]["entries"].as_array().map(Vec::len),
        Some(0),
        "{plan:#}"
    );

    w.tmux_ok(&["kill-server"]);
    let out = w.the_loop_with(&["sessions", "start", "--all", "--json"], &shell);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    holds("after sessions start --all");
    for (path, bytes) in w.state_files() {
        assert_no_canary(&bytes, &[OLD, NEW], &path.display().to_string());
    }
}
