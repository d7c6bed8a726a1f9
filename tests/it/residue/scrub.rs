//! `apply --scrub-tmux-env`: which names it unsets from which tmux environments, and which not.

use super::*;

#[test]
fn scrub_unsets_withheld_names_from_global_and_managed_session_environments_only() {
    let Setup {
        w,
        managed,
        unmanaged,
    } = world_with_residue();
    let server = w.server_pid().unwrap();
    let server_environ_before = std::fs::read(format!("/proc/{server}/environ")).unwrap();
    w.install_tmux_wrapper();

    let dry = w.the_loop(&["apply", "--dry-run", "--scrub-tmux-env"]);
    assert_eq!(dry.status.code(), Some(0), "{}", stderr(&dry));
    assert!(
        stdout(&dry).contains("would unset SESSION_TOKEN")
            || stdout(&dry).contains("would unset SLACK_BOT_TOKEN"),
        "{}",
        stdout(&dry)
    );
    assert!(
        !w.tmux_invocations()
            .iter()
            .any(|argv| argv.contains(&"set-environment".to_owned())),
        "a dry run unsets nothing"
    );

    let out = w.the_loop(&["apply", "--auto-approve", "--scrub-tmux-env", "--json"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let report = json(&out);
    let scrub = &report["tmux_env_scrub"];
    let unset = unset_by_scrub(&report);
    assert_eq!(
        unset,
        vec![
            (None, "SLACK_BOT_TOKEN"),
            (Some(managed.name.as_str()), "SESSION_TOKEN")
        ],
        "{scrub:#}"
    );
    assert_eq!(scrub["remaining"], serde_json::json!([]));
    let server_left: Vec<&str> = scrub["server_residue"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["layer"].as_str().unwrap())
        .collect();
    assert_eq!(server_left, ["server_environ", "server_argv"]);

    // What tmux holds now, asked directly.
    let global = w.tmux_ok(&["show-environment", "-g"]);
    assert!(!global.contains("SLACK_BOT_TOKEN="), "global scrubbed");
    assert!(global.contains("KEEP_ME=not-a-secret"), "other names kept");
    assert!(
        global.contains("DELIVERED_TOKEN="),
        "a delivered name is not withheld, so not scrubbed"
    );
    let session = w.tmux_ok(&["show-environment", "-t", &format!("={}", managed.name)]);
    assert!(!session.contains("SESSION_TOKEN="), "{session}");
    let stray = w.tmux_ok(&["show-environment", "-t", &format!("={unmanaged}")]);
    assert!(
        stray.contains("SESSION_TOKEN="),
        "an unmanaged session is left alone"
    );
    assert_eq!(
        std::fs::read(format!("/proc/{server}/environ")).unwrap(),
        server_environ_before,
        "the server's own environment cannot change in place"
    );

    // Names only in every argv: the scrub itself included.
    let calls = w.tmux_invocations();
    let scrub_call = calls
        .iter()
        .find(|argv| argv.contains(&"set-environment".to_owned()))
        .expect("one scrub invocation");
    assert!(scrub_call.contains(&"-u".to_owned()));
    assert_eq!(
        calls
            .iter()
            .filter(|argv| argv.contains(&"set-environment".to_owned()))
            .count(),
        1,
        "one invocation"
    );
    for argv in &calls {
        assert_no_canary(argv.join("\u{1f}").as_bytes(), CANARIES, "a tmux argv");
    }
    let events = std::fs::read(w.state.join("events.jsonl")).unwrap();
    assert!(String::from_utf8_lossy(&events).contains("tmux_env.scrubbed"));
    for (path, bytes) in w.state_files() {
        assert_no_canary(&bytes, CANARIES, &path.display().to_string());
    }
    assert_no_canary(&out.stdout, CANARIES, "stdout");
    assert_no_canary(&out.stderr, CANARIES, "stderr");

    // The plan now shows only what a server restart clears.
    let plan = json(&w.the_loop(&["plan", "--json"]));
    let layers: Vec<String> = entries(&plan).into_iter().map(|e| e.0).collect();
    assert_eq!(layers, ["server_environ", "server_argv"]);
}

/// Issue 11, class 10: a delivered name is the harness's by design, so its
/// current value in tmux's layers is not residue; a value the env file has
/// since retired is, and `--scrub-tmux-env` clears it like a withheld one.
#[test]
fn a_retired_value_of_a_delivered_name_in_tmux_environments_is_residue_and_scrubbed() {
    const CURRENT: &str = "deliv-current-r3s1due-5e5e";
    const RETIRED_DELIVERED: &str = "deliv-retired-r3s1due-6f6f";
    let canaries = [CURRENT, RETIRED_DELIVERED];
    let w = World::new();
    w.write_config("  deliver: [DELIVERED_TOKEN]\n");
    w.write_env(&format!("DELIVERED_TOKEN={CURRENT}\n"));
    w.tmux_ok(&["new-session", "-d", "-s", "keepalive", "sleep", "100000"]);
    let managed = w.legacy_session("github:octo/repo#1", "github-octo-repo-1");
    let other = w.legacy_session("github:octo/repo#2", "github-octo-repo-2");
    w.source_tmux(&format!(
        "set-environment -g DELIVERED_TOKEN {}\n\
         set-environment -t ={} DELIVERED_TOKEN {}\n\
         set-environment -t ={} DELIVERED_TOKEN {}\n",
        tmux_quote(RETIRED_DELIVERED),
        managed.name,
        tmux_quote(RETIRED_DELIVERED),
        other.name,
        tmux_quote(CURRENT),
    ));

    let out = w.the_loop(&["plan", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let plan = json(&out);
    let delivered: Vec<_> = entries(&plan)
        .into_iter()
        .filter(|e| e.2 == "DELIVERED_TOKEN")
        .collect();
    assert_eq!(
        delivered,
        vec![
            (
                "tmux_global".to_owned(),
                None,
                "DELIVERED_TOKEN".to_owned(),
                fp(RETIRED_DELIVERED),
                "stale".to_owned()
            ),
            (
                "tmux_session".to_owned(),
                Some(managed.name.clone()),
                "DELIVERED_TOKEN".to_owned(),
                fp(RETIRED_DELIVERED),
                "stale".to_owned()
            ),
        ],
        "the retired value is residue, the current one is not: {plan:#}"
    );
    let text = w.the_loop(&["plan"]);
    assert!(
        stdout(&text).contains("the-loop apply --scrub-tmux-env"),
        "{}",
        stdout(&text)
    );

    let applied = w.the_loop(&["apply", "--auto-approve", "--scrub-tmux-env", "--json"]);
    let report = json(&applied);
    let unset = unset_by_scrub(&report);
    assert_eq!(
        unset,
        vec![
            (None, "DELIVERED_TOKEN"),
            (Some(managed.name.as_str()), "DELIVERED_TOKEN")
        ],
        "{report:#}"
    );
    // What tmux holds now, asked directly.
    let global = w.tmux_ok(&["show-environment", "-g"]);
    assert!(!global.contains("DELIVERED_TOKEN="), "global scrubbed");
    let session = w.tmux_ok(&["show-environment", "-t", &format!("={}", managed.name)]);
    assert!(!session.contains("DELIVERED_TOKEN="), "session scrubbed");
    let kept = w.tmux_ok(&["show-environment", "-t", &format!("={}", other.name)]);
    assert!(
        kept.contains("DELIVERED_TOKEN="),
        "the current delivered value is left where it is"
    );
    for out in [&out, &text, &applied] {
        assert_no_canary(&out.stdout, &canaries, "stdout");
        assert_no_canary(&out.stderr, &canaries, "stderr");
    }
    for (path, bytes) in w.state_files() {
        assert_no_canary(&bytes, &canaries, &path.display().to_string());
    }
}
