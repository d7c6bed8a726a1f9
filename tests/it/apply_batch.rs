//! The roll sends its tmux commands through one control-mode client
//! (`tmux -C`) held for the whole roll (issue 15): one failed command in the
//! middle of a wave must not hide the others' answers, each session keeps
//! its own outcome, verification and event, and the client's own session
//! never outlives the roll, even when the-loop is killed.

use crate::support::*;

const RETIRED: &str = "xoxb-RETIRED-batch-canary-71c4";
const ROTATED: &str = "xoxb-ROTATED-batch-canary-0d2e";

/// `n` sessions born on the retired token, then the rotation; probes wait
/// `probe_seconds`, long enough to act while the canary waits.
fn rotated_world(n: usize, probe_seconds: &str) -> (World, Vec<LegacySession>) {
    World::rotated_with_probe(n, probe_seconds, RETIRED, ROTATED)
}

/// A session renamed between the plan and its wave: its provenance check
/// fails in the middle of a batched sequence, and every other session of
/// the wave still rolls and verifies on its new process.
#[test]
fn a_session_gone_mid_wave_fails_alone_and_the_rest_of_the_wave_rolls() {
    // A 2 s probe: the canary's wait is the window to kill a session in.
    let (w, sessions) = rotated_world(6, "2");
    w.install_tmux_wrapper();
    let child = w
        .the_loop_command(&["apply", "--auto-approve", "--json", "--parallelism", "6"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The canary is the first harness ended; the plan is made by then.
    let mut canary = String::new();
    wait_for(
        || {
            let ended = w.events_named("session.harness_terminated");
            if let Some(first) = ended.first() {
                canary = first["ref"].as_str().unwrap_or_default().to_owned();
            }
            !canary.is_empty()
        },
        "the canary's harness is ended",
    );
    let rest: Vec<&LegacySession> = sessions.iter().filter(|s| s.reference != canary).collect();
    let gone = rest[rest.len() / 2];
    // Renamed away, its harness still running: the roll finds the process
    // alive and tmux's answer for the name is the first to fail.
    let untouched = w.pane(&gone.name).unwrap().pid;
    let renamed = format!("{}-renamed", gone.name);
    w.tmux_ok(&["rename-session", "-t", &format!("={}", gone.name), &renamed]);
    let out = child.wait_with_output().unwrap();
    let report = json(&out);

    let left = session_in(&report, &gone.reference);
    assert_eq!(left["outcome"], "left_alone", "{left}");
    // tmux 3.3 still finds the renamed session's pane for `list-panes -t
    // =old` (the pane is the same, so provenance holds) and refuses the
    // window option; another tmux may refuse the listing already.
    let detail = left["detail"].as_str().unwrap();
    assert!(
        detail.starts_with("cannot set remain-on-exit (tmux refused: no such window")
            || detail == "the pane changed since it was planned; not touched",
        "{left}"
    );
    assert_eq!(w.pane(&renamed).unwrap().pid, untouched, "never touched");
    let respawned = w.events_named("session.respawned");
    for s in rest.iter().filter(|s| s.reference != gone.reference) {
        let rolled = session_in(&report, &s.reference);
        assert_eq!(rolled["outcome"], "restarted", "{rolled}");
        let pid = w.pane(&s.name).unwrap().pid;
        assert_eq!(rolled["new_pid"], pid, "verified on its own new process");
        let env = environ(pid);
        assert_eq!(env.get("SLACK_BOT_TOKEN").map(String::as_str), None);
        let event = respawned
            .iter()
            .find(|e| e["ref"] == s.reference.as_str())
            .unwrap_or_else(|| panic!("no session.respawned for {}", s.reference));
        assert_eq!(event["verification"], "verified", "{event}");
        assert_eq!(event["new_pid"], pid, "{event}");
    }
    assert!(
        !respawned
            .iter()
            .any(|e| e["ref"] == gone.reference.as_str()),
        "the gone session has no respawn event"
    );

    // One tmux client carried the whole roll: every session's commands,
    // the failed one among them, went as lines to the control client.
    let calls = w.tmux_invocations();
    let sent = std::fs::read_to_string(w.tmux_control_log()).unwrap();
    let clients = calls.iter().filter(|argv| argv[0] == "-C").count();
    assert_eq!(clients, 1, "one control client: {calls:?}");
    for acting in ["respawn-pane", "set-option", "display-message"] {
        assert!(
            !calls.iter().any(|argv| argv.contains(&acting.to_owned())),
            "no {acting} in a client of its own: {calls:?}"
        );
    }
    assert!(
        !calls
            .iter()
            .any(|argv| argv[0] == "list-panes" && argv.contains(&"-s".to_owned())),
        "no provenance listing in a client of its own: {calls:?}"
    );
    for s in &sessions {
        assert!(
            sent.contains(&format!("'={}'", s.name)),
            "{} was asked through the control client:\n{sent}",
            s.name
        );
    }
    let respawns = sent
        .lines()
        .filter(|l| l.starts_with("'respawn-pane'"))
        .count();
    assert!(respawns >= sessions.len() - 1, "{sent}");
    assert!(
        no_control_session_left(&w),
        "the roll's own session is gone"
    );
    assert_no_canary(&out.stdout, &[RETIRED, ROTATED], "stdout");
    assert_no_canary(&out.stderr, &[RETIRED, ROTATED], "stderr");
}

fn control_sessions(w: &World) -> Vec<String> {
    w.tmux_ok(&["list-sessions", "-F", "#{session_name} #{session_attached}"])
        .lines()
        .filter(|l| l.starts_with("the-loop-roll-"))
        .map(str::to_owned)
        .collect()
}

fn no_control_session_left(w: &World) -> bool {
    control_sessions(w).is_empty()
}

/// The control client attaches to a session of its own, so no managed
/// session counts it as an attached client (the safe-point rules would
/// leave it alone); and that session goes with the roll, even when the
/// roll is killed outright mid-wave, while the tmux server and every
/// managed session live on. (The first version set `destroy-unattached` on
/// it, and tmux 3.3a's server segfaulted about once in ten kills here.)
#[test]
fn the_control_clients_session_is_its_own_and_dies_with_a_killed_roll() {
    let (w, sessions) = rotated_world(3, "3");
    let mut child = w
        .the_loop_command(&["apply", "--auto-approve", "--json", "--parallelism", "1"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    wait_for(
        || !w.events_named("session.harness_terminated").is_empty(),
        "the canary's harness is ended",
    );
    let control = control_sessions(&w);
    assert_eq!(control.len(), 1, "{control:?}");
    assert!(
        control[0].starts_with(&format!("the-loop-roll-{} ", child.id())),
        "named for the roll's process: {control:?}"
    );
    let listed = w.tmux_ok(&["list-sessions", "-F", "#{session_name} #{session_attached}"]);
    for s in &sessions {
        assert!(
            listed.lines().any(|l| l == format!("{} 0", s.name)),
            "{} has no client attached:\n{listed}",
            s.name
        );
    }
    // No session of the operator's is made to die with a client.
    for s in &sessions {
        let option = w.tmux_ok(&["show-options", "-t", &s.name, "destroy-unattached"]);
        assert!(!option.contains("on"), "{}: {option}", s.name);
    }
    // Killed while the canary waits for its probe: no Drop, no cleanup code.
    child.kill().unwrap();
    child.wait().unwrap();
    wait_for(
        || no_control_session_left(&w),
        "the control session went with its client",
    );
    let left = w.tmux_ok(&["list-sessions", "-F", "#{session_name}"]);
    for s in &sessions {
        assert!(
            left.lines().any(|l| l == s.name),
            "{} lives on:\n{left}",
            s.name
        );
    }
}
