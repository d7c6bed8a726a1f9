//! Issue 11, class 2: a roll interrupted between a harness's SIGTERM and
//! its respawn (`kill -9`, SIGHUP, SIGXFSZ, a panic) never leaves a dead
//! pane that nobody owns. The intent journal says what was meant; `plan`
//! and `status` report it; the next `apply` completes it, on a real tmux.

use crate::support::*;
use std::os::unix::fs::PermissionsExt;
use std::process::{Command, Stdio};

const RETIRED: &str = "xoxb-RETIRED-journal-canary-5e1a";
const ROTATED: &str = "xoxb-ROTATED-journal-canary-9b07";

/// `n` sessions born on the retired token, which the config delivers, then
/// the rotation. `grace` is harnessKillGraceSeconds.
fn rotated_world(n: usize, grace: &str) -> (World, Vec<LegacySession>) {
    let w = World::new();
    w.write_raw_config(&format!(
        "state:\n  root: {}\nenv:\n  file: .env\n  deliver: [SLACK_BOT_TOKEN]\nrouting:\n  tmux:\n    resumeProbeSeconds: 0.5\n    harnessKillGraceSeconds: {grace}\n",
        w.state.display()
    ));
    let sessions = w.rotated_fleet(n, RETIRED, ROTATED);
    (w, sessions)
}

fn journal_entry(w: &World, s: &LegacySession) -> std::path::PathBuf {
    w.state.join("journal").join(format!("{}.json", s.name))
}

fn start_apply(w: &World, args: &[&str]) -> std::process::Child {
    w.the_loop_command(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn signal(pid: u32, sig: &str) {
    let sent = Command::new("kill")
        .args([sig, &pid.to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
}

/// What every interrupted roll must come to: `plan` and `status` report the
/// dead pane, and the next `apply` respawns that same pane resuming the
/// same conversation, holding the new value.
fn reported_then_completed(w: &World, s: &LegacySession, dead_pane: &str) {
    let pane = w.pane(&s.name).unwrap();
    assert!(pane.dead, "the pane was left dead");
    assert_eq!(pane.id, dead_pane);
    let entry = journal_entry(w, s);
    let mode = std::fs::metadata(&entry).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "the journal entry is private");
    let text = std::fs::read_to_string(&entry).unwrap();
    assert!(text.contains(&s.session_id), "{text}");
    assert_no_canary(text.as_bytes(), &[RETIRED, ROTATED], "journal entry");

    let plan = w.the_loop(&["plan", "--json"]);
    let planned = json(&plan);
    let session = session_in(&planned, &s.reference);
    assert_eq!(session["action"], "resume", "{session}");
    assert_eq!(
        session["interrupted_respawn"]["harness_session_id"],
        s.session_id
    );
    assert_eq!(session["interrupted_respawn"]["pane_id"], dead_pane);
    assert_eq!(planned["summary"]["resume"], 1);
    let text = stdout(&w.the_loop(&["plan"]));
    assert!(
        text.contains("interrupted respawn") && !text.contains("skip: not running"),
        "{text}"
    );
    let gate = w.the_loop(&["plan", "--detailed-exitcode"]);
    assert_eq!(gate.status.code(), Some(2), "something needs doing");

    let status = json(&w.the_loop(&["status", "--json"]));
    let facts = session_in(&status, &s.reference);
    assert_eq!(
        facts["interrupted_respawn"]["harness_session_id"], s.session_id,
        "{status}"
    );
    assert_eq!(status["interrupted_respawns"], 1);
    let text = stdout(&w.the_loop(&["status"]));
    assert!(text.contains("interrupted respawn"), "{text}");

    let out = w.the_loop(&["apply", "--auto-approve", "--json"]);
    let report = json(&out);
    let done = session_in(&report, &s.reference);
    assert_eq!(done["outcome"], "restarted", "{done}\n{}", stderr(&out));
    let pane = w.pane(&s.name).unwrap();
    assert!(!pane.dead);
    assert_eq!(pane.id, dead_pane, "the same pane, respawned in place");
    assert_eq!(done["new_pid"], pane.pid);
    wait_for_harness(pane.pid);
    let argv = cmdline(pane.pid);
    let at = argv
        .iter()
        .position(|a| a == "--resume")
        .unwrap_or_else(|| panic!("no --resume in {argv:?}"));
    assert_eq!(argv[at + 1], s.session_id, "the recorded conversation");
    assert_eq!(
        environ(pane.pid).get("SLACK_BOT_TOKEN").map(String::as_str),
        Some(ROTATED),
        "the new process holds the new value"
    );
    assert!(
        !entry.exists(),
        "the journal entry is cleared after verification"
    );
    let plan = json(&w.the_loop(&["plan", "--json"]));
    assert_eq!(session_in(&plan, &s.reference)["action"], "none");
    assert_no_canary(&out.stdout, &[RETIRED, ROTATED], "stdout");
    assert_no_canary(&out.stderr, &[RETIRED, ROTATED], "stderr");
}

/// An apply killed with `kill -9` inside the grace period, after the
/// journal entry and the SIGTERM; then the harness exits, as Claude Code
/// does after SIGTERM, and nobody is left to respawn it. Returns the pane
/// as it was before the roll.
fn killed_mid_roll(w: &World, s: &LegacySession) -> Pane {
    w.ignore_term(s);
    let pane = w.pane(&s.name).unwrap();
    let mut child = start_apply(w, &["apply", "--auto-approve", "--json"]);
    wait_for(
        || w.transcript_text(s).contains("TERM-ignored"),
        "the harness was sent SIGTERM",
    );
    assert!(journal_entry(w, s).is_file(), "written before the signal");
    signal(child.id(), "-KILL");
    let _ = child.wait();
    signal(pane.pid as u32, "-KILL");
    wait_for(|| w.pane(&s.name).is_some_and(|p| p.dead), "the pane died");
    pane
}

#[test]
fn kill_9_between_the_sigterm_and_the_respawn_is_reported_and_completed() {
    let (w, sessions) = rotated_world(1, "60");
    let s = &sessions[0];
    let pane = killed_mid_roll(&w, s);
    reported_then_completed(&w, s, &pane.id);
}

#[test]
fn a_panic_after_the_sigterm_is_reported_and_completed() {
    let (w, sessions) = rotated_world(1, "3");
    let s = &sessions[0];
    let pane = w.pane(&s.name).unwrap();
    let out = w.the_loop_with(
        &["apply", "--auto-approve", "--json"],
        &[("THE_LOOP_TEST_CRASH_AT", "after-signal")],
    );
    assert_eq!(out.status.code(), Some(101), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("intent journal"),
        "the panic says where things stand: {}",
        stderr(&out)
    );
    assert_no_canary(&out.stderr, &[RETIRED, ROTATED], "stderr");
    wait_for(|| w.pane(&s.name).is_some_and(|p| p.dead), "the pane died");
    reported_then_completed(&w, s, &pane.id);
}

#[test]
fn a_crash_after_the_journal_and_before_the_signal_leaves_the_session_live_and_rolls_it_next_time()
{
    let (w, sessions) = rotated_world(1, "3");
    let s = &sessions[0];
    let before = w.pane(&s.name).unwrap();
    let out = w.the_loop_with(
        &["apply", "--auto-approve", "--json"],
        &[("THE_LOOP_TEST_CRASH_AT", "after-journal")],
    );
    assert_eq!(out.status.code(), Some(101), "{}", stderr(&out));
    assert_eq!(w.pane(&s.name).unwrap(), before, "nothing was signalled");
    // No harness was ended, so the panic is reported as itself, with no
    // word about the intent journal (issue 34, part 4).
    assert!(stderr(&out).contains("panicked"), "{}", stderr(&out));
    assert!(!stderr(&out).contains("intent journal"), "{}", stderr(&out));
    // A live pane is planned as usual: the stale entry changes nothing.
    let plan = json(&w.the_loop(&["plan", "--json"]));
    let session = session_in(&plan, &s.reference);
    assert_eq!(session["action"], "respawn", "{session}");
    assert!(session.get("interrupted_respawn").is_none(), "{session}");
    let out = w.the_loop(&["apply", "--auto-approve", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        session_in(&json(&out), &s.reference)["outcome"],
        "restarted"
    );
    assert!(!journal_entry(&w, s).exists());
}

#[test]
fn sighup_is_handled_like_ctrl_c() {
    let (w, sessions) = rotated_world(2, "1");
    // The canary ignores SIGTERM, so the roll sits in its grace period.
    w.ignore_term(&sessions[0]);
    let untouched = w.pane(&sessions[1].name).unwrap().pid;
    let child = start_apply(&w, &["apply", "--auto-approve", "--json"]);
    wait_for(
        || w.transcript_text(&sessions[0]).contains("TERM-ignored"),
        "the canary's respawn is in flight",
    );
    signal(child.id(), "-HUP");
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "a report, not a death by SIGHUP: {}",
        stderr(&out)
    );
    let report = json(&out);
    assert_eq!(report["interrupted"], true, "{report}");
    let canary = session_in(&report, &sessions[0].reference);
    assert_eq!(canary["outcome"], "restarted", "{canary}");
    let pid = w.pane(&sessions[0].name).unwrap().pid;
    assert_eq!(canary["new_pid"], pid, "verified on the new process");
    assert_eq!(
        environ(pid).get("SLACK_BOT_TOKEN").map(String::as_str),
        Some(ROTATED)
    );
    let stopped = session_in(&report, &sessions[1].reference);
    assert_eq!(stopped["outcome"], "not_attempted");
    assert_eq!(stopped["detail"], "interrupted");
    assert_eq!(w.pane(&sessions[1].name).unwrap().pid, untouched);
    assert!(!journal_entry(&w, &sessions[0]).exists());
    assert_no_canary(&out.stdout, &[RETIRED, ROTATED], "stdout");
    assert_no_canary(&out.stderr, &[RETIRED, ROTATED], "stderr");
}

#[test]
fn a_file_size_limit_makes_writes_fail_instead_of_killing_the_roll() {
    let (w, sessions) = rotated_world(1, "3");
    let s = &sessions[0];
    // The event log is already past the limit, so every event write hits it.
    let events = w.state.join("events.jsonl");
    let mut filler = std::fs::read(&events).unwrap_or_default();
    filler.resize(16 * 1024, b'\n');
    std::fs::write(&events, &filler).unwrap();
    let apply = w.the_loop_command(&["apply", "--auto-approve", "--json"]);
    let mut limited = Command::new("bash");
    limited
        .arg("-c")
        .arg("ulimit -f 8 && exec \"$0\" \"$@\"")
        .arg(apply.get_program())
        .args(apply.get_args());
    for (key, value) in apply.get_envs() {
        match value {
            Some(value) => limited.env(key, value),
            None => limited.env_remove(key),
        };
    }
    let out = limited.output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "not killed by SIGXFSZ: {:?} {}",
        out.status,
        stderr(&out)
    );
    assert_eq!(
        session_in(&json(&out), &s.reference)["outcome"],
        "restarted"
    );
    assert!(
        stderr(&out).contains("could not write event"),
        "the failed write is reported: {}",
        stderr(&out)
    );
    let pid = w.pane(&s.name).unwrap().pid;
    assert_eq!(
        environ(pid).get("SLACK_BOT_TOKEN").map(String::as_str),
        Some(ROTATED)
    );
    assert_no_canary(&out.stderr, &[RETIRED, ROTATED], "stderr");
}

#[test]
fn a_journal_that_cannot_be_written_means_nothing_is_signalled() {
    let (w, sessions) = rotated_world(1, "3");
    let s = &sessions[0];
    let before = w.pane(&s.name).unwrap();
    // A file where the journal's directory belongs: no entry can be written.
    std::fs::write(w.state.join("journal"), b"").unwrap();
    let out = w.the_loop(&["apply", "--auto-approve", "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let report = json(&out);
    let session = session_in(&report, &s.reference);
    assert_eq!(session["outcome"], "left_alone", "{session}");
    assert!(
        session["detail"]
            .as_str()
            .unwrap()
            .contains("cannot write the intent journal"),
        "{session}"
    );
    assert_eq!(w.pane(&s.name).unwrap(), before, "never signalled");
    assert!(!w.transcript_text(s).contains("\"signal\""));
}

/// `watch --apply` completes an interrupted respawn too: it needs no drift
/// event to notice it, only its next look at the fleet.
#[test]
fn watch_apply_completes_an_interrupted_respawn() {
    let (w, sessions) = rotated_world(1, "60");
    let s = &sessions[0];
    let pane = killed_mid_roll(&w, s);
    assert!(journal_entry(&w, s).is_file());

    let log = w.root().join("watch.log");
    let mut watch = w
        .the_loop_command(&["watch", "--apply", "--interval", "1"])
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::from(std::fs::File::create(&log).unwrap()))
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for(
        || w.pane(&s.name).is_some_and(|p| !p.dead) && !journal_entry(&w, s).exists(),
        "watch respawned the dead pane and cleared its journal entry",
    );
    signal(watch.id(), "-TERM");
    let _ = watch.wait();
    let pane_now = w.pane(&s.name).unwrap();
    assert_eq!(pane_now.id, pane.id, "the same pane, respawned in place");
    wait_for_harness(pane_now.pid);
    let argv = cmdline(pane_now.pid);
    let at = argv.iter().position(|a| a == "--resume").unwrap();
    assert_eq!(argv[at + 1], s.session_id, "the recorded conversation");
    assert_eq!(
        environ(pane_now.pid)
            .get("SLACK_BOT_TOKEN")
            .map(String::as_str),
        Some(ROTATED)
    );
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    assert_no_canary(text.as_bytes(), &[RETIRED, ROTATED], "watch output");
}

/// Issue 35, point 6: a `watch` killed with `kill -9` while its canary's new
/// harness waits for its probe leaves a journal entry for a live pane. The
/// next watch completes the fleet and clears that entry, as `apply` does.
#[test]
fn a_watch_killed_mid_roll_is_completed_and_its_journal_cleared_by_the_next_watch() {
    let w = World::new();
    w.write_raw_config(&format!(
        "state:\n  root: {}\nenv:\n  file: .env\n  deliver: [SLACK_BOT_TOKEN]\nrouting:\n  tmux:\n    resumeProbeSeconds: 4\n    harnessKillGraceSeconds: 3\n",
        w.state.display()
    ));
    let sessions = w.rotated_fleet(2, RETIRED, ROTATED);
    let before: Vec<i32> = sessions
        .iter()
        .map(|s| w.pane(&s.name).unwrap().pid)
        .collect();
    let spawn_watch = || {
        w.the_loop_command(&[
            "watch",
            "--apply",
            "--interval",
            "1",
            "--debounce-ms",
            "200",
        ])
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
    };
    let mut first = spawn_watch();
    wait_for(
        || {
            sessions.iter().zip(&before).any(|(s, old)| {
                journal_entry(&w, s).is_file()
                    && w.pane(&s.name).is_some_and(|p| !p.dead && p.pid != *old)
            })
        },
        "the canary runs its new harness, unverified, its entry on disk",
    );
    signal(first.id(), "-KILL");
    let _ = first.wait();
    let journal = w.state.join("journal");
    let entries = || {
        std::fs::read_dir(&journal)
            .map(|d| d.flatten().count())
            .unwrap_or(0)
    };
    assert_eq!(entries(), 1, "the killed watch left its entry");

    let mut second = spawn_watch();
    wait_for(
        || {
            entries() == 0
                && sessions.iter().all(|s| {
                    w.pane(&s.name).is_some_and(|p| {
                        !p.dead
                            && environ(p.pid).get("SLACK_BOT_TOKEN").map(String::as_str)
                                == Some(ROTATED)
                    })
                })
        },
        "the next watch completed the fleet and cleared the journal",
    );
    signal(second.id(), "-TERM");
    let _ = second.wait();
    assert_eq!(entries(), 0);
}
