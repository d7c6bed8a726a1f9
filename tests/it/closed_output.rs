//! A reader that goes away (`the-loop status --json | head -1`) must never
//! crash the-loop: `println!` panics on EPIPE, and a panic in the middle of
//! a roll would leave a harness ended and its pane dead.

use crate::support::World;
use std::process::Stdio;

/// Runs the command with stdout and stderr both pipes whose read ends are
/// already closed, so every write fails with EPIPE.
fn run_with_closed_output(w: &World, args: &[&str]) -> (Option<i32>, String) {
    let (out_read, out_write) = nix::unistd::pipe().unwrap();
    let (err_read, err_write) = nix::unistd::pipe().unwrap();
    drop(out_read);
    drop(err_read);
    let status = w
        .the_loop_command(args)
        .stdin(Stdio::null())
        .stdout(Stdio::from(out_write))
        .stderr(Stdio::from(err_write))
        .status()
        .unwrap();
    (status.code(), format!("{args:?} ended with {status:?}"))
}

#[test]
fn a_closed_stdout_and_stderr_never_panic_any_printing_command() {
    let w = World::new();
    w.write_config("  deliver: [API_TOKEN]\n");
    w.write_env("API_TOKEN=first\n");
    let s = w.started_session("github:octo/repo#3", "github-octo-repo-3");
    w.write_env("API_TOKEN=second\n");
    let commands: &[&[&str]] = &[
        &["status"],
        &["status", "--json"],
        &["plan"],
        &["plan", "--json"],
        &["sessions", "list"],
        &["sessions", "list", "--json"],
        &["--help"],
        &["sessions", "nosuchverb"],
    ];
    for args in commands {
        let (code, what) = run_with_closed_output(&w, args);
        assert_ne!(code, Some(101), "{what}");
        assert!(code.is_some(), "killed by a signal: {what}");
    }
    // A roll whose reader went away still completes: the harness is
    // respawned and verified, not left dead by a panic after the SIGTERM.
    let before = w.pane(&s.name).unwrap().pid;
    let (code, what) = run_with_closed_output(&w, &["apply", "--auto-approve"]);
    assert_eq!(code, Some(0), "{what}");
    let pane = w.pane(&s.name).unwrap();
    assert!(!pane.dead, "{what}");
    assert_ne!(pane.pid, before, "respawned: {what}");
}

/// clap_complete wrote its script straight to stdout and panicked on EPIPE
/// (`the-loop completions bash | head -1`); every shell's script and the
/// manual page now go through the-loop's own output, and exit 0.
#[test]
fn completions_and_man_never_panic_on_a_closed_stdout() {
    let w = World::new();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let (code, what) = run_with_closed_output(&w, &["completions", shell]);
        assert_eq!(code, Some(0), "{what}");
    }
    let (code, what) = run_with_closed_output(&w, &["man"]);
    assert_eq!(code, Some(0), "{what}");
}
