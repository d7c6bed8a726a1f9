//! A daemon another client started: caught mid-roll, or replaced when the-loop starts a session.

use super::*;

#[test]
fn a_daemon_another_client_starts_meanwhile_is_caught_and_nothing_rolls_onto_it() {
    let _alone = alone();
    let Some(claude) = real_claude() else {
        return;
    };
    // The-loop's claude: the real one, but right after a `daemon stop`
    // another client starts a daemon of its own, on the old key.
    let host = Host::new(&claude, &["race"]);
    let wrapper = host.w.install_bin(
        "claude-racing",
        &format!(
            "#!/bin/sh\n\"{real}\" \"$@\"\nstatus=$?\nif [ \"$1\" = daemon ] && [ \"$2\" = stop ]; then\n  ANTHROPIC_API_KEY={OLD} setsid \"{real}\" daemon run </dev/null >/dev/null 2>&1 &\n  sleep 1\nfi\nexit $status\n",
            real = claude.display()
        ),
    );
    host.w.write_raw_config(
        &std::fs::read_to_string(host.w.root().join("cli-config.yaml"))
            .unwrap()
            .replace(
                &claude.display().to_string(),
                &wrapper.display().to_string(),
            ),
    );
    let id = host.start("race", "hello there");
    host.idle(&id);
    host.import(&id, "github:octo/repo#9");
    let old = host.pid(&id).unwrap();
    host.key(NEW);

    let out = host.w.the_loop(&["apply", "--auto-approve", "--json"]);
    assert_no_canary(&out.stdout, &[OLD, NEW], "apply stdout");
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    let report = json(&out);
    let daemon = &report["hosts"][0]["layer"];
    assert_eq!(daemon["outcome"], "refused", "{report:#}");
    assert!(
        daemon["detail"]
            .as_str()
            .unwrap()
            .contains("another client started a daemon"),
        "{report:#}"
    );
    assert_eq!(
        report["hosts"][0]["sessions"][0]["outcome"], "not_attempted",
        "{report:#}"
    );
    assert_eq!(host.pid(&id), Some(old), "respawned onto the other daemon");
    assert_eq!(key_of(old).as_deref(), Some(OLD));
}

/// `sessions start --host claude-background` under a daemon a person
/// started from a shell holding another key: the daemon is replaced (the
/// person's session kept, on its own key), and the new session holds the
/// env file's value from its first moment, managed: the plan is clean.
#[test]
fn a_session_the_loop_starts_holds_the_files_value_whoever_started_the_daemon() {
    let _alone = alone();
    let Some(claude) = real_claude() else {
        return;
    };
    let host = Host::new(&claude, &["person", "loop"]);
    let theirs = {
        let out = host.claude("person", NEW, &["--bg", "a person's own session"]);
        let said = String::from_utf8_lossy(&out.stdout).into_owned();
        said.split_whitespace()
            .find(|w| w.len() == 8 && w.bytes().all(|b| b.is_ascii_hexdigit()))
            .unwrap_or_else(|| panic!("no short id in: {said}"))
            .to_owned()
    };
    host.idle(&theirs);
    let their_pid = host.pid(&theirs).unwrap();
    assert_eq!(
        key_of(their_pid).as_deref(),
        Some(NEW),
        "the person's daemon's key"
    );

    let cwd = host.w.work.join("loop");
    let out = host.w.the_loop(&[
        "sessions",
        "start",
        "github:octo/repo#5",
        "--cwd",
        cwd.to_str().unwrap(),
        "--host",
        "claude-background",
        "--prompt",
        "remember the word giraffe",
        "--json",
    ]);
    assert_no_canary(&out.stdout, &[OLD, NEW], "start stdout");
    assert_no_canary(&out.stderr, &[OLD, NEW], "start stderr");
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let started = json(&out);
    assert_eq!(started["layer"]["outcome"], "replaced", "{started:#}");
    let id = started["id"].as_str().unwrap().to_owned();
    host.idle(&id);
    let pid = host.pid(&id).unwrap();
    assert_eq!(key_of(pid).as_deref(), Some(OLD), "the file's value");
    assert_eq!(
        host.pid(&theirs),
        Some(their_pid),
        "the person's session was touched"
    );

    let out = host.w.the_loop(&["plan", "--json", "--detailed-exitcode"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let plan = json(&out);
    let sessions = plan["hosts"][0]["sessions"].as_array().unwrap();
    let ours = sessions.iter().find(|s| s["id"] == id.as_str()).unwrap();
    assert_eq!(ours["action"], "none", "{plan:#}");
    assert_eq!(ours["ref"], "github:octo/repo#5", "{plan:#}");
    let other = sessions
        .iter()
        .find(|s| s["id"] == theirs.as_str())
        .unwrap();
    assert_eq!(other["action"], "unmanaged", "{plan:#}");
}
