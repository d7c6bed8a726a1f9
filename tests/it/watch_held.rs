//! `watch --apply` and the sessions it holds for their safe point, on a real
//! tmux with the stand-in harness: what releases a held session without a
//! hook (an Escape mid-turn, a detach, the end of a `!` command) is seen by
//! watch's own re-look, and the session is rolled within five seconds of
//! it; the held lines say why each is held; nothing held, no re-look.

use crate::support::watching::{Watch, RELOOK};
use crate::support::*;
use std::time::{Duration, Instant};

/// From the event to the new harness in the pane: the promise.
const WITHIN: Duration = Duration::from_secs(5);

/// How long a line of watch's is waited for: a stand-in's roll, generous.
const PATIENCE: Duration = Duration::from_secs(30);

/// A world whose started session holds `EXTRA` from the env file, idle at
/// its prompt (its hooks said so), with watch running on the clean fleet.
fn watched() -> (World, LegacySession, Watch) {
    let w = World::new();
    w.write_config("  deliver: [EXTRA]\n");
    w.write_env("EXTRA=one\n");
    let s = w.started_session("github:octo/repo#1", "github-octo-repo-1");
    wait_for(|| plan_row(&w, &s)["activity"] == "idle", "hooks say idle");
    let watch = Watch::start(&w, PATIENCE);
    (w, s, watch)
}

fn plan_row(w: &World, s: &LegacySession) -> serde_json::Value {
    session_in(&json(&w.the_loop(&["plan", "--json"])), &s.reference).clone()
}

fn type_line(w: &World, s: &LegacySession, text: &str) {
    w.tmux_ok(&["send-keys", "-t", &format!("={}:", s.name), "-l", text]);
    w.tmux_ok(&["send-keys", "-t", &format!("={}:", s.name), "Enter"]);
}

fn signalled(w: &World, s: &LegacySession) -> bool {
    w.transcript_text(s).contains("\"type\":\"signal\"")
}

/// Held across more than one re-look: never signalled, the same process,
/// its held line said once (a re-look says nothing new).
fn stays_held(w: &World, s: &LegacySession, watch: &Watch, old: i32, line: &str) {
    let looks = watch.count(RELOOK);
    std::thread::sleep(Duration::from_millis(4500));
    assert!(!signalled(w, s), "a held session was ended");
    assert_eq!(w.pane(&s.name).unwrap().pid, old);
    assert!(
        watch.count(RELOOK) > looks,
        "watch looks again while it holds:\n{}",
        watch.text()
    );
    assert_eq!(watch.count(line), 1, "said once:\n{}", watch.text());
}

/// Polls until the pane holds another process; returns it and when it was
/// first seen. A poll is one `tmux list-panes` (milliseconds), so the time
/// is late by at most one poll: against the 5 s bound, that is noise.
fn new_pid(w: &World, s: &LegacySession, old: i32) -> (i32, Instant) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(pane) = w.pane(&s.name).filter(|p| p.pid != old) {
            return (pane.pid, Instant::now());
        }
        assert!(
            Instant::now() < deadline,
            "{} was never rolled",
            s.reference
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The rolled session: once the roll's summary says so (the launcher has
/// made itself the harness by then), a new process on the rotated value,
/// resuming the conversation.
fn rolled_onto_the_rotation(w: &World, s: &LegacySession, watch: &Watch, pid: i32) {
    watch.wait_for("watch roll finished: 1 respawned, 0 failed");
    assert_eq!(w.pane(&s.name).map(|p| p.pid), Some(pid), "one respawn");
    assert_eq!(
        environ(pid).get("EXTRA").map(String::as_str),
        Some("two"),
        "the new process holds the rotated value"
    );
    assert!(
        cmdline(pid)
            .windows(2)
            .any(|a| a[0] == "--resume" && a[1] == s.session_id),
        "the conversation was resumed"
    );
}

/// Nothing held: the re-looks stop (an idle watch has no such wake-up).
fn relooks_stop(watch: &Watch) {
    watch.wait_for("no drift: 1 running session(s) hold the desired environment");
    // The clean fleet is said twice: at the start, and after the roll.
    let deadline = Instant::now() + Duration::from_secs(30);
    while watch.count("no drift: 1 running session(s)") < 2 {
        assert!(Instant::now() < deadline, "{}", watch.text());
        std::thread::sleep(Duration::from_millis(20));
    }
    let looks = watch.count(RELOOK);
    std::thread::sleep(Duration::from_millis(4500));
    assert_eq!(
        watch.count(RELOOK),
        looks,
        "nothing is held, yet watch still looks:\n{}",
        watch.text()
    );
}

/// Escape mid-turn fires no hook: the hooks say busy for good. Only the
/// screen shows the turn over, and watch's re-look rolls it.
#[test]
fn an_interrupted_turn_is_rolled_within_five_seconds_of_the_escape() {
    let (w, s, watch) = watched();
    type_line(&w, &s, "/busy");
    wait_for(|| plan_row(&w, &s)["activity"] == "busy", "busy");
    let old = w.pane(&s.name).unwrap().pid;
    w.write_env("EXTRA=two\n");
    let line = "(its turn is running); rolled the moment its turn ends";
    watch.wait_for(line);
    let said = watch.text();
    let said = said.lines().find(|l| l.contains(line)).unwrap();
    assert!(
        said.contains(&format!("{}: busy since 20", s.reference)),
        "{said}"
    );
    stays_held(&w, &s, &watch, old, line);

    // Taken before the keys are sent: the interval measured is, if
    // anything, longer than the one since the harness drew its footer.
    let escaped = Instant::now();
    type_line(&w, &s, "/interrupt");
    let (pid, seen) = new_pid(&w, &s, old);
    let took = seen.duration_since(escaped);
    assert!(
        took < WITHIN,
        "rolled {took:?} after the interrupt:\n{}",
        watch.text()
    );
    rolled_onto_the_rotation(&w, &s, &watch, pid);
    relooks_stop(&watch);
}

/// A detach fires no hook either: the re-look sees no client, and rolls it.
#[test]
fn an_attached_session_is_rolled_within_five_seconds_of_the_detach() {
    let (w, s, watch) = watched();
    let _client = w.the_loop_in_pty(&["sessions", "attach", &s.reference]);
    wait_for(|| !w.clients().is_empty(), "a real client attached");
    wait_for(|| plan_row(&w, &s)["attached"] == 1, "the plan sees it");
    let old = w.pane(&s.name).unwrap().pid;
    w.write_env("EXTRA=two\n");
    let line = format!(
        "{}: 1 tmux client(s) attached; rolled once no client is attached",
        s.reference
    );
    watch.wait_for(&line);
    stays_held(&w, &s, &watch, old, &line);

    let detached = Instant::now();
    w.tmux_ok(&["detach-client", "-s", &format!("={}", s.name)]);
    let (pid, seen) = new_pid(&w, &s, old);
    let took = seen.duration_since(detached);
    assert!(
        took < WITHIN,
        "rolled {took:?} after the detach:\n{}",
        watch.text()
    );
    wait_for(|| w.clients().is_empty(), "the client is gone");
    rolled_onto_the_rotation(&w, &s, &watch, pid);
    relooks_stop(&watch);
}

/// A `!` command fires no `UserPromptSubmit`: the hooks say idle while it
/// runs, the screen holds it. It runs to its end, and is rolled after.
#[test]
fn a_bang_command_is_not_ended_and_is_rolled_within_five_seconds_of_its_end() {
    let (w, s, watch) = watched();
    let old = w.pane(&s.name).unwrap().pid;
    type_line(&w, &s, "/bang 6");
    wait_for(
        || {
            let screen = stdout(&w.tmux(&["capture-pane", "-p", "-t", &format!("={}:", s.name)]));
            screen.contains("esc to interrupt")
        },
        "the command runs",
    );
    w.write_env("EXTRA=two\n");
    let line = format!(
        "{}: busy: its screen shows a running turn or shell command; rolled once its screen clears",
        s.reference
    );
    watch.wait_for(&line);
    assert!(!signalled(&w, &s), "a running command was ended");
    assert_eq!(w.pane(&s.name).unwrap().pid, old);

    // The last poll that did not see the command's end: no later than the
    // end itself, so the interval measured from it is an upper bound.
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut before_end = Instant::now();
    loop {
        let looked = Instant::now();
        if w.transcript_text(&s).contains("\"type\":\"bang-done\"") {
            break;
        }
        before_end = looked;
        assert!(Instant::now() < deadline, "the command never ended");
        assert_eq!(
            w.pane(&s.name).map(|p| p.pid),
            Some(old),
            "rolled mid-command"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let (pid, seen) = new_pid(&w, &s, old);
    let took = seen.duration_since(before_end);
    assert!(
        took < WITHIN,
        "rolled {took:?} after the command ended:\n{}",
        watch.text()
    );
    let transcript = w.transcript_text(&s);
    let done = transcript.find("\"type\":\"bang-done\"").unwrap();
    let signal = transcript.find("\"type\":\"signal\"").expect("signalled");
    assert!(done < signal, "signalled mid-command: {transcript}");
    rolled_onto_the_rotation(&w, &s, &watch, pid);
    relooks_stop(&watch);
}
