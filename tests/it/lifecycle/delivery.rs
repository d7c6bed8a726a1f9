//! Delivery into a live session: paste then submit, observers, arrival order, delivery ids.

use super::*;

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
