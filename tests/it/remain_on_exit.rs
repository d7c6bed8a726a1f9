//! remain-on-exit is what keeps a session when its harness is ended: the
//! roll and `sessions stop` must know it holds for the harness's own pane,
//! where it acts, before they signal. tmux 3 keeps the option per pane
//! (`set-option -p`), and a pane's own value wins over its window's, so
//! setting it on the window is not enough.

use crate::support::*;

const RETIRED: &str = "xoxb-RETIRED-canary-70e1";
const ROTATED: &str = "xoxb-ROTATED-canary-2a9f";

/// Turns remain-on-exit off on the session's harness pane itself.
fn pane_level_off(w: &World, session: &str) -> String {
    let pane = w.pane(session).unwrap().id;
    w.tmux_ok(&["set-option", "-p", "-t", &pane, "remain-on-exit", "off"]);
    pane
}

/// The pane's own remain-on-exit as tmux resolves it.
fn effective(w: &World, pane: &str) -> String {
    w.tmux_ok(&["show-options", "-pvA", "-t", pane, "remain-on-exit"])
        .trim()
        .to_owned()
}

#[test]
fn a_roll_keeps_a_session_whose_pane_turned_remain_on_exit_off() {
    let w = World::new();
    let sessions = w.rotated_fleet(2, RETIRED, ROTATED);
    let before: Vec<Pane> = sessions.iter().map(|s| w.pane(&s.name).unwrap()).collect();
    let pane = pane_level_off(&w, &sessions[1].name);
    assert_eq!(effective(&w, &pane), "off");

    let out = w.the_loop(&["apply", "--auto-approve", "--json"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let report = json(&out);
    for (s, old) in sessions.iter().zip(&before) {
        let rolled = session_in(&report, &s.reference);
        assert_eq!(rolled["outcome"], "restarted", "{rolled}");
        let now = w.pane(&s.name).expect("the session outlived its harness");
        assert_eq!(now.id, old.id, "respawned in place");
        assert_ne!(now.pid, old.pid, "a new process");
        assert_eq!(rolled["new_pid"], now.pid, "verified on the new process");
        let env = environ(now.pid);
        assert_ne!(
            env.get("SLACK_BOT_TOKEN").map(String::as_str),
            Some(RETIRED)
        );
        assert!(
            cmdline(now.pid)
                .windows(2)
                .any(|a| a[0] == "--resume" && a[1] == s.session_id),
            "the same conversation resumed"
        );
    }
    assert_eq!(effective(&w, &pane), "on", "set where it acts");
}

#[test]
fn stop_keeps_a_session_whose_pane_turned_remain_on_exit_off() {
    let w = World::new();
    w.write_env("EXAMPLE_SETTING=not-secret\n");
    let s = w.started_session("github:octo/repo#27", "github-octo-repo-27");
    let pane = pane_level_off(&w, &s.name);

    let out = w.the_loop(&["sessions", "stop", &s.reference, "--json"]);
    assert!(out.status.success(), "{}", explain(&out));
    assert_eq!(json(&out)["close"]["tmux"], "retained");
    let kept = w.pane(&s.name).expect("the pane outlived its harness");
    assert_eq!(kept.id, pane);
    assert!(kept.dead, "its record, not a live TUI");
}
