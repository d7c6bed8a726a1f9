//! Respawn on delivery: resume or fresh start, retry, healing, and what a respawned harness holds.

use super::*;

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
