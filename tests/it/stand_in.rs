//! The stand-in harness itself (`tests/it/support/stand-in-claude`): it
//! must end as Claude Code does when its terminal goes or a signal comes,
//! or every test world leaves a process behind and the next tests (and any
//! benchmark run beside them) read a machine full of strays.

use crate::support::*;

/// A world with one started session whose stand-in is ready; with that
/// stand-in's pid.
fn ready_stand_in(reference: &str, slug: &str) -> (World, LegacySession, i32) {
    let w = World::new();
    w.write_env("EXAMPLE_SETTING=not-secret\n");
    let s = w.started_session(reference, slug);
    wait_for(
        || w.transcript_text(&s).contains("\"type\":\"ready\""),
        "the stand-in is ready",
    );
    let pid = w.pane(&s.name).expect("the stand-in's pane").pid;
    (w, s, pid)
}

#[test]
fn the_stand_in_ends_when_its_tmux_server_goes() {
    let (w, s, pid) = ready_stand_in("github:octo/repo#91", "github-octo-repo-91");
    let _ = w.tmux(&["kill-server"]);
    // Its terminal closed and tmux sent SIGHUP: recorded, then gone.
    wait_for(|| !alive(pid), "the stand-in ended with its terminal");
    let transcript = w.transcript_text(&s);
    assert!(transcript.contains("\"signal\":\"HUP\""), "{transcript}");
}

#[test]
fn a_sigterm_is_recorded_then_the_stand_in_ends() {
    let (w, s, pid) = ready_stand_in("github:octo/repo#92", "github-octo-repo-92");
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    wait_for(|| !alive(pid), "the stand-in ended on SIGTERM");
    // Recorded, and the transcript's last line: tests take it as the end.
    let transcript = w.transcript_text(&s);
    let line = format!("{{\"type\":\"signal\",\"signal\":\"TERM\",\"pid\":{pid}}}");
    assert!(transcript.trim_end().ends_with(&line), "{transcript}");
}
