//! The roll sends a wave's tmux commands through shared tmux clients
//! (issue 15): one failed command in a batched wave must not hide the
//! others' answers. Each session keeps its own outcome, verification and
//! event.

use crate::support::*;
use crate::tmux_call_count::install_recording_tmux;

const RETIRED: &str = "xoxb-RETIRED-batch-canary-71c4";
const ROTATED: &str = "xoxb-ROTATED-batch-canary-0d2e";

/// A session renamed between the plan and its wave: its provenance check
/// fails in the middle of a batched sequence, and every other session of
/// the wave still rolls and verifies on its new process.
#[test]
fn a_session_gone_mid_wave_fails_alone_and_the_rest_of_the_wave_rolls() {
    let w = World::new();
    // A 2 s probe: the canary's wait is the window to kill a session in.
    w.write_raw_config(&format!(
        "state:\n  root: {}\nenv:\n  file: .env\nrouting:\n  tmux:\n    resumeProbeSeconds: 2\n    harnessKillGraceSeconds: 3\n",
        w.state.display()
    ));
    let sessions = w.rotated_fleet(6, RETIRED, ROTATED);
    let log = w.root().join("tmux-calls.log");
    install_recording_tmux(&w, &log);
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

    // The failed command shared its tmux client with other sessions'
    // commands, and the roll used fewer clients than commands.
    let calls = std::fs::read_to_string(&log).unwrap();
    // The last command sent for the gone session is the one that failed.
    let failed_in = calls
        .lines()
        .rfind(|l| l.contains("tl-batch-") && l.contains(&format!("={}", gone.name)))
        .expect("the gone session's commands were sent");
    assert!(
        rest.iter()
            .filter(|s| s.reference != gone.reference)
            .any(|s| [" ", ":"]
                .iter()
                .any(|end| failed_in.contains(&format!("={}{end}", s.name)))),
        "batched with the rest of its wave: {failed_in}"
    );
    let roll: Vec<&str> = calls.lines().filter(|l| l.contains("tl-batch-")).collect();
    let commands: usize = roll.iter().map(|l| l.matches("tl-batch-").count()).sum();
    assert!(
        roll.len() < commands,
        "{} tmux clients carried {commands} commands:\n{calls}",
        roll.len()
    );
    assert_no_canary(&out.stdout, &[RETIRED, ROTATED], "stdout");
    assert_no_canary(&out.stderr, &[RETIRED, ROTATED], "stderr");
}
