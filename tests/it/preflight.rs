//! Dependency preflight: every command that drives tmux refuses up front,
//! with install guidance, when tmux is not on PATH; it says nothing when
//! tmux is there; and the web terminal also wants ttyd.

use crate::support::*;

fn world() -> World {
    let w = World::new();
    w.write_env("UNRELATED=1\n");
    w.write_config("");
    w
}

#[test]
fn commands_that_need_tmux_refuse_without_it_and_say_how_to_install_it() {
    let w = world();
    let no_tmux = w.restricted_path(&["bash", "env"]);
    let cwd = w.work.to_str().unwrap().to_owned();
    let commands: Vec<Vec<&str>> = vec![
        vec!["plan"],
        vec!["apply", "--auto-approve"],
        vec!["status"],
        vec!["sessions", "list"],
        vec!["sessions", "restart", "--all"],
        vec!["sessions", "start", "github:octo/repo#1", "--cwd", &cwd],
    ];
    for args in commands {
        let out = w.the_loop_with(&args, &[("PATH", &no_tmux)]);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let said = stderr(&out);
        assert!(
            said.contains("the_loop::preflight::missing"),
            "{args:?}: {said}"
        );
        assert!(said.contains("tmux is not installed"), "{args:?}: {said}");
        assert!(
            said.contains("sudo apt-get install tmux"),
            "{args:?}: {said}"
        );
        assert!(said.contains("brew install tmux"), "{args:?}: {said}");
        assert!(said.contains("sudo dnf install tmux"), "{args:?}: {said}");
    }
    assert!(w.registry_files().is_empty(), "nothing was started");
}

#[test]
fn silent_when_tmux_is_there_and_status_reports_its_version() {
    let w = world();
    let plan = w.the_loop(&["plan"]);
    assert_eq!(plan.status.code(), Some(0), "{}", stderr(&plan));
    assert!(stderr(&plan).is_empty(), "nothing said: {}", stderr(&plan));
    let version = w.tmux_ok(&["-V"]);
    let version = version.trim().trim_start_matches("tmux ").to_owned();
    let status = w.the_loop(&["status", "--json"]);
    let report: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
    assert_eq!(report["tmux_version"], version.as_str());
    assert!(stdout(&w.the_loop(&["status"])).contains(&version));
}

#[test]
fn the_web_terminal_also_needs_ttyd() {
    let w = world();
    w.write_config_with_routing("  webTerminal:\n    enabled: true\n");
    let path = w.restricted_path(&["tmux", "bash", "env"]);
    let out = w.the_loop_with(&["web-terminal"], &[("PATH", &path)]);
    assert_eq!(out.status.code(), Some(1));
    let said = stderr(&out);
    assert!(said.contains("ttyd is not installed"), "{said}");
    assert!(said.contains("brew install ttyd"), "{said}");
    assert!(!w.state.join("web-terminal.pid").exists());
}

/// `plan` runs no `tmux -V` of its own: it judges the version the server
/// reports in its listing's call. A server that reports 2.9 there (the
/// wrapper rewrites that one line) is refused as too old, after a read and
/// with nothing started, as `tmux -V` would have it refused.
#[test]
fn plan_judges_the_version_its_listing_reports() {
    let w = world();
    w.legacy_session("github:octo/repo#1", "github-octo-repo-1");
    w.install_tmux_wrapper();
    let plan = w.the_loop(&["plan"]);
    assert_eq!(plan.status.code(), Some(0), "{}", stderr(&plan));
    let calls = w.tmux_reading_calls();
    assert_eq!(calls.len(), 1, "the listing alone: {calls:?}");
    assert!(calls[0].contains(&"@v #{version}".to_owned()), "{calls:?}");

    let wrapper = w.bin_dir.join("tmux");
    let script = format!(
        "#!/bin/bash\n'{real}' \"$@\" | sed 's/^@v .*/@v 2.9/'\nexit ${{PIPESTATUS[0]}}\n",
        real = real_tmux().display()
    );
    let staged = w.bin_dir.join("tmux.new");
    std::fs::write(&staged, script).unwrap();
    std::fs::set_permissions(&staged, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    // A child forked by another test thread while the file was open for
    // writing holds it until it execs (ETXTBSY meanwhile): run it until it runs.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while let Err(e) = std::process::Command::new(&staged).arg("-V").output() {
        assert!(
            e.raw_os_error() == Some(26) && std::time::Instant::now() < deadline,
            "cannot run the wrapper: {e}"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    std::fs::rename(&staged, &wrapper).unwrap();
    let old = w.the_loop(&["plan"]);
    assert_eq!(old.status.code(), Some(1), "{}", stderr(&old));
    let said = stderr(&old);
    assert!(said.contains("the_loop::preflight::tmux_too_old"), "{said}");
    assert!(said.contains("tmux 2.9 is too old"), "{said}");
    assert!(
        stdout(&old).is_empty(),
        "no plan is shown: {}",
        stdout(&old)
    );
}
