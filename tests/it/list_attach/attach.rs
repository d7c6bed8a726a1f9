//! `sessions attach`: short forms, ambiguous ones, and switching the client inside tmux.

use super::*;

#[test]
fn attach_takes_short_forms_and_lists_the_candidates_when_one_is_ambiguous() {
    let w = world();
    let a = w.legacy_session("github:octo/repo#15", "github-octo-repo-15");
    let b = w.legacy_session("github:octo/other#15", "github-octo-other-15");

    let out = w.the_loop(&["sessions", "attach", "#15"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("ref::ambiguous"), "{}", explain(&out));
    assert!(
        err.contains(&a.reference) && err.contains(&b.reference),
        "{err}"
    );
    assert!(w.clients().is_empty());

    let client = w.the_loop_in_pty(&["sessions", "attach", "other#15"]);
    wait_for(|| !w.clients().is_empty(), "attached by short form");
    assert_eq!(w.clients()[0].session, b.name);
    drop(client);
    wait_for(|| w.clients().is_empty(), "detached");

    let client = w.the_loop_in_pty(&["sessions", "attach", &a.name, "--read-only"]);
    wait_for(|| !w.clients().is_empty(), "attached by tmux name");
    assert_eq!(
        w.clients(),
        [Client {
            session: a.name.clone(),
            read_only: true
        }]
    );
    drop(client);
    wait_for(|| w.clients().is_empty(), "detached");

    let client = w.the_loop_in_pty(&["sessions", "attach", "--work-item", "repo#15"]);
    wait_for(|| !w.clients().is_empty(), "attached with --work-item");
    assert_eq!(w.clients()[0].session, a.name);
    drop(client);

    let out = w.the_loop(&["sessions", "attach", "#404"]);
    assert!(
        stderr(&out).contains("ref::not_registered"),
        "{}",
        explain(&out)
    );
}

#[test]
fn attach_inside_tmux_switches_the_client_instead_of_nesting() {
    let w = world();
    let s = w.legacy_session("github:octo/repo#15", "github-octo-repo-15");
    // The hub: a shell in tmux with a real client in a terminal, as the web
    // terminal serves it.
    w.tmux_ok(&[
        "new-session",
        "-d",
        "-s",
        "hub",
        "-x",
        "120",
        "-y",
        "40",
        "sh",
    ]);
    let log = w.root().join("hub-client.log");
    let helper = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/it/support/in-pty");
    let mut hub_client = std::process::Command::new("python3");
    hub_client
        .env_remove("TMUX")
        .env("TMUX_TMPDIR", &w.tmux_tmpdir)
        .env("HOME", &w.home)
        .env("TERM", "xterm")
        .args([
            helper,
            log.to_str().unwrap(),
            "--",
            "tmux",
            "attach-session",
            "-t",
            "=hub",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let _hub = PtyProcess {
        child: hub_client.spawn().unwrap(),
        log,
    };
    wait_for(|| !w.clients().is_empty(), "a client on the hub");
    assert_eq!(w.clients()[0].session, "hub");

    // Typed into the hub's shell, so $TMUX is tmux's own.
    let command = format!(
        "'{}' --config '{}' sessions attach '#15' 2>'{}'",
        assert_cmd::cargo::cargo_bin("the-loop").display(),
        w.config_path.display(),
        w.root().join("attach.err").display()
    );
    w.tmux_ok(&["send-keys", "-t", "=hub:", "-l", &command]);
    w.tmux_ok(&["send-keys", "-t", "=hub:", "Enter"]);
    wait_for(
        || w.clients().first().is_some_and(|c| c.session == s.name),
        "the hub's client switched to the session",
    );
    assert_eq!(
        w.clients(),
        [Client {
            session: s.name.clone(),
            read_only: false
        }],
        "the same one client, switched, not a nested one"
    );
    let err = std::fs::read_to_string(w.root().join("attach.err")).unwrap_or_default();
    assert!(!err.contains("nested"), "{err}");
}
