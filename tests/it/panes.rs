//! Issue 11, class 8: an operator splits the harness's window, and the new
//! pane (a shell) is listed first. Every verb that targets a pane must find
//! the harness by what runs in it, and refuse when it cannot tell.

use crate::support::*;
use std::path::Path;
use std::time::Duration;

fn world() -> World {
    let w = World::new();
    w.write_env("EXAMPLE_SETTING=not-secret\n");
    w
}

/// (pane id, pid) of every pane of `session`, in tmux's listing order.
fn panes(w: &World, session: &str) -> Vec<(String, i32)> {
    w.tmux_ok(&[
        "list-panes",
        "-s",
        "-t",
        &format!("={session}"),
        "-F",
        "#{pane_id}\t#{pane_pid}",
    ])
    .lines()
    .map(|l| {
        let (id, pid) = l.split_once('\t').unwrap();
        (id.to_owned(), pid.parse().unwrap())
    })
    .collect()
}

/// Splits `session`'s window with a new pane placed (and listed) before the
/// harness's, running `command` or, with none, tmux's default shell.
fn split_before(w: &World, session: &str, command: Option<&str>) -> (String, i32) {
    w.tmux_ok(&["set-option", "-g", "default-shell", "/bin/sh"]);
    let target = format!("={session}:");
    let mut args = vec!["split-window", "-b", "-d", "-t", &target];
    args.extend(command);
    w.tmux_ok(&args);
    let listed = panes(w, session);
    assert_eq!(listed.len(), 2);
    listed[0].clone()
}

/// A command that, typed into a shell, leaves `marker` behind.
fn marking(marker: &Path) -> String {
    format!("touch {}", marker.display())
}

/// The shell really runs what is typed into it, so a marker that stays
/// absent proves the text never reached it.
fn assert_shell_would_have_run_it(w: &World, shell_pane: &str, marker: &Path) {
    assert!(!marker.exists(), "the shell ran the delivered text");
    w.tmux_ok(&["send-keys", "-t", shell_pane, &marking(marker), "Enter"]);
    wait_for(|| marker.exists(), "the shell runs what is typed into it");
}

/// `sessions deliver --json` of `text` under delivery id `id`.
fn deliver(w: &World, reference: &str, text: &str, id: &str) -> std::process::Output {
    w.the_loop(&[
        "sessions",
        "deliver",
        reference,
        "--message",
        text,
        "--delivery-id",
        id,
        "--json",
    ])
}

#[test]
fn a_delivery_after_a_split_reaches_the_harness_not_the_shell_listed_first() {
    let w = world();
    let s = w.started_session("github:octo/repo#81", "github-octo-repo-81");
    let (harness_pane, _) = panes(&w, &s.name)[0].clone();
    let (shell_pane, _) = split_before(&w, &s.name, None);
    assert_ne!(shell_pane, harness_pane, "the shell is listed first");
    let marker = w.work.join("pasted-into-the-shell");

    let text = marking(&marker);
    let out = deliver(&w, &s.reference, &text, "split-1");
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    assert_eq!(json(&out)["outcome"], "delivered");
    wait_for(
        || w.inputs(&s).iter().any(|i| i.contains(&text)),
        "the harness read the delivery",
    );
    std::thread::sleep(Duration::from_millis(300));
    assert_shell_would_have_run_it(&w, &shell_pane, &marker);
}

#[test]
fn stop_after_a_split_ends_only_the_harness_and_names_its_pane() {
    let w = world();
    // A grace no loaded machine outlasts: this test is about SIGTERM.
    w.write_raw_config(&format!(
        "state:\n  root: {}\nenv:\n  file: .env\nrouting:\n  tmux:\n    resumeProbeSeconds: 0.5\n    harnessKillGraceSeconds: 30\n",
        w.state.display()
    ));
    let s = w.started_session("github:octo/repo#82", "github-octo-repo-82");
    let (harness_pane, harness_pid) = panes(&w, &s.name)[0].clone();
    let (_, shell_pid) = split_before(&w, &s.name, None);

    let out = w.the_loop(&["sessions", "stop", &s.reference, "--json"]);
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    let report = json(&out);
    let ended = report["close"]["harness"].as_array().unwrap();
    assert_eq!(ended.len(), 1, "{report}");
    assert_eq!(ended[0]["pane_id"], harness_pane.as_str());
    assert_eq!(ended[0]["pid"], harness_pid);
    // Said in full when it fails: a CI run once saw "killed" after the
    // 30 s grace, on a machine loaded by a real CLI beside it.
    assert_eq!(
        ended[0]["ending"],
        "terminated",
        "{report}\nthe stand-in's transcript:\n{}",
        w.transcript_text(&s)
    );
    assert!(
        w.transcript_text(&s).contains("\"signal\":\"TERM\""),
        "{report}\nthe stand-in's transcript:\n{}",
        w.transcript_text(&s)
    );
    assert!(alive(shell_pid), "the operator's shell was not signalled");
}

#[test]
fn apply_after_a_split_respawns_the_harness_pane_and_leaves_the_shell() {
    let w = World::new();
    let s = w.rotated_fleet(1, "xoxb-RETIRED-panes", "xoxb-ROTATED-panes")[0].clone();
    let (harness_pane, harness_pid) = panes(&w, &s.name)[0].clone();
    let (shell_pane, shell_pid) = split_before(&w, &s.name, None);

    let out = w.the_loop(&["apply", "--auto-approve", "--json"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let now = panes(&w, &s.name);
    assert_eq!(now[0], (shell_pane, shell_pid), "the shell is untouched");
    assert_eq!(now[1].0, harness_pane, "respawned in place");
    assert_ne!(now[1].1, harness_pid, "a new harness process");
    assert!(
        cmdline(now[1].1)
            .windows(2)
            .any(|a| a[0] == "--resume" && a[1] == s.session_id),
        "the harness pane resumed its conversation"
    );
    assert!(!environ(now[1].1).contains_key("SLACK_BOT_TOKEN"));
}

#[test]
fn a_session_whose_harness_pane_cannot_be_told_apart_is_refused() {
    let w = world();
    // An older the-loop started the harness straight from tmux; the
    // operator's split runs a command too, so neither pane runs the
    // launcher and nothing tells them apart.
    let s = w.legacy_session("github:octo/repo#83", "github-octo-repo-83");
    let (harness_pane, harness_pid) = panes(&w, &s.name)[0].clone();
    let (shell_pane, shell_pid) = split_before(&w, &s.name, Some("/bin/sh"));
    let marker = w.work.join("pasted-into-the-shell");

    let text = marking(&marker);
    let out = deliver(&w, &s.reference, &text, "unclear-1");
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    let report = json(&out);
    assert_eq!(report["outcome"], "failed");
    assert!(
        report["reason"]
            .as_str()
            .unwrap()
            .contains("can be taken for the harness"),
        "{report}"
    );
    let plan = json(&w.the_loop(&["plan", "--json"]));
    let reason = plan["sessions"][0]["reason"].as_str().unwrap().to_owned();
    assert!(reason.contains("no pane can be taken"), "{reason}");

    let out = w.the_loop(&["sessions", "stop", &s.reference, "--json"]);
    let report = json(&out);
    assert_eq!(report["close"]["harness"].as_array().unwrap().len(), 0);
    assert!(alive(harness_pid) && alive(shell_pid), "nothing signalled");
    assert_eq!(panes(&w, &s.name)[1], (harness_pane, harness_pid));
    assert!(
        w.inputs(&s).is_empty(),
        "nothing pasted into the harness either"
    );
    assert_shell_would_have_run_it(&w, &shell_pane, &marker);
}

/// The listing asks no window or pane index (each field costs tmux time per
/// pane): it relies on `list-panes -a` walking each session's windows and
/// their panes in index order, even after panes are put before others.
#[test]
fn tmux_lists_each_sessions_panes_in_window_then_pane_order() {
    let w = world();
    w.tmux_ok(&["new-session", "-d", "-s", "loop-order", "sleep", "100000"]);
    w.tmux_ok(&["new-window", "-d", "-t", "=loop-order:5", "sleep", "100000"]);
    w.tmux_ok(&["new-window", "-d", "-t", "=loop-order:2", "sleep", "100000"]);
    for target in ["=loop-order:5.0", "=loop-order:0.0", "=loop-order:5.0"] {
        w.tmux_ok(&["split-window", "-d", "-b", "-t", target, "sleep", "100000"]);
    }
    w.tmux_ok(&[
        "split-window",
        "-d",
        "-t",
        "=loop-order:2.0",
        "sleep",
        "100000",
    ]);
    let listed: Vec<(u32, u32)> = w
        .tmux_ok(&[
            "list-panes",
            "-a",
            "-F",
            "#{session_name} #{window_index} #{pane_index}",
        ])
        .lines()
        .filter_map(|line| line.strip_prefix("loop-order "))
        .map(|rest| {
            let (window, pane) = rest.split_once(' ').unwrap();
            (window.parse().unwrap(), pane.parse().unwrap())
        })
        .collect();
    let mut sorted = listed.clone();
    sorted.sort();
    assert_eq!(listed.len(), 7, "{listed:?}");
    assert_eq!(listed, sorted);
}
