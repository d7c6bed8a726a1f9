//! The session lifecycle on a real tmux with the stand-in harness: delivery
//! (paste, respawn, occupancy rules), pause, close, reset, cleanup, attach,
//! pull-request links and standing sessions.

use crate::support::delivery::{deliver, deliveries, pasted, ESC_CLOSE, ESC_OPEN};
use crate::support::*;
use std::process::Output;
use std::time::{Duration, Instant};

/// A world whose env file exists (the launcher and `plan` read it).
fn world() -> World {
    let w = World::new();
    w.write_env("EXAMPLE_SETTING=not-secret\n");
    w
}

/// Rewrites the config: the world's state root and env file, and `routing`
/// as given (YAML lines, indented under `routing:`).
fn write_routing(w: &World, routing: &str) {
    w.write_raw_config(&format!(
        "state:\n  root: {}\nenv:\n  file: .env\nrouting:\n{routing}",
        w.state.display()
    ));
}

/// Rewrites the config with checkouts under `root` (what cleanup removes),
/// a short resume probe and kill grace, and `routing` lines before them.
fn write_workspace(w: &World, root: &std::path::Path, routing: &str) {
    write_routing(
        w,
        &format!(
            "{routing}  workspace:\n    root: {}\n  tmux:\n    resumeProbeSeconds: 0.5\n    harnessKillGraceSeconds: 3\n",
            root.display()
        ),
    );
}

/// A world whose checkouts live under its work directory (see
/// [`write_workspace`]).
fn workspace_world(routing: &str) -> World {
    let w = world();
    write_workspace(&w, &w.work, routing);
    w
}

/// `sessions link-pr`: links `pr` to the work item of `issue`.
fn link_pr(w: &World, issue: &LegacySession, pr: &LegacySession) -> Output {
    w.the_loop(&[
        "sessions",
        "link-pr",
        &issue.reference,
        "--pull-request",
        &pr.reference,
    ])
}

/// A real refusal from tmux: `command` becomes an alias, in alias slot
/// `slot`, of a command that does not exist.
fn break_command(w: &World, slot: usize, command: &str) {
    w.tmux_ok(&[
        "set-option",
        "-s",
        &format!("command-alias[{slot}]"),
        &format!("{command}=no-such-command"),
    ]);
}

fn wait_for_inputs(w: &World, s: &LegacySession, n: usize) -> Vec<String> {
    wait_for(|| w.inputs(s).len() >= n, "the harness read the delivery");
    w.inputs(s)
}

// ---- delivery ----

#[test]
fn delivery_is_a_bracketed_paste_then_a_separate_submit() {
    let w = world();
    let s = w.started_session("github:octo/repo#1", "github-octo-repo-1");
    let pid = w.pane(&s.name).unwrap().pid;

    let out = deliver(&w, &s.reference, "please look at\nthe failing check", "d-1");
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let report = json(&out);
    assert_eq!(report["outcome"], "delivered");
    assert_eq!(report["route"], "pasted");

    // The text arrives inside paste brackets, and the carriage return that
    // completes the line comes after the closing bracket: a second paste.
    let inputs = wait_for_inputs(&w, &s, 2);
    assert_eq!(
        inputs,
        [
            format!("{ESC_OPEN}please look at"),
            format!("the failing check{ESC_CLOSE}")
        ]
    );
    assert_eq!(w.pane(&s.name).unwrap().pid, pid, "the same harness");
    assert_eq!(deliveries(&w, &s.slug), ["d-1"]);
    let delivered = w.events_named("dispatch.delivered");
    assert_eq!(delivered.len(), 1);
    assert_eq!(delivered[0]["delivery_id"], "d-1");
    // Events and records carry no text; tmux keeps no buffer of it.
    for (path, bytes) in w.state_files() {
        assert_no_canary(&bytes, &["failing check"], &path.display().to_string());
    }
    assert_eq!(stdout(&w.tmux(&["list-buffers"])), "");
}

#[test]
fn a_read_only_observer_does_not_block_delivery() {
    let w = world();
    let s = w.started_session("github:octo/repo#2", "github-octo-repo-2");
    let observer = w.the_loop_in_pty(&["sessions", "attach", &s.reference, "--read-only"]);
    wait_for(
        || {
            w.clients()
                == [Client {
                    session: s.name.clone(),
                    read_only: true,
                }]
        },
        "a read-only client is attached",
    );

    // tmux 3.7 refuses send-keys whenever the session's current client is
    // read-only; older servers (like 3.3a) do not, so this server is made to
    // refuse every command that resolves a client, whatever its version.
    for (i, command) in [
        "send-keys",
        "send-prefix",
        "display-message",
        "refresh-client",
    ]
    .iter()
    .enumerate()
    {
        break_command(&w, 80 + i, command);
    }
    let out = deliver(&w, &s.reference, "delivered past the observer", "d-ro");
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    assert_eq!(
        wait_for_inputs(&w, &s, 1),
        [pasted("delivered past the observer")]
    );
    assert_eq!(w.clients().len(), 1, "the observer is still attached");
    drop(observer);
}

#[test]
fn concurrent_deliveries_are_served_one_at_a_time_in_arrival_order() {
    let w = world();
    // A long probe after the respawn keeps the first caller's turn long
    // enough for the rest to queue behind it.
    write_routing(&w, "  tmux:\n    resumeProbeSeconds: 2\n");
    let s = w.started_session("github:octo/repo#3", "github-octo-repo-3");
    // The first delivery finds the session gone and respawns it, which holds
    // the session's turn for a while; the others queue behind it in order.
    w.tmux_ok(&["kill-session", "-t", &format!("={}", s.name)]);
    let queue = w.state.join("run/queue").join(&s.name);
    let tickets = || {
        std::fs::read_dir(&queue)
            .map(|d| {
                d.flatten()
                    .filter(|e| e.file_name().to_string_lossy().ends_with(".ticket"))
                    .count()
            })
            .unwrap_or(0)
    };
    let mut children = Vec::new();
    for i in 0..5 {
        let child = w
            .the_loop_command(&[
                "sessions",
                "deliver",
                &s.reference,
                "--message",
                &format!("message number {i}"),
                "--delivery-id",
                &format!("c-{i}"),
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        children.push(child);
        // Arrival order: the next caller starts once this one is queued.
        wait_for(|| tickets() > i, "the caller took its ticket");
    }
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
    }
    assert_eq!(
        w.boot_prompts(&s),
        ["message number 0"],
        "the first one respawned the harness"
    );
    let expected: Vec<String> = (1..5)
        .map(|i| pasted(&format!("message number {i}")))
        .collect();
    assert_eq!(wait_for_inputs(&w, &s, 4), expected, "whole, and in order");
    let mut ids = deliveries(&w, &s.slug);
    ids.sort();
    assert_eq!(ids, ["c-0", "c-1", "c-2", "c-3", "c-4"], "no lost update");
}

#[test]
fn a_delivery_id_already_processed_is_a_no_op() {
    let w = world();
    let s = w.started_session("github:octo/repo#4", "github-octo-repo-4");
    assert_eq!(code(&deliver(&w, &s.reference, "once", "dup")), Some(0));
    wait_for_inputs(&w, &s, 1);
    let again = deliver(&w, &s.reference, "once", "dup");
    assert_eq!(code(&again), Some(0), "{}", explain(&again));
    assert_eq!(json(&again)["outcome"], "duplicate");
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(w.inputs(&s), [pasted("once")], "pasted once");
}

#[test]
fn a_failed_delivery_to_a_live_session_does_not_record_its_id() {
    let w = world();
    let s = w.started_session("github:octo/repo#5", "github-octo-repo-5");
    let pid = w.pane(&s.name).unwrap().pid;
    // A real refusal from tmux: paste-buffer is aliased to a command that
    // does not exist.
    break_command(&w, 90, "paste-buffer");
    let out = deliver(&w, &s.reference, "lost in transit", "f-1");
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    assert_eq!(json(&out)["outcome"], "failed");
    assert!(
        deliveries(&w, &s.slug).is_empty(),
        "the id was not recorded"
    );
    assert_eq!(w.pane(&s.name).unwrap().pid, pid, "no respawn");
    assert!(w.events_named("session.respawned").is_empty());

    w.tmux_ok(&["set-option", "-su", "command-alias[90]"]);
    let retry = deliver(&w, &s.reference, "lost in transit", "f-1");
    assert_eq!(code(&retry), Some(0), "{}", explain(&retry));
    assert_eq!(wait_for_inputs(&w, &s, 1), [pasted("lost in transit")]);
    assert_eq!(deliveries(&w, &s.slug), ["f-1"]);
}

#[test]
fn a_delivery_whose_submit_failed_is_only_submitted_on_retry() {
    let w = world();
    let s = w.started_session("github:octo/repo#6", "github-octo-repo-6");
    // A tmux that pastes the text (`paste-buffer … -p`, the command that
    // `if-shell` runs when the pane is in no mode) but refuses the submit
    // (a `paste-buffer` without `-p`).
    let wrapper = w.install_bin_settled(
        "tmux",
        &format!(
            "#!/bin/bash\n\
             for word in \"$@\"; do case \"$word\" in 'paste-buffer '*) case \"$word\" in *' -p') ;; \
             *) echo 'submit refused' >&2; exit 1;; esac;; esac; done\n\
             exec '{}' \"$@\"\n",
            real_tmux().display()
        ),
        "-V",
    );
    let out = deliver(&w, &s.reference, "half way", "h-1");
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    assert!(deliveries(&w, &s.slug).is_empty(), "released for retry");
    std::fs::remove_file(wrapper).unwrap();

    let retry = deliver(&w, &s.reference, "half way", "h-1");
    assert_eq!(code(&retry), Some(0), "{}", explain(&retry));
    assert_eq!(wait_for_inputs(&w, &s, 1), [pasted("half way")], "once");
    assert_eq!(deliveries(&w, &s.slug), ["h-1"]);
    assert!(w.record(&s.slug).unwrap().get("pendingSubmit").is_none());
}

// ---- respawn on delivery ----

#[test]
fn a_killed_session_is_respawned_resuming_its_conversation_with_the_text_as_boot_prompt() {
    let w = world();
    let s = w.started_session("github:octo/repo#6", "github-octo-repo-6");
    assert_eq!(
        code(&deliver(&w, &s.reference, "before the crash", "r-1")),
        Some(0)
    );
    wait_for_inputs(&w, &s, 1);
    w.tmux_ok(&["kill-session", "-t", &format!("={}", s.name)]);

    let out = deliver(&w, &s.reference, "after the crash", "r-2");
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let report = json(&out);
    assert_eq!(report["route"], "respawned");
    assert_eq!(report["resumed"], true);

    let pane = w.pane(&s.name).expect("loop-<slug> is back");
    assert!(!pane.dead);
    wait_for(
        || cmdline(pane.pid).iter().any(|a| a == "--resume"),
        "the launcher started the harness",
    );
    let argv = cmdline(pane.pid);
    assert!(
        argv.windows(2)
            .any(|a| a[0] == "--resume" && a[1] == s.session_id),
        "resumed the recorded conversation: {argv:?}"
    );
    assert_eq!(argv.last().map(String::as_str), Some("after the crash"));
    assert_eq!(w.boot_prompts(&s), ["after the crash"]);
    let env = environ(pane.pid);
    assert_eq!(env.get("THE_LOOP_WORK_ITEM"), Some(&s.reference));

    let record = w.record(&s.slug).unwrap();
    assert_eq!(record["harnessSessionId"], s.session_id.as_str());
    assert_eq!(record["tmuxTarget"], s.name.as_str());
    assert_eq!(deliveries(&w, &s.slug), ["r-1", "r-2"], "history kept");
    let respawned = w.events_named("session.respawned");
    assert_eq!(respawned.len(), 1);
    assert_eq!(respawned[0]["resumed"], true);
    // The text went to the harness through a file, never through tmux: the
    // respawn started a new tmux server, which keeps its first client's argv.
    let server = cmdline(w.tmux_server_pid()).join(" ");
    assert!(!server.contains("after the crash"), "{server}");
    assert!(
        std::fs::read_dir(w.state.join("run/prompts"))
            .map(|d| d.count())
            .unwrap_or(0)
            == 0,
        "the launcher took the prompt file"
    );
}

#[test]
fn a_retained_dead_session_is_cleared_verified_and_respawned() {
    let w = world();
    let s = w.started_session("github:octo/repo#7", "github-octo-repo-7");
    let old = w.pane(&s.name).unwrap();
    end_harness_leaving_a_dead_pane(&w, &s, old.pid);

    let out = deliver(&w, &s.reference, "wake up", "dead-1");
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    assert_eq!(json(&out)["route"], "respawned");
    let cleared = w.events_named("session.occupant_cleared");
    assert_eq!(cleared.len(), 1, "the dead occupant was cleared");
    let now = w.pane(&s.name).unwrap();
    assert!(!now.dead);
    assert_ne!(now.pid, old.pid);
    assert_eq!(w.boot_prompts(&s), ["wake up"]);
}

#[test]
fn a_conversation_that_cannot_resume_falls_back_to_a_fresh_one() {
    let w = world();
    let s = w.started_session("github:octo/repo#8", "github-octo-repo-8");
    std::fs::OpenOptions::new()
        .append(true)
        .open(w.transcript(&s))
        .and_then(|mut f| std::io::Write::write_all(&mut f, b"{\"fail-resume\":true}\n"))
        .unwrap();
    w.tmux_ok(&["kill-session", "-t", &format!("={}", s.name)]);

    let out = deliver(&w, &s.reference, "start over", "fresh-1");
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let report = json(&out);
    assert_eq!(report["resumed"], false);
    let new_id = report["harness_session_id"].as_str().unwrap().to_owned();
    assert_ne!(new_id, s.session_id);
    assert_eq!(
        w.record(&s.slug).unwrap()["harnessSessionId"],
        new_id.as_str()
    );
    let failed = w.events_named("session.resume_failed");
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0]["resumed"], false);
    let fresh = w.with_session_id(&s, &new_id);
    assert_eq!(w.boot_prompts(&fresh), ["start over"]);
    let pane = w.pane(&s.name).unwrap();
    assert!(cmdline(pane.pid).contains(&new_id));
}

#[test]
fn with_resume_on_respawn_off_a_respawn_starts_a_fresh_conversation() {
    let w = world();
    write_routing(
        &w,
        "  tmux:\n    resumeOnRespawn: false\n    resumeProbeSeconds: 0.5\n",
    );
    let s = w.started_session("github:octo/repo#9", "github-octo-repo-9");
    w.tmux_ok(&["kill-session", "-t", &format!("={}", s.name)]);
    let out = deliver(&w, &s.reference, "no resume", "nr-1");
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    assert_eq!(json(&out)["resumed"], false);
    let failed = w.events_named("session.resume_failed");
    assert!(failed[0]["reason"]
        .as_str()
        .unwrap()
        .contains("resumeOnRespawn"));
    assert!(!w.transcript_text(&s).contains("\"type\":\"resume\""));
}

#[test]
fn a_respawn_that_cannot_start_the_harness_fails_and_is_retried_later() {
    let w = world();
    let s = w.started_session("github:octo/repo#32", "github-octo-repo-32");
    w.tmux_ok(&["kill-session", "-t", &format!("={}", s.name)]);
    // The harness CLI went missing.
    write_routing(
        &w,
        "  harnessBinary:\n    claude: /nonexistent/claude\n  tmux:\n    resumeProbeSeconds: 0.5\n",
    );
    let out = deliver(&w, &s.reference, "nobody home", "miss-1");
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    let report = json(&out);
    assert_eq!(report["outcome"], "failed");
    // The pre-launch check refuses before tmux is asked to spawn anything,
    // naming the binary it could not find.
    let reason = report["reason"].as_str().unwrap();
    assert!(
        reason.contains("the new launch cannot start") && reason.contains("/nonexistent/claude"),
        "{report}"
    );
    assert!(w.pane(&s.name).is_none(), "no session was spawned");
    assert!(deliveries(&w, &s.slug).is_empty(), "released for retry");
    assert!(w.events_named("session.respawned").is_empty());
    assert_eq!(
        w.record(&s.slug).unwrap()["harnessSessionId"],
        s.session_id.as_str(),
        "the conversation id is kept"
    );
}

#[test]
fn a_record_with_no_tmux_target_heals_through_the_respawn_path() {
    let w = world();
    let s = w.started_session("github:octo/repo#10", "github-octo-repo-10");
    w.tmux_ok(&["kill-session", "-t", &format!("={}", s.name)]);
    // As a self-registered record, or one from before tmux was the only
    // runner, would be.
    w.edit_record(&s.slug, |r| {
        r["tmuxTarget"] = "".into();
        r["runner"] = "process".into();
    });

    let out = deliver(&w, &s.reference, "heal", "h-1");
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    assert_eq!(json(&out)["route"], "respawned");
    let record = w.record(&s.slug).unwrap();
    assert_eq!(record["tmuxTarget"], s.name.as_str());
    assert!(
        record.get("runner").is_none(),
        "re-registered without a runner"
    );
    assert_eq!(w.boot_prompts(&s), ["heal"]);
}

// ---- occupancy ----

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

// ---- pause, stop, close ----

#[test]
fn pause_suppresses_delivery_and_leaves_the_session_writable() {
    let w = world();
    let s = w.started_session("github:octo/repo#16", "github-octo-repo-16");
    let pane = w.pane(&s.name).unwrap();
    let out = w.the_loop(&["sessions", "pause", &s.reference]);
    assert!(out.status.success(), "{}", explain(&out));
    assert_eq!(w.record(&s.slug).unwrap()["status"], "paused");

    let held = deliver(&w, &s.reference, "held back", "p-1");
    assert_eq!(code(&held), Some(2), "{}", explain(&held));
    assert_eq!(json(&held)["outcome"], "suppressed");
    assert_eq!(w.pane(&s.name).unwrap(), pane, "tmux session untouched");

    // A person attached to the paused session can still type into it.
    let mut person = w.the_loop_in_pty(&["sessions", "attach", &s.reference]);
    wait_for(
        || w.clients().iter().any(|c| !c.read_only),
        "a read-write client is attached",
    );
    // Let the client finish talking to its terminal before typing.
    std::thread::sleep(Duration::from_millis(500));
    person.type_text("typed by a person\r");
    assert_eq!(wait_for_inputs(&w, &s, 1), ["typed by a person"]);
    drop(person);

    let out = w.the_loop(&["sessions", "resume", &s.reference]);
    assert!(out.status.success(), "{}", explain(&out));
    let through = deliver(&w, &s.reference, "let through", "p-1");
    assert_eq!(code(&through), Some(0), "{}", explain(&through));
    assert_eq!(
        wait_for_inputs(&w, &s, 2)[1],
        pasted("let through"),
        "the suppressed id was not recorded"
    );
    assert_eq!(w.events_named("session.paused").len(), 1);
    assert_eq!(w.events_named("session.resumed").len(), 1);
}

#[test]
fn stop_re_sets_remain_on_exit_and_ends_the_harness_with_sigterm() {
    let w = world();
    // A grace no loaded machine outlasts: the stand-in handles SIGTERM at
    // once, and this test is about SIGTERM, not about the grace (once, under
    // a load of 30, the 3 s grace ran out first and the ending was `killed`).
    write_routing(
        &w,
        "  tmux:\n    resumeProbeSeconds: 0.5\n    harnessKillGraceSeconds: 30\n",
    );
    let s = w.started_session("github:octo/repo#17", "github-octo-repo-17");
    // Someone turned remain-on-exit off; the close must turn it on again
    // before the harness ends, or the session would vanish with it.
    w.tmux_ok(&[
        "set-option",
        "-w",
        "-t",
        &format!("={}:", s.name),
        "remain-on-exit",
        "off",
    ]);
    let out = w.the_loop(&["sessions", "stop", &s.reference, "--json"]);
    assert!(out.status.success(), "{}", explain(&out));
    let report = json(&out);
    assert_eq!(report["close"]["tmux"], "retained");
    assert_eq!(report["close"]["harness"][0]["ending"], "terminated");
    assert!(w.transcript_text(&s).contains("\"signal\":\"TERM\""));
    assert!(
        w.pane(&s.name).expect("kept").dead,
        "record, not a live TUI"
    );
    assert_eq!(w.record(&s.slug).unwrap()["status"], "closed");
    assert_eq!(w.events_named("session.retained").len(), 1);
    assert_eq!(w.events_named("session.harness_terminated").len(), 1);
    // A closed session takes no deliveries.
    let out = deliver(&w, &s.reference, "too late", "late-1");
    assert_eq!(json(&out)["outcome"], "ignored");
}

#[test]
fn a_harness_that_ignores_sigterm_gets_sigkill_after_the_grace_period() {
    let w = world();
    let slug = "github-octo-repo-18";
    let cwd = w.work.join(slug);
    std::fs::create_dir_all(&cwd).unwrap();
    let probe = LegacySession {
        reference: "github:octo/repo#18".into(),
        slug: slug.into(),
        name: format!("loop-{slug}"),
        session_id: format!("0000-{slug}"),
        cwd: cwd.clone(),
    };
    std::fs::create_dir_all(w.transcript(&probe).parent().unwrap()).unwrap();
    std::fs::write(w.transcript(&probe), "{\"ignore-term\":true}\n").unwrap();
    let s = w.legacy_session(&probe.reference, slug);
    wait_for(
        || {
            stdout(&w.tmux(&["capture-pane", "-p", "-t", &format!("={}:", s.name)]))
                .contains("stand-in claude: conversation")
        },
        "the harness set its signal handlers",
    );

    let started = Instant::now();
    let out = w.the_loop(&["sessions", "stop", &s.reference, "--json"]);
    let took = started.elapsed();
    assert!(out.status.success(), "{}", explain(&out));
    assert_eq!(json(&out)["close"]["harness"][0]["ending"], "killed");
    assert!(
        w.transcript_text(&s).contains("TERM-ignored"),
        "SIGTERM came first"
    );
    assert!(
        took >= Duration::from_secs(3),
        "waited the grace ({took:?})"
    );
    assert!(w.pane(&s.name).unwrap().dead);
}

#[test]
fn close_kill_tmux_ends_the_harness_then_kills_the_session() {
    let w = world();
    let s = w.started_session("github:octo/repo#19", "github-octo-repo-19");
    let out = w.the_loop(&["sessions", "close", &s.reference, "--kill-tmux", "--json"]);
    assert!(out.status.success(), "{}", explain(&out));
    assert_eq!(json(&out)["close"]["tmux"], "killed");
    assert!(w.pane(&s.name).is_none());
    assert!(w.transcript_text(&s).contains("\"signal\":\"TERM\""));
    assert_eq!(w.record(&s.slug).unwrap()["status"], "closed");
}

#[test]
fn a_recorded_target_that_is_not_a_loop_session_is_never_signalled() {
    let w = world();
    let s = w.started_session("github:octo/repo#20", "github-octo-repo-20");
    w.tmux_ok(&["new-session", "-d", "-s", "work", "sleep 100000"]);
    let bystander = w.pane("work").unwrap();
    w.edit_record(&s.slug, |r| r["tmuxTarget"] = "work".into());

    // Nothing is pasted into it, and nothing is spawned under its name.
    let out = deliver(&w, &s.reference, "not for you", "foreign-1");
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    assert_eq!(json(&out)["outcome"], "failed");

    // Refused whole: the record stays as it was, to be mended
    // (tests/it/ownership.rs has the other ways a record can lie).
    let out = w.the_loop(&["sessions", "stop", &s.reference]);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    assert!(
        flat(&stderr(&out)).contains(&flat("which is not a the-loop session")),
        "{}",
        explain(&out)
    );
    assert_eq!(w.pane("work").unwrap(), bystander, "untouched");
    assert_eq!(w.record(&s.slug).unwrap()["status"], "active");
}

#[test]
fn close_cleans_up_only_for_an_authorized_actor() {
    let w = workspace_world("  authorizedUsers: [Octocat]\n");
    let s = w.started_session("github:octo/repo#21", "github-octo-repo-21");

    let out = w.the_loop(&["sessions", "close", &s.reference, "--json"]);
    assert!(out.status.success(), "{}", explain(&out));
    assert_eq!(json(&out)["cleanup_deferred"], "no-actor");
    let out = w.the_loop(&[
        "sessions",
        "close",
        &s.reference,
        "--actor",
        "mallory",
        "--json",
    ]);
    assert_eq!(json(&out)["cleanup_deferred"], "unauthorized-actor");
    assert!(
        s.cwd.is_dir() && w.record(&s.slug).is_some(),
        "nothing released"
    );
    let deferred: Vec<_> = w
        .events_named("cleanup.deferred")
        .iter()
        .map(|e| e["reason"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(deferred, ["no-actor", "unauthorized-actor"]);

    let out = w.the_loop(&[
        "sessions",
        "close",
        &s.reference,
        "--actor",
        "octocat",
        "--json",
    ]);
    assert!(out.status.success(), "{}", explain(&out));
    let report = json(&out);
    assert_eq!(report["cleanup"]["record_deleted"], true);
    assert!(w.record(&s.slug).is_none());
    assert!(
        !s.cwd.exists(),
        "the checkout inside the workspace root went"
    );
    assert!(w.pane(&s.name).is_none());
}

// ---- reset and cleanup ----

#[test]
fn reset_reports_the_live_session_it_ended_and_deletes_the_record() {
    let w = world();
    let s = w.started_session("github:octo/repo#22", "github-octo-repo-22");
    let pane = w.pane(&s.name).unwrap();

    let dry = w.the_loop(&["sessions", "reset", &s.reference, "--dry-run", "--json"]);
    assert!(dry.status.success(), "{}", explain(&dry));
    assert_eq!(json(&dry)["sessions"][0]["ended_live_session"], true);
    assert_eq!(w.pane(&s.name).unwrap(), pane, "a dry run changes nothing");
    assert!(w.record(&s.slug).is_some());

    let out = w.the_loop(&["sessions", "reset", &s.reference]);
    assert!(out.status.success(), "{}", explain(&out));
    let text = stdout(&out);
    assert!(text.contains("ended its live session"), "{text}");
    assert!(
        text.contains(&format!("tmux attach -r -t {}", s.name)),
        "{text}"
    );
    assert!(w.record(&s.slug).is_none());
    assert!(
        w.pane(&s.name).unwrap().dead,
        "kept by policy, harness ended"
    );
    assert!(s.cwd.is_dir(), "a reset keeps the checkout");
    assert!(w.transcript_text(&s).contains("\"signal\":\"TERM\""));
}

/// The stand-in records a SIGTERM even while it waits on a child of its
/// own (here the sleep of a slow start; in CI, python3 or a hook on a loaded
/// machine). Bash runs a trap only between foreground commands, so a child
/// that outlasts the kill grace (3 s in these worlds) used to let the-loop's
/// SIGKILL end the stand-in before it wrote the signal down: a flaky
/// "no TERM in the transcript" in every test that ends a harness.
#[test]
fn a_harness_busy_in_a_child_of_its_own_still_records_the_sigterm() {
    let w = world();
    let cwd = w.root().join("work").join("github-octo-repo-29");
    std::fs::create_dir_all(&cwd).unwrap();
    std::fs::write(cwd.join(".standin-ready-delay"), "60").unwrap();
    let s = w.started_session_in("github:octo/repo#29", "github-octo-repo-29", &cwd);
    let pid = w.pane(&s.name).unwrap().pid;
    wait_for(
        || {
            let children = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
                .unwrap_or_default();
            children.split_whitespace().any(|child| {
                std::fs::read_to_string(format!("/proc/{child}/comm"))
                    .is_ok_and(|comm| comm.trim() == "sleep")
            })
        },
        "the stand-in waits on its slow start",
    );

    let out = w.the_loop(&["sessions", "reset", &s.reference]);
    assert!(out.status.success(), "{}", explain(&out));
    assert!(w.pane(&s.name).unwrap().dead, "the harness ended");
    let transcript = w.transcript_text(&s);
    assert!(
        transcript.contains("\"signal\":\"TERM\""),
        "the SIGTERM is recorded, not cut short by SIGKILL: {transcript}"
    );
}

#[test]
fn cleanup_kills_every_endpoint_removes_the_checkout_and_blocks_a_respawn() {
    let w = workspace_world("");
    let issue = w.started_session("github:octo/repo#23", "github-octo-repo-23");
    // The PR's own session outlived its record (a live record of its own
    // would refuse the link): an endpoint the cleanup must still end.
    let pr = w.legacy_session("github:octo/repo#24", "github-octo-repo-24");
    std::fs::remove_file(w.record_path(&pr.slug)).unwrap();
    let out = link_pr(&w, &issue, &pr);
    assert!(out.status.success(), "{}", explain(&out));
    std::fs::write(issue.cwd.join("uncommitted.txt"), "work").unwrap();

    let out = w.the_loop(&["sessions", "cleanup", &issue.reference, "--json"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let report = json(&out);
    let order: Vec<&str> = report["endpoints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["tmux_target"].as_str().unwrap())
        .collect();
    assert_eq!(
        order,
        [pr.name.as_str(), issue.name.as_str()],
        "the item's own last"
    );
    assert!(w.pane(&issue.name).is_none() && w.pane(&pr.name).is_none());
    for s in [&issue, &pr] {
        assert!(
            w.transcript_text(s).contains("\"signal\":\"TERM\""),
            "graceful first"
        );
    }
    assert!(!issue.cwd.exists(), "checkout removed");
    assert!(w.record(&issue.slug).is_none());
    assert_eq!(w.events_named("session.cleaned").len(), 1);

    // No later event re-spawns the item…
    let out = deliver(&w, &issue.reference, "after cleanup", "late");
    assert_eq!(code(&out), Some(2), "{}", explain(&out));
    assert_eq!(json(&out)["outcome"], "dropped");
    assert!(w.pane(&issue.name).is_none());
    // …but an explicit start does.
    std::fs::create_dir_all(&issue.cwd).unwrap();
    w.started_session(&issue.reference, &issue.slug);
}

#[test]
fn cleanup_never_deletes_a_directory_outside_the_workspace_root() {
    let w = world();
    let root = w.work.join("workspaces");
    std::fs::create_dir_all(&root).unwrap();
    write_workspace(&w, &root, "");
    // The session runs in a directory of the operator's own, outside the root.
    let s = w.started_session("github:octo/repo#25", "github-octo-repo-25");
    std::fs::write(s.cwd.join("precious.txt"), "keep me").unwrap();

    let out = w.the_loop(&["sessions", "cleanup", &s.reference, "--json"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let report = json(&out);
    assert_eq!(report["checkouts"][0]["action"], "kept");
    assert_eq!(
        report["checkouts"][0]["verdict"],
        "keep-outside-workspace-root"
    );
    assert!(s.cwd.join("precious.txt").is_file(), "never deleted");
    let text = stdout(&w.the_loop(&["sessions", "cleanup", &s.reference]));
    assert!(text.contains("There was no registry record"), "{text}");
    assert!(w.record(&s.slug).is_none());
}

#[test]
fn cleanup_works_from_the_ref_alone_without_a_record() {
    let w = workspace_world("");
    // Left behind by a crash: a session and a checkout, but no record.
    let s = w.legacy_session("github:octo/repo#26", "github-octo-repo-26");
    std::fs::remove_file(w.record_path(&s.slug)).unwrap();

    let out = w.the_loop(&["sessions", "cleanup", &s.reference, "--json"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let report = json(&out);
    assert_eq!(report["record_deleted"], false);
    assert_eq!(report["endpoints"][0]["tmux"], "killed");
    assert_eq!(report["checkouts"][0]["action"], "removed");
    assert!(w.pane(&s.name).is_none());
    assert!(!s.cwd.exists());
}

// ---- links and attach ----

#[test]
fn a_linked_pull_request_is_delivered_into_the_issues_session() {
    let w = world();
    let s = w.started_session("github:octo/repo#27", "github-octo-repo-27");
    let out = w.the_loop(&[
        "sessions",
        "link-pr",
        &s.reference,
        "--pull-request",
        "github:octo/repo#28",
    ]);
    assert!(out.status.success(), "{}", explain(&out));
    let out = deliver(
        &w,
        "github:octo/repo#28",
        "review comment on the PR",
        "pr-1",
    );
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let report = json(&out);
    assert_eq!(report["ref"], s.reference.as_str());
    assert_eq!(report["via_pull_request"], "github:octo/repo#28");
    assert_eq!(
        wait_for_inputs(&w, &s, 1),
        [pasted("review comment on the PR")]
    );
    assert_eq!(
        w.tmux_sessions(),
        [s.name.as_str()],
        "no session for the PR"
    );
}

#[test]
fn a_pull_request_with_a_live_record_of_its_own_is_not_linked() {
    let w = world();
    let issue = w.started_session("github:octo/repo#29", "github-octo-repo-29");
    let pr = w.started_session("github:octo/repo#30", "github-octo-repo-30");
    let out = link_pr(&w, &issue, &pr);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    let said = stderr(&out);
    assert!(said.contains("has a live session of its own"), "{said}");
    assert!(
        said.contains(&format!("{}.json", pr.slug)),
        "names the record: {said}"
    );
    assert!(w.record(&issue.slug).unwrap()["pullRequests"].is_null());
    assert!(w.events_named("session.pr_linked").is_empty());
    // So a cleanup of the item leaves the PR's session and record alone.
    let out = w.the_loop(&["sessions", "cleanup", &issue.reference, "--json"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    assert_eq!(w.record(&pr.slug).unwrap()["status"], "active");
    assert!(!w.pane(&pr.name).unwrap().dead, "the PR's harness runs on");

    // Once the PR's session is closed, the link is allowed.
    let stop = w.the_loop(&["sessions", "stop", &pr.reference]);
    assert!(stop.status.success(), "{}", explain(&stop));
    w.started_session("github:octo/repo#31", "github-octo-repo-31");
    let out = w.the_loop(&[
        "sessions",
        "link-pr",
        "github:octo/repo#31",
        "--pull-request",
        &pr.reference,
    ]);
    assert!(out.status.success(), "{}", explain(&out));
}

#[test]
fn attach_is_read_only_for_a_closed_session_and_explains_what_is_missing() {
    let w = world();
    let s = w.started_session("github:octo/repo#29", "github-octo-repo-29");
    let out = w.the_loop(&["sessions", "stop", &s.reference]);
    assert!(out.status.success(), "{}", explain(&out));

    let viewer = w.the_loop_in_pty(&["sessions", "attach", &s.reference]);
    wait_for(|| !w.clients().is_empty(), "attached");
    assert_eq!(
        w.clients(),
        [Client {
            session: s.name.clone(),
            read_only: true
        }]
    );
    // The note is said on stderr and on tmux's status line: tmux flushes
    // the terminal's unread output as it starts, so the stderr line can be
    // gone before the terminal shows it; the status line is what stays.
    wait_for(
        || {
            let log = stdout(&w.tmux(&["show-messages"]));
            log.contains(&format!("{} is closed; attached read-only", s.reference))
        },
        "the note on the client's status line",
    );
    drop(viewer);

    w.edit_record(&s.slug, |r| r["tmuxTarget"] = "".into());
    let out = w.the_loop(&["sessions", "attach", &s.reference]);
    assert_eq!(code(&out), Some(1));
    assert!(
        stderr(&out).contains("attach::no_target"),
        "{}",
        explain(&out)
    );
    assert!(
        stderr(&out).contains("no tmux session recorded"),
        "{}",
        explain(&out)
    );

    w.edit_record(&s.slug, |r| r["tmuxTarget"] = s.name.as_str().into());
    w.tmux_ok(&["kill-session", "-t", &format!("={}", s.name)]);
    let out = w.the_loop(&["sessions", "attach", &s.reference]);
    assert_eq!(code(&out), Some(1));
    assert!(stderr(&out).contains("attach::absent"), "{}", explain(&out));
    assert!(
        stderr(&out).contains("nothing left to attach to"),
        "{}",
        explain(&out)
    );

    let out = w.the_loop(&["sessions", "attach", "github:octo/repo#404"]);
    assert!(
        stderr(&out).contains("attach::not_registered"),
        "{}",
        explain(&out)
    );
}

// ---- standing sessions ----

#[test]
fn standing_sessions_share_the_runner_and_take_part_in_plan() {
    let w = world();
    let cwd = w.work.join("ops");
    std::fs::create_dir_all(&cwd).unwrap();
    let out = w.the_loop(&[
        "standing",
        "create",
        "ops-watch",
        "--cwd",
        cwd.to_str().unwrap(),
        "--json",
    ]);
    assert!(out.status.success(), "{}", explain(&out));
    let created = json(&out);
    let s = LegacySession {
        reference: "ops-watch".into(),
        slug: "standing/ops-watch".into(),
        name: "loop-standing-ops-watch".into(),
        session_id: created["harness_session_id"].as_str().unwrap().into(),
        cwd: cwd.canonicalize().unwrap(),
    };
    assert_eq!(created["tmux_target"], s.name.as_str());
    assert!(
        w.the_loop(&["standing", "create", "Bad_Name", "--cwd", "."])
            .status
            .code()
            == Some(1)
    );

    let out = w.the_loop(&[
        "standing",
        "say",
        "ops-watch",
        "--message",
        "status?",
        "--json",
    ]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    assert_eq!(wait_for_inputs(&w, &s, 1), [pasted("status?")]);
    let pid = w.pane(&s.name).unwrap().pid;
    assert_eq!(
        environ(pid).get("THE_LOOP_WORK_ITEM"),
        None,
        "a standing session belongs to no work item"
    );

    let plan = w.the_loop(&["plan", "--json"]);
    assert!(plan.status.success(), "{}", explain(&plan));
    let sessions = json(&plan)["sessions"].as_array().unwrap().clone();
    assert!(
        sessions.iter().any(|p| p["tmux_target"] == s.name.as_str()),
        "{sessions:?}"
    );

    let out = w.the_loop(&["standing", "stop", "ops-watch"]);
    assert!(out.status.success(), "{}", explain(&out));
    assert!(w.transcript_text(&s).contains("\"signal\":\"TERM\""));
    assert!(w.pane(&s.name).unwrap().dead);
    let list = json(&w.the_loop(&["standing", "list", "--json"]));
    assert_eq!(list["standing"][0]["status"], "closed");
    assert_eq!(list["standing"][0]["live"], "dead");

    let out = w.the_loop(&["standing", "start", "ops-watch", "--json"]);
    assert!(out.status.success(), "{}", explain(&out));
    assert_eq!(json(&out)["resumed"], true);
    let pane = w.pane(&s.name).unwrap();
    assert!(cmdline(pane.pid).contains(&s.session_id), "resumed");

    let out = w.the_loop(&["standing", "restart", "ops-watch", "--json"]);
    assert!(out.status.success(), "{}", explain(&out));
    assert_ne!(w.pane(&s.name).unwrap().pid, pane.pid, "rolled in place");
}

// ---- secrets ----

#[test]
fn a_respawn_holds_the_policy_environment_and_nothing_leaks() {
    const CANARY: &str = "xoxb-LIFECYCLE-canary-5e1d";
    let w = world();
    w.write_env(&format!("SLACK_BOT_TOKEN={CANARY}\n"));
    w.start_server_holding(&[("SLACK_BOT_TOKEN", CANARY)]);
    let s = w.started_session("github:octo/repo#30", "github-octo-repo-30");
    w.tmux_ok(&["kill-session", "-t", &format!("={}", s.name)]);
    let out = deliver(&w, &s.reference, "respawn me", "sec-1");
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let env = environ(w.pane(&s.name).unwrap().pid);
    assert!(
        !env.contains_key("SLACK_BOT_TOKEN"),
        "withheld after the respawn"
    );
    let outs = [
        out,
        w.the_loop(&["sessions", "stop", &s.reference, "--json"]),
        w.the_loop(&["sessions", "reset", &s.reference, "--json"]),
        w.the_loop(&["sessions", "cleanup", &s.reference, "--json"]),
    ];
    for o in &outs {
        assert_no_canary(&o.stdout, &[CANARY], "stdout");
        assert_no_canary(&o.stderr, &[CANARY], "stderr");
    }
    for (path, bytes) in w.state_files() {
        assert_no_canary(&bytes, &[CANARY], &path.display().to_string());
    }
}

/// A boot prompt is typed text too: the same rule as a paste, so a first
/// prompt of `/exit` with an escape in it reaches the harness as a prompt.
#[test]
fn a_boot_prompt_is_data_like_any_delivery() {
    let w = world();
    let s = w.started_session("github:octo/repo#8", "github-octo-repo-8");
    // A crash (SIGKILL: no handler to wait for on a loaded machine) leaves the
    // pane dead; the delivery respawns it with the text as its first prompt.
    let old = w.pane(&s.name).unwrap();
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(old.pid),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    wait_for(
        || w.pane(&s.name).is_some_and(|p| p.dead),
        "the pane is retained dead",
    );
    let out = deliver(&w, &s.reference, "/exit\u{1b}[201~now", "boot-1");
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    assert_eq!(json(&out)["route"], "respawned");
    assert_eq!(w.boot_prompts(&s), ["› /exit␛[201~now"]);
}

/// SIGTERMs the session's harness (`pid`) as a crash would, and waits for its
/// pane to be retained dead.
fn end_harness_leaving_a_dead_pane(w: &World, s: &LegacySession, pid: i32) {
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    wait_for(
        || w.pane(&s.name).is_some_and(|p| p.dead),
        "the pane is retained dead",
    );
}
