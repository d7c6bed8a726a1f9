//! Watch as a service: SIGTERM mid-roll, status, one instance, the unit file, --start-down.

use super::*;

#[test]
fn sigterm_lets_a_roll_in_flight_finish_and_reports_it() {
    let w = World::new();
    let sessions = legacy_fleet(&w, 1);
    w.write_env(&format!("SLACK_BOT_TOKEN={ROTATED}\n"));
    // The harness ignores SIGTERM, so the roll waits out the 3 s grace.
    std::fs::write(w.transcript(&sessions[0]), "{\"test\":\"ignore-term\"}\n").unwrap();
    let pid = w.pane(&sessions[0].name).unwrap().pid;
    let mut watch = start_watch(&w, &["--apply", "--interval", "3600"]);
    wait_for(
        || count_events(&w, "apply.started") == 1,
        "watch started its roll",
    );
    let status = watch.stop();
    assert_eq!(status.code(), Some(0), "{}", watch.text());
    let log = watch.text();
    assert!(
        log.contains(&format!(
            "watch roll: {}: restarted (verified)",
            sessions[0].reference
        )),
        "{log}"
    );
    assert!(log.contains("watch stopped (signal)"), "{log}");
    let finished: Vec<_> = events(&w)
        .into_iter()
        .filter(|e| e["event"] == "apply.finished")
        .collect();
    assert_eq!(finished.len(), 1);
    assert_eq!(finished[0]["sessions"][0]["outcome"], "restarted");
    assert_ne!(
        w.pane(&sessions[0].name).unwrap().pid,
        pid,
        "the roll finished"
    );
    assert_eq!(count_events(&w, "watch.stopped"), 1);
    sweep(&w, &[&watch], CANARIES);
}

#[test]
fn status_reflects_the_watch_service_and_only_one_runs() {
    let w = World::new();
    w.write_config("  watch:\n    enabled: true\n");
    w.write_env(&format!("SLACK_BOT_TOKEN={ROTATED}\n"));
    let service = |w: &World| -> (Option<i32>, serde_json::Value) {
        let out = w.the_loop(&["status", "--json"]);
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let watch = report["services"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == "watch")
            .cloned()
            .expect("watch is listed");
        (out.status.code(), watch)
    };

    let (code, svc) = service(&w);
    assert_eq!(code, Some(1), "enabled and not running: {svc}");
    assert_eq!(
        (svc["enabled"].clone(), svc["running"].clone()),
        (true.into(), false.into())
    );
    let text = w.the_loop(&["status"]);
    assert!(
        stdout(&text)
            .lines()
            .any(|l| l.starts_with("watch") && l.ends_with("not running")),
        "{}",
        stdout(&text)
    );

    let mut watch = start_watch(&w, &["--interval", "3600"]);
    let (code, svc) = service(&w);
    assert_eq!(code, Some(0), "{svc}");
    assert_eq!(svc["running"], true);
    assert_eq!(svc["detail"], format!("pid {}", watch.pid()));
    let text = w.the_loop(&["status"]);
    assert!(
        stdout(&text)
            .lines()
            .any(|l| l.starts_with("watch") && l.ends_with(" running")),
        "{}",
        stdout(&text)
    );

    let second = w.the_loop(&["watch", "--interval", "3600"]);
    assert_eq!(second.status.code(), Some(1));
    assert!(
        stderr(&second).contains(&format!(
            "watch is already running for this state root (pid {})",
            watch.pid()
        )),
        "{}",
        stderr(&second)
    );

    assert_eq!(watch.stop_with(Signal::SIGINT).code(), Some(0));
    let (code, svc) = service(&w);
    assert_eq!((code, svc["running"].clone()), (Some(1), false.into()));

    // A pidfile naming a live process that does not hold the lock (a crash,
    // then pid reuse) is not a running watch.
    std::fs::write(
        w.state.join("watch.pid"),
        format!("{}\n", std::process::id()),
    )
    .unwrap();
    let (code, svc) = service(&w);
    assert_eq!(
        (code, svc["running"].clone()),
        (Some(1), false.into()),
        "{svc}"
    );

    // Not enabled: listed, and status does not fail for it.
    w.write_config("");
    let (code, svc) = service(&w);
    assert_eq!((code, svc["enabled"].clone()), (Some(0), false.into()));
    sweep(&w, &[&watch], CANARIES);
}

#[test]
fn watch_refuses_without_an_env_file() {
    let w = World::new();
    w.write_raw_config(&format!("state:\n  root: {}\n", w.state.display()));
    let out = w.the_loop(&["watch"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("no env.file is configured"),
        "{}",
        stderr(&out)
    );
    assert!(!w.state.join("watch.pid").exists());
}

#[test]
fn the_unit_file_in_the_docs_is_the_example() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let unit = std::fs::read_to_string(root.join("examples/the-loop-watch.service")).unwrap();
    let docs = std::fs::read_to_string(root.join("docs/watch.md")).unwrap();
    let body: String = unit
        .lines()
        .skip_while(|l| l.starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(body.starts_with("[Unit]"), "{body}");
    assert!(
        docs.contains(&body),
        "docs/watch.md quotes examples/the-loop-watch.service verbatim"
    );
    assert!(unit.contains(" watch --interval"), "it runs watch");
}

/// `watch --start-down`: the tmux server is killed under a running watch;
/// the next cycle brings the sessions back, each resuming its conversation
/// and holding the env file's value.
#[test]
fn start_down_brings_the_fleet_back_after_the_server_is_killed() {
    let (w, sessions) = clean_delivering_fleet(2);
    let mut watch = start_watch(&w, &["--apply", "--start-down", "--interval", "1"]);
    w.tmux_ok(&["kill-server"]);
    watch.wait_for_log("start-down finished: 2 started", Duration::from_secs(30));
    for s in &sessions {
        let pane = w.pane(&s.name).expect("back");
        wait_for_harness(pane.pid);
        assert!(
            cmdline(pane.pid)
                .windows(2)
                .any(|p| p[0] == "--resume" && p[1] == s.session_id),
            "{} resumes its conversation",
            s.name
        );
        assert_eq!(
            environ(pane.pid).get("SLACK_BOT_TOKEN").map(String::as_str),
            Some(RETIRED),
            "the env file's value"
        );
    }
    assert!(watch.stop().success());
}
