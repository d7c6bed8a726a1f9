//! Occupancy: live occupants delivered into, dead ones cleared, tmux silence never read as absence.

use super::*;

#[test]
fn a_live_occupant_is_delivered_into_never_spawned_over() {
    let w = world();
    let s = w.started_session("github:octo/repo#11", "github-octo-repo-11");
    let pid = w.pane(&s.name).unwrap().pid;
    // The record lost its target, so the delivery takes the respawn path and
    // finds the name held by a live session.
    w.edit_record(&s.slug, |r| r["tmuxTarget"] = serde_json::Value::Null);

    let out = deliver(&w, &s.reference, "into the occupant", "o-1");
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    assert_eq!(json(&out)["route"], "respawn-averted");
    assert_eq!(w.pane(&s.name).unwrap().pid, pid, "never killed");
    assert_eq!(wait_for_inputs(&w, &s, 1), [pasted("into the occupant")]);
    assert_eq!(w.events_named("session.respawn_averted").len(), 1);
    assert!(w.events_named("session.respawned").is_empty());
    assert_eq!(w.record(&s.slug).unwrap()["tmuxTarget"], s.name.as_str());
}

#[test]
fn a_duplicate_session_answer_is_re_decided_once_from_a_fresh_probe() {
    let w = world();
    w.start_server_holding(&[]);
    let s = w.started_session("github:octo/repo#12", "github-octo-repo-12");
    w.tmux_ok(&["kill-session", "-t", &format!("={}", s.name)]);
    // Something takes the name between the-loop's probe and its new-session:
    // every listing of panes is followed by a live session appearing there.
    let occupant = format!("new-session -d -s {} 'sleep 100000'", s.name);
    w.tmux_ok(&["set-hook", "-g", "after-list-panes", &occupant]);

    let out = deliver(&w, &s.reference, "to whoever holds it", "dup-1");
    w.tmux_ok(&["set-hook", "-gu", "after-list-panes"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    assert_eq!(json(&out)["route"], "respawn-averted");
    assert_eq!(w.events_named("session.spawn_collided").len(), 1);
    assert!(w.events_named("session.respawned").is_empty());
    let pane = w.pane(&s.name).unwrap();
    assert_eq!(
        cmdline(pane.pid),
        ["sleep", "100000"],
        "the occupant was not replaced"
    );
}

#[test]
fn a_dead_occupant_that_cannot_be_cleared_drops_the_delivery_and_keeps_its_id() {
    let w = world();
    let s = w.started_session("github:octo/repo#13", "github-octo-repo-13");
    let pid = w.pane(&s.name).unwrap().pid;
    end_harness_leaving_a_dead_pane(&w, &s, pid);
    // A real refusal: kill-session is aliased to a command that does not exist.
    break_command(&w, 91, "kill-session");

    let out = deliver(&w, &s.reference, "cannot land", "occ-1");
    assert_eq!(code(&out), Some(2), "{}", explain(&out));
    assert_eq!(json(&out)["outcome"], "dropped");
    let dropped = w.events_named("dispatch.dropped");
    assert_eq!(dropped.len(), 1);
    assert_eq!(dropped[0]["reason"], "session-occupied");
    assert_eq!(dropped[0]["level"], "error");
    assert_eq!(deliveries(&w, &s.slug), ["occ-1"], "the id is kept");
    assert!(w.pane(&s.name).unwrap().dead, "nothing was spawned");
    // The same event again is a no-op rather than the same collision.
    let again = deliver(&w, &s.reference, "cannot land", "occ-1");
    assert_eq!(json(&again)["outcome"], "duplicate");
}

#[test]
fn an_unresponsive_tmux_never_leads_to_a_respawn_over_a_live_session() {
    let w = world();
    let s = w.started_session("github:octo/repo#14", "github-octo-repo-14");
    let pane = w.pane(&s.name).unwrap();
    let server = w.tmux_server_pid();
    let pid = nix::unistd::Pid::from_raw(server);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGSTOP).unwrap();
    let out = w.the_loop_with(
        &[
            "sessions",
            "deliver",
            &s.reference,
            "--message",
            "while tmux is frozen",
            "--delivery-id",
            "u-1",
            "--json",
        ],
        &[("THE_LOOP_TMUX_TIMEOUT_MS", "400")],
    );
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGCONT).unwrap();
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    assert_eq!(json(&out)["outcome"], "failed");
    // Whatever tmux still had queued from the timed-out clients has run by now.
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(
        w.pane(&s.name).unwrap(),
        pane,
        "the live session is untouched"
    );
    assert_eq!(w.tmux_sessions(), [s.name.as_str()]);
    for event in [
        "session.respawned",
        "session.occupant_cleared",
        "session.resume_failed",
    ] {
        assert!(w.events_named(event).is_empty(), "{event}");
    }
    assert!(deliveries(&w, &s.slug).is_empty(), "retried later");
}

#[test]
fn a_tmux_socket_that_never_answers_is_unknown_and_nothing_is_attempted() {
    use std::io::Read;
    use std::os::unix::fs::PermissionsExt;
    let w = world();
    let s = w.started_session("github:octo/repo#15", "github-octo-repo-15");
    // A second TMUX_TMPDIR whose server socket accepts and never answers.
    let silent = w.dir.path().join("silent");
    let socket_dir = silent.join(format!("tmux-{}", nix::unistd::getuid()));
    std::fs::create_dir_all(&socket_dir).unwrap();
    std::fs::set_permissions(&socket_dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    let listener = std::os::unix::net::UnixListener::bind(socket_dir.join("default")).unwrap();
    let heard = std::sync::Arc::new(std::sync::Mutex::new(Vec::<u8>::new()));
    let log = heard.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let log = log.clone();
            std::thread::spawn(move || {
                let mut stream = stream;
                let mut buf = [0u8; 4096];
                while let Ok(n) = stream.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    log.lock().unwrap().extend_from_slice(&buf[..n]);
                }
            });
        }
    });
    let out = w.the_loop_with(
        &[
            "sessions",
            "deliver",
            &s.reference,
            "--message",
            "into the void",
            "--delivery-id",
            "v-1",
            "--json",
        ],
        &[
            ("THE_LOOP_TMUX_TIMEOUT_MS", "400"),
            // The fleet's server is kept in the state root once a session
            // started: the silent socket is named outright.
            (
                "THE_LOOP_TMUX_SOCKET",
                socket_dir.join("default").to_str().unwrap(),
            ),
            ("TMUX_TMPDIR", silent.to_str().unwrap()),
        ],
    );
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    let report = json(&out);
    assert_eq!(report["outcome"], "failed");
    assert_eq!(report["route"], serde_json::Value::Null);
    let heard = String::from_utf8_lossy(&heard.lock().unwrap()).into_owned();
    assert!(heard.contains("list-panes"), "the probe asked");
    // Whose the session is could not be told, so nothing is typed into it
    // (a paste into an unanswered tmux was tried before that check).
    assert!(
        report["reason"]
            .as_str()
            .is_some_and(|r| r.contains("tmux did not answer")),
        "{report}"
    );
    for never in [
        "paste-buffer",
        "new-session",
        "kill-session",
        "respawn-pane",
    ] {
        assert!(
            !heard.contains(never),
            "{never} was sent to an unanswered tmux"
        );
    }
    assert!(deliveries(&w, &s.slug).is_empty());
}

#[test]
fn a_first_start_never_spawns_over_a_live_session_and_clears_a_dead_one() {
    let w = world();
    let cursor = w.the_loop(&[
        "sessions",
        "start",
        "github:octo/foo.js#31",
        "--cwd",
        w.work.to_str().unwrap(),
        "--harness",
        "cursor-agent",
    ]);
    assert_eq!(code(&cursor), Some(1));
    assert!(
        stderr(&cursor).contains("cursor-agent cannot be hosted"),
        "{}",
        explain(&cursor)
    );
    assert!(w.tmux_sessions().is_empty());
    // A repo name with a dot: tmux spells the session name with `_`.
    let s = w.started_session("github:octo/foo.js#31", "github-octo-foo.js-31");
    assert_eq!(s.name, "loop-github-octo-foo_js-31");
    assert_eq!(w.tmux_sessions(), [s.name.as_str()]);
    let pid = w.pane(&s.name).unwrap().pid;
    let argv = cmdline(pid);
    assert!(
        argv.windows(2)
            .any(|a| a[0] == "--session-id" && a[1] == s.session_id),
        "a pre-assigned conversation id: {argv:?}"
    );
    assert_eq!(w.record(&s.slug).unwrap()["tmuxTarget"], s.name.as_str());
    let out = w.the_loop(&[
        "sessions",
        "start",
        &s.reference,
        "--cwd",
        s.cwd.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), Some(1));
    let err = stderr(&out);
    assert!(err.contains("start::occupied"), "{err}");
    assert!(
        err.contains("tmux kill-session -t") && err.contains("sessions reset"),
        "the remedy: {err}"
    );
    assert_eq!(w.pane(&s.name).unwrap().pid, pid, "never spawned over");
    // Deliveries address the session tmux actually has.
    assert_eq!(code(&deliver(&w, &s.reference, "dotted", "dot-1")), Some(0));
    assert_eq!(wait_for_inputs(&w, &s, 1), [pasted("dotted")]);

    end_harness_leaving_a_dead_pane(&w, &s, pid);
    let again = w.started_session(&s.reference, &s.slug);
    assert_eq!(
        again.session_id, s.session_id,
        "the recorded conversation is resumed, never silently replaced"
    );
    wait_for(
        || {
            w.pane(&s.name).is_some_and(|p| {
                cmdline(p.pid)
                    .windows(2)
                    .any(|a| a[0] == "--resume" && a[1] == s.session_id)
            })
        },
        "the harness resumed the recorded conversation",
    );
    assert!(!w.pane(&s.name).unwrap().dead);
    assert_eq!(w.events_named("session.occupant_cleared").len(), 1);
}
