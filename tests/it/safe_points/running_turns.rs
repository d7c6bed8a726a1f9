//! A running turn is never ended by a roll: held, deferred or `--now`, even when hooks miss it.

use super::*;
use std::time::{Duration, Instant};

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

#[test]
fn a_busy_session_is_not_interrupted_and_is_rolled_the_moment_its_turn_ends() {
    let (w, s) = drifted_in_a_turn();
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

    // The roll has planned and is holding the session: nothing was ended.
    let apply = start_roll(&w, "60s");
    holds_without_a_signal(&w, &s);
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
    let (w, s) = drifted_in_a_turn();
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
fn the_drain_shows_its_progress_on_a_terminal() {
    let (w, s) = drifted_in_a_turn();
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

/// Escape in the middle of a turn fires no hook: the hooks keep saying
/// busy. The drain looks at the held pane, sees no running turn twice, and
/// rolls it within the drain instead of deferring it for good.
#[test]
fn an_interrupted_turn_is_rolled_within_the_drain() {
    let (w, s) = drifted_in_a_turn();
    let old = w.pane(&s.name).unwrap();
    let apply = start_roll(&w, "20s");
    holds_without_a_signal(&w, &s);
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

/// After an interrupt the hooks still say busy; `plan` and `sessions list`
/// look at the screen and say `interrupted`, and a short drain rolls it.
#[test]
fn an_interrupted_session_is_planned_and_listed_as_interrupted() {
    let (w, s) = drifted_in_a_turn();
    type_line(&w, &s, "/interrupt");
    wait_plan(&w, &s, "activity", "interrupted");
    assert_eq!(plan_row(&w, &s)["apply_will"], "roll_now");
    let list = json(&w.the_loop(&["sessions", "list", "--json"]));
    let row = session_in(&list, &s.reference);
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
    let (w, s) = drifted_in_a_turn();
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
    let held = &session_in(&status, &s.reference)["held"];
    assert_eq!(held, format!("busy since {since}").as_str(), "{status}");
    let list = json(&w.the_loop(&["sessions", "list", "--json"]));
    let row = session_in(&list, &s.reference);
    assert_eq!(row["busy_since"], since.as_str(), "{list}");
}
