//! Safe points and readiness on a real tmux with the stand-in harness, whose
//! hooks report its activity: a running turn is never ended without
//! `--now`, an attached session is left alone without `--include-attached`,
//! the drain's deadline defers, and each respawn says whether the harness
//! itself reported resuming the recorded conversation.

use crate::support::*;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// A world whose sessions hold `EXTRA` from the env file, so rewriting it
/// is drift.
fn world() -> World {
    let w = World::new();
    w.write_config("  deliver: [EXTRA]\n");
    w.write_env("EXTRA=one\n");
    w
}

/// A session started by the-loop (so its harness has the hooks), idle at
/// its prompt, then made stale by a rotation.
fn stale_session(w: &World, n: u32) -> LegacySession {
    let s = w.started_session(
        &format!("github:octo/repo#{n}"),
        &format!("github-octo-repo-{n}"),
    );
    wait_plan(w, &s, "activity", "idle");
    s
}

fn rotate(w: &World) {
    w.write_env("EXTRA=two\n");
}

fn plan_row(w: &World, s: &LegacySession) -> serde_json::Value {
    let out = w.the_loop(&["plan", "--json"]);
    session_in(&json(&out), &s.reference).clone()
}

fn wait_plan(w: &World, s: &LegacySession, field: &str, want: &str) {
    wait_for(
        || plan_row(w, s)[field] == want,
        &format!("{} {field} {want}", s.reference),
    );
}

fn type_line(w: &World, s: &LegacySession, text: &str) {
    w.tmux_ok(&["send-keys", "-t", &format!("={}:", s.name), "-l", text]);
    w.tmux_ok(&["send-keys", "-t", &format!("={}:", s.name), "Enter"]);
}

/// Whether the harness was sent a signal (the stand-in records each).
fn signalled(w: &World, s: &LegacySession) -> bool {
    w.transcript_text(s).contains("\"type\":\"signal\"")
}

/// [`wait_for`] for what follows a whole roll (probe, verification and the
/// harness's own report), which takes longer than ten seconds on a
/// machine at a load of thirty.
fn wait_long(mut check: impl FnMut() -> bool, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !check() {
        assert!(Instant::now() < deadline, "timed out waiting: {what}");
        std::thread::sleep(Duration::from_millis(25));
    }
}

fn spawn(w: &World, args: &[&str]) -> Child {
    w.the_loop_command(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn the-loop")
}

#[test]
fn a_busy_session_is_not_interrupted_and_is_rolled_the_moment_its_turn_ends() {
    let w = world();
    let s = stale_session(&w, 1);
    rotate(&w);
    type_line(&w, &s, "/busy");
    wait_plan(&w, &s, "activity", "busy");
    let row = plan_row(&w, &s);
    assert_eq!(row["action"], "respawn", "{row}");
    assert_eq!(row["apply_will"], "wait_busy", "{row}");
    let text = stdout(&w.the_loop(&["plan"]));
    assert!(
        text.contains("will be respawned  [busy since 20")
            && text.contains("Z: waits for its turn to end]"),
        "{text}"
    );
    let old = w.pane(&s.name).unwrap();

    let apply = spawn(
        &w,
        &[
            "apply",
            "--auto-approve",
            "--json",
            "--drain-timeout",
            "60s",
        ],
    );
    // The roll has planned and is holding the session: nothing was ended.
    wait_for(
        || w.events_named("apply.started").len() == 1,
        "the roll started",
    );
    std::thread::sleep(Duration::from_millis(1500));
    assert!(!signalled(&w, &s), "a running turn was interrupted");
    assert_eq!(w.pane(&s.name).unwrap().pid, old.pid);

    type_line(&w, &s, "/idle");
    let out = apply.wait_with_output().unwrap();
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let report = json(&out);
    let row = session_in(&report, &s.reference);
    assert_eq!(row["outcome"], "restarted", "{report}");
    assert_eq!(row["conversation"], "confirmed", "{report}");
    let now = w.pane(&s.name).unwrap();
    assert_ne!(now.pid, old.pid);
    assert_eq!(
        environ(now.pid).get("EXTRA").map(String::as_str),
        Some("two")
    );
    // The signal came after the turn's end, never inside it.
    let transcript = w.transcript_text(&s);
    let idle = transcript.find("L2lkbGU=").expect("the /idle line"); // base64 of "/idle"
    let signal = transcript.find("\"type\":\"signal\"").expect("signalled");
    assert!(idle < signal, "{transcript}");
}

#[test]
fn the_drain_deadline_defers_a_running_turn_and_exits_1() {
    let w = world();
    let busy = stale_session(&w, 1);
    let waiting = stale_session(&w, 2);
    let idle = stale_session(&w, 3);
    rotate(&w);
    type_line(&w, &busy, "/busy");
    type_line(&w, &waiting, "/wait");
    wait_plan(&w, &busy, "activity", "busy");
    wait_plan(&w, &waiting, "activity", "waiting");
    assert_eq!(plan_row(&w, &waiting)["apply_will"], "wait_waiting");
    let before = (w.pane(&busy.name).unwrap(), w.pane(&waiting.name).unwrap());

    let started = Instant::now();
    let out = w.the_loop(&["apply", "--auto-approve", "--json", "--drain-timeout", "2s"]);
    assert!(
        started.elapsed() >= Duration::from_secs(2),
        "the drain waited"
    );
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    let report = json(&out);
    let row = session_in(&report, &busy.reference);
    assert_eq!(row["outcome"], "deferred", "{report}");
    assert!(
        row["detail"].as_str().unwrap().starts_with("busy since 20"),
        "{report}"
    );
    assert!(row["conversation"].is_null(), "{report}");
    let row = session_in(&report, &waiting.reference);
    assert_eq!(row["outcome"], "deferred", "{report}");
    assert!(
        row["detail"]
            .as_str()
            .unwrap()
            .starts_with("waiting for a person since 20"),
        "{report}"
    );
    // The idle one was rolled at once, in the same run.
    let row = session_in(&report, &idle.reference);
    assert_eq!(row["outcome"], "restarted", "{report}");
    assert_eq!(row["conversation"], "confirmed", "{report}");
    assert!(!signalled(&w, &busy) && !signalled(&w, &waiting));
    assert_eq!(w.pane(&busy.name).unwrap().pid, before.0.pid);
    assert_eq!(w.pane(&waiting.name).unwrap().pid, before.1.pid);
    let deferred = w.events_named("session.deferred");
    assert_eq!(deferred.len(), 2, "{deferred:?}");

    // The text report counts them.
    let out = w.the_loop(&["apply", "--auto-approve", "--drain-timeout", "0s"]);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    let text = stdout(&out);
    assert!(text.contains("deferred (busy since 20"), "{text}");
    assert!(text.contains(", 2 deferred."), "{text}");
}

#[test]
fn now_interrupts_a_running_turn_and_says_so() {
    let w = world();
    let s = stale_session(&w, 1);
    rotate(&w);
    type_line(&w, &s, "/busy");
    wait_plan(&w, &s, "activity", "busy");
    let old = w.pane(&s.name).unwrap();
    let out = w.the_loop(&["apply", "--auto-approve", "--now"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    assert!(
        stderr(&out).contains(&format!(
            "--now: interrupting the running turn of {}",
            s.reference
        )),
        "{}",
        explain(&out)
    );
    assert!(
        stdout(&out).contains("[busy since 20") && stdout(&out).contains("Z: rolls now]"),
        "apply's plan shows what --now does: {}",
        stdout(&out)
    );
    assert!(signalled(&w, &s));
    assert_ne!(w.pane(&s.name).unwrap().pid, old.pid);
}

#[test]
fn an_attached_session_is_left_alone_and_rolled_with_include_attached() {
    let w = world();
    let s = stale_session(&w, 1);
    rotate(&w);
    let _client = w.the_loop_in_pty(&["sessions", "attach", &s.reference]);
    wait_for(|| !w.clients().is_empty(), "a real client attached");
    let row = plan_row(&w, &s);
    assert_eq!(row["attached"], 1, "{row}");
    assert_eq!(row["apply_will"], "leave_attached", "{row}");
    let old = w.pane(&s.name).unwrap();

    let out = w.the_loop(&["apply", "--auto-approve", "--json"]);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    let report = json(&out);
    let row = session_in(&report, &s.reference);
    assert_eq!(row["outcome"], "deferred", "{report}");
    assert!(
        row["detail"].as_str().unwrap().contains("attached"),
        "{report}"
    );
    let out = w.the_loop(&["sessions", "restart", &s.reference, "--json"]);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    assert_eq!(session_in(&json(&out), &s.reference)["outcome"], "deferred");
    assert!(!signalled(&w, &s));
    assert_eq!(w.pane(&s.name).unwrap().pid, old.pid);

    let out = w.the_loop(&[
        "sessions",
        "restart",
        &s.reference,
        "--json",
        "--include-attached",
    ]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let report = json(&out);
    let row = session_in(&report, &s.reference);
    assert_eq!(row["outcome"], "restarted", "{report}");
    assert_eq!(row["conversation"], "confirmed", "{report}");
    assert_ne!(w.pane(&s.name).unwrap().pid, old.pid);
}

#[test]
fn a_resume_is_confirmed_by_the_new_harness_and_a_blocking_dialog_is_blocked() {
    let w = world();
    let fine = stale_session(&w, 1);
    let stuck = stale_session(&w, 2);
    rotate(&w);
    // The stand-in draws Claude Code's API-key dialog on its next resume.
    std::fs::OpenOptions::new()
        .append(true)
        .open(w.transcript(&stuck))
        .and_then(|mut f| {
            std::io::Write::write_all(&mut f, b"{\"type\":\"block-api-key-dialog\"}\n")
        })
        .unwrap();

    let out = w.the_loop(&["apply", "--auto-approve", "--json"]);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    let report = json(&out);
    let row = session_in(&report, &fine.reference);
    assert_eq!(row["outcome"], "restarted", "{report}");
    assert_eq!(row["conversation"], "confirmed", "{report}");
    let row = session_in(&report, &stuck.reference);
    assert_eq!(row["outcome"], "blocked", "{report}");
    assert_eq!(row["detail"], "stopped at the API-key dialog", "{report}");
    assert_eq!(row["conversation"], "unconfirmed", "{report}");
    // The dialog shows the end of a key: only its name is ever reported.
    assert!(!stdout(&out).contains("sk-ant"), "{}", stdout(&out));
    let blocked = w.events_named("session.blocked");
    assert_eq!(blocked.len(), 1, "{blocked:?}");
    assert_eq!(blocked[0]["screen"], "API-key dialog");
    let finished = w.events_named("apply.finished");
    let outcomes = finished.last().unwrap()["sessions"].clone();
    assert!(
        outcomes
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["outcome"] == "blocked" && s["conversation"] == "unconfirmed"),
        "{outcomes}"
    );
}

#[test]
fn a_session_without_hooks_rolls_at_once_and_its_new_harness_confirms_the_resume() {
    let w = World::new();
    let sessions = w.rotated_fleet(1, "xoxb-RETIRED-safe-1", "xoxb-ROTATED-safe-1");
    let s = &sessions[0];
    let row = plan_row(&w, s);
    assert_eq!(row["activity"], "unknown", "{row}");
    assert_eq!(row["apply_will"], "roll_now", "{row}");
    let out = w.the_loop(&["apply", "--auto-approve", "--json"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let report = json(&out);
    let row = session_in(&report, &s.reference);
    assert_eq!(row["outcome"], "restarted", "{report}");
    // The respawn runs through the launcher, which adds the hooks: the new
    // harness reports its resume although the old one could not.
    assert_eq!(row["conversation"], "confirmed", "{report}");
}

#[test]
fn the_drain_shows_its_progress_on_a_terminal() {
    let w = world();
    let s = stale_session(&w, 1);
    rotate(&w);
    type_line(&w, &s, "/busy");
    wait_plan(&w, &s, "activity", "busy");
    let pty = w.the_loop_in_pty(&["apply", "--auto-approve", "--drain-timeout", "30s"]);
    let shows = |text: &str| flat(&pty.screen()).contains(&flat(text));
    wait_for(
        || shows("waiting for 1 session(s) to end their turn"),
        "progress on the terminal",
    );
    assert!(shows(&s.reference) && shows("s left)"), "{}", pty.screen());
    type_line(&w, &s, "/idle");
    wait_long(|| shows("Apply: 1 restarted"), "the roll ends");
    // Not on a pipe: the JSON and text outputs above carry no progress lines.
}

/// A turn that begins after the plan (here: while `apply` asks for its
/// `yes`) is seen by the roll's last look before the signal: the session
/// is held, not ended, and rolled when that turn ends.
#[test]
fn a_turn_begun_after_the_plan_is_still_not_interrupted() {
    let w = world();
    let s = stale_session(&w, 1);
    rotate(&w);
    let old = w.pane(&s.name).unwrap();
    let mut pty = w.the_loop_in_pty(&["apply", "--drain-timeout", "30s"]);
    let shows = |pty: &PtyProcess, text: &str| flat(&pty.screen()).contains(&flat(text));
    wait_for(|| shows(&pty, "Only 'yes' will be accepted"), "apply asks");
    assert!(shows(&pty, "[idle: rolls now]"), "{}", pty.screen());
    type_line(&w, &s, "/busy");
    wait_plan(&w, &s, "activity", "busy");
    pty.type_text("yes\n");
    wait_for(
        || shows(&pty, "waiting for 1 session(s) to end their turn"),
        "held by the last look",
    );
    assert!(!signalled(&w, &s), "a running turn was interrupted");
    assert_eq!(w.pane(&s.name).unwrap().pid, old.pid);
    type_line(&w, &s, "/idle");
    wait_long(|| shows(&pty, "Apply: 1 restarted"), "rolled once idle");
    assert_ne!(w.pane(&s.name).unwrap().pid, old.pid);
}

/// `/exit` while a roll holds the session: the person closed that
/// conversation, so it is dropped (`skipped`), never signalled or resumed,
/// although its harness takes a while to go after `SessionEnd`.
#[test]
fn a_session_the_person_ends_while_held_is_skipped_not_respawned() {
    let w = world();
    let s = stale_session(&w, 1);
    rotate(&w);
    type_line(&w, &s, "/busy");
    wait_plan(&w, &s, "activity", "busy");
    let old = w.pane(&s.name).unwrap();
    let apply = spawn(
        &w,
        &[
            "apply",
            "--auto-approve",
            "--json",
            "--drain-timeout",
            "60s",
        ],
    );
    wait_for(
        || w.events_named("apply.started").len() == 1,
        "the roll started",
    );
    type_line(&w, &s, "/exit");
    let out = apply.wait_with_output().unwrap();
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let report = json(&out);
    let row = session_in(&report, &s.reference);
    assert_eq!(row["outcome"], "skipped", "{report}");
    assert_eq!(
        row["detail"], "ended by the user; not respawned",
        "{report}"
    );
    assert!(row["conversation"].is_null(), "{report}");
    assert!(!signalled(&w, &s), "the person's exit was overruled");
    // Nothing was respawned in its pane: it is gone, or still the old process.
    if let Some(now) = w.pane(&s.name) {
        assert_eq!(now.pid, old.pid);
    }
}

/// The plan's rule: a harness the person ended is left alone, whatever the
/// flags, and `plan` says so.
#[test]
fn an_ended_session_is_planned_left_alone_even_with_now() {
    let w = world();
    let s = stale_session(&w, 1);
    rotate(&w);
    type_line(&w, &s, "/exit");
    wait_plan(&w, &s, "activity", "ended");
    assert_eq!(plan_row(&w, &s)["apply_will"], "leave_ended");
    let out = w.the_loop(&["apply", "--auto-approve", "--json", "--now"]);
    let report = json(&out);
    let row = session_in(&report, &s.reference);
    assert_eq!(row["outcome"], "skipped", "{report}");
    assert!(!signalled(&w, &s), "the person's exit was overruled");
}

/// Escape in the middle of a turn fires no hook: the hooks keep saying
/// busy. The drain looks at the held pane, sees no running turn twice, and
/// rolls it within the drain instead of deferring it for good.
#[test]
fn an_interrupted_turn_is_rolled_within_the_drain() {
    let w = world();
    let s = stale_session(&w, 1);
    rotate(&w);
    type_line(&w, &s, "/busy");
    wait_plan(&w, &s, "activity", "busy");
    let old = w.pane(&s.name).unwrap();
    let apply = spawn(
        &w,
        &[
            "apply",
            "--auto-approve",
            "--json",
            "--drain-timeout",
            "20s",
        ],
    );
    wait_for(
        || w.events_named("apply.started").len() == 1,
        "the roll started",
    );
    std::thread::sleep(Duration::from_millis(1500));
    assert!(!signalled(&w, &s), "a running turn was interrupted");
    let interrupted = Instant::now();
    type_line(&w, &s, "/interrupt");
    let out = apply.wait_with_output().unwrap();
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    assert!(
        interrupted.elapsed() < Duration::from_secs(15),
        "rolled within the drain, not at its end"
    );
    let report = json(&out);
    let row = session_in(&report, &s.reference);
    assert_eq!(row["outcome"], "restarted", "{report}");
    let now = w.pane(&s.name).unwrap();
    assert_ne!(now.pid, old.pid);
    assert_eq!(
        environ(now.pid).get("EXTRA").map(String::as_str),
        Some("two")
    );
}

/// A `!` command fires no `UserPromptSubmit`: the hooks say idle while it
/// runs. The roll's last look at the pane sees `esc to interrupt` and holds
/// the session until the command ends; it is never ended mid-command.
#[test]
fn a_bang_command_is_not_ended_by_a_roll() {
    let w = world();
    let s = stale_session(&w, 1);
    rotate(&w);
    let started = Instant::now();
    type_line(&w, &s, "/bang 6");
    wait_for(
        || {
            let screen = stdout(&w.tmux(&["capture-pane", "-p", "-t", &format!("={}:", s.name)]));
            screen.contains("esc to interrupt")
        },
        "the command runs",
    );
    assert_eq!(
        plan_row(&w, &s)["activity"],
        "idle",
        "the hooks cannot tell"
    );
    let out = w.the_loop(&[
        "apply",
        "--auto-approve",
        "--json",
        "--drain-timeout",
        "30s",
    ]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    assert!(
        started.elapsed() >= Duration::from_secs(6),
        "the roll waited for the command to end"
    );
    let report = json(&out);
    let row = session_in(&report, &s.reference);
    assert_eq!(row["outcome"], "restarted", "{report}");
    // The command ran to its end before the harness was signalled.
    let transcript = w.transcript_text(&s);
    let done = transcript
        .find("\"type\":\"bang-done\"")
        .expect("the command ended");
    let signal = transcript.find("\"type\":\"signal\"").expect("signalled");
    assert!(done < signal, "{transcript}");
}

/// `/clear` starts another conversation in the same harness process. The
/// roll follows the person there: it never resumes the conversation from
/// before the clear; while the new one has no transcript (nothing typed
/// since) it leaves the session alone and says why; once it has one, it
/// writes it into the record (keeping the old id), resumes and confirms it.
#[test]
fn after_clear_the_roll_resumes_the_conversation_the_person_is_in() {
    let w = world();
    let s = stale_session(&w, 1);
    rotate(&w);
    type_line(&w, &s, "/clear");
    wait_for(
        || !plan_row(&w, &s)["conversation_moved"].is_null(),
        "the plan sees the new conversation",
    );
    let row = plan_row(&w, &s);
    let moved = &row["conversation_moved"];
    assert_eq!(moved["from"], s.session_id.as_str(), "{row}");
    let new_id = moved["to"].as_str().unwrap().to_owned();
    assert_ne!(new_id, s.session_id);
    let text = stdout(&w.the_loop(&["plan"]));
    assert!(
        text.contains(&format!("conversation {} → {new_id}", s.session_id)),
        "{text}"
    );
    // sessions list names the conversation the person is in.
    let list = json(&w.the_loop(&["sessions", "list", "--json"]));
    let listed = list["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ref"] == s.reference.as_str())
        .unwrap()
        .clone();
    assert_eq!(listed["conversation_id"], new_id.as_str(), "{list}");
    assert_eq!(
        listed["recorded_conversation_id"],
        s.session_id.as_str(),
        "{list}"
    );

    // Nothing typed since the clear: no transcript to resume, so nothing is
    // touched, and the old conversation is not brought back.
    let out = w.the_loop(&["apply", "--auto-approve", "--json"]);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    let report = json(&out);
    let row = session_in(&report, &s.reference);
    assert_eq!(row["outcome"], "left_alone", "{report}");
    assert!(
        row["detail"].as_str().unwrap().contains(&new_id),
        "{report}"
    );
    assert!(!signalled(&w, &s));

    type_line(&w, &s, "something after the clear");
    wait_for(
        || plan_row(&w, &s)["left_alone"].is_null(),
        "the new conversation has a transcript",
    );
    let out = w.the_loop(&["apply", "--auto-approve", "--json"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let report = json(&out);
    let row = session_in(&report, &s.reference);
    assert_eq!(row["outcome"], "restarted", "{report}");
    assert_eq!(row["conversation"], "confirmed", "{report}");
    assert_eq!(row["harness_session_id"], new_id.as_str(), "{report}");
    let now = w.pane(&s.name).unwrap();
    let argv = cmdline(now.pid);
    assert!(
        argv.windows(2)
            .any(|p| p[0] == "--resume" && p[1] == new_id),
        "{argv:?}"
    );
    let record = w.record(&s.slug).unwrap();
    assert_eq!(record["harnessSessionId"], new_id.as_str(), "{record}");
    assert_eq!(
        record["previousHarnessSessionIds"],
        serde_json::json!([s.session_id]),
        "{record}"
    );
    // Followed once: the next plan is clean.
    assert!(plan_row(&w, &s)["conversation_moved"].is_null());
}

/// After an interrupt the hooks still say busy; `plan` and `sessions list`
/// look at the screen and say `interrupted`, and a short drain rolls it.
#[test]
fn an_interrupted_session_is_planned_and_listed_as_interrupted() {
    let w = world();
    let s = stale_session(&w, 1);
    rotate(&w);
    type_line(&w, &s, "/busy");
    wait_plan(&w, &s, "activity", "busy");
    type_line(&w, &s, "/interrupt");
    wait_plan(&w, &s, "activity", "interrupted");
    assert_eq!(plan_row(&w, &s)["apply_will"], "roll_now");
    let list = json(&w.the_loop(&["sessions", "list", "--json"]));
    let row = list["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ref"] == s.reference.as_str())
        .unwrap()
        .clone();
    assert_eq!(row["activity"], "interrupted", "{list}");
    let out = w.the_loop(&["apply", "--auto-approve", "--json", "--drain-timeout", "5s"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let report = json(&out);
    assert_eq!(
        session_in(&report, &s.reference)["outcome"],
        "restarted",
        "{report}"
    );
}

/// Held is visible: `plan`, `status` and `sessions list` say why a stale
/// session is held and since when.
#[test]
fn a_held_session_says_why_and_since_when() {
    let w = world();
    let s = stale_session(&w, 1);
    rotate(&w);
    type_line(&w, &s, "/busy");
    wait_plan(&w, &s, "activity", "busy");
    let row = plan_row(&w, &s);
    let since = row["busy_since"].as_str().expect("busy since").to_owned();
    assert!(since.starts_with("20") && since.ends_with('Z'), "{row}");
    let text = stdout(&w.the_loop(&["plan"]));
    assert!(
        text.contains(&format!("[busy since {since}: waits for its turn to end]")),
        "{text}"
    );
    let status = w.the_loop(&["status"]);
    let shown = stdout(&status);
    assert!(
        shown.contains(&format!(
            "{}: stale, held at its safe point (busy since {since})",
            s.reference
        )),
        "{shown}"
    );
    let status = json(&w.the_loop(&["status", "--json"]));
    let held = status["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ref"] == s.reference.as_str())
        .unwrap()["held"]
        .clone();
    assert_eq!(held, format!("busy since {since}").as_str(), "{status}");
    let list = json(&w.the_loop(&["sessions", "list", "--json"]));
    let row = list["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ref"] == s.reference.as_str())
        .unwrap()
        .clone();
    assert_eq!(row["busy_since"], since.as_str(), "{list}");
}
