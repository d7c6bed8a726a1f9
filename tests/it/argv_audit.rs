//! Argv audit (issue 6, point 2): a `tmux` wrapper on PATH records the argv
//! of every tmux invocation, the one that starts the server included, and
//! no argv, no `/proc/<pid>/cmdline` of the server or of any process in a
//! pane, holds a value: across spawn, apply, restart, delivery of
//! `env.deliver` names and the launcher.

use crate::support::*;

const FILE_TOKEN: &str = "file-arg4udit-$p'\"-11aa";
const FILE_DELIVERED: &str = "deliv-arg4udit-22bb";
const ROTATED_TOKEN: &str = "rot-arg4udit-\nsecond-line-33cc";
const ROTATED_DELIVERED: &str = "rot-deliv-arg4udit-44dd";
const CALLER_TOKEN: &str = "caller-arg4udit-55ee";
const CALLER_EXTRA: &str = "extra-arg4udit-$$-66ff";
const CALLER_DELIVERED: &str = "caller-deliv-arg4udit-77aa";
const CANARIES: &[&str] = &[
    FILE_TOKEN,
    FILE_DELIVERED,
    ROTATED_TOKEN,
    "rot-arg4udit-",
    "second-line-33cc",
    ROTATED_DELIVERED,
    CALLER_TOKEN,
    CALLER_EXTRA,
    CALLER_DELIVERED,
];
const CALLER_ENV: &[(&str, &str)] = &[
    ("SLACK_BOT_TOKEN", CALLER_TOKEN),
    ("EXTRA_CRED", CALLER_EXTRA),
    ("DELIVERED_TOKEN", CALLER_DELIVERED),
];

fn quoted(value: &str) -> String {
    format!(
        "\"{}\"",
        value
            .replace('\\', "\\\\")
            .replace('"', "\\\"")
            .replace('\n', "\\n")
    )
}

/// Every process a pane runs and everything below it: the harness the
/// launcher became, and its children.
fn pane_processes(w: &World) -> Vec<i32> {
    let mut pids = Vec::new();
    for pane in w.all_pane_pids() {
        pids.push(pane);
        pids.extend(descendants(pane));
    }
    pids
}

fn audit(w: &World, moment: &str) {
    let calls = w.tmux_invocations();
    assert!(!calls.is_empty(), "the wrapper recorded nothing ({moment})");
    for argv in &calls {
        assert_no_canary(
            argv.join("\u{1f}").as_bytes(),
            CANARIES,
            &format!("a tmux argv ({moment}): {:?}", argv.first()),
        );
    }
    // A roll's commands travel as lines to its control-mode client.
    assert_no_canary(
        &std::fs::read(w.tmux_control_log()).unwrap_or_default(),
        CANARIES,
        &format!("a line sent to a tmux control client ({moment})"),
    );
    let server = w.server_pid().expect("a server runs");
    assert_no_canary(
        &std::fs::read(format!("/proc/{server}/cmdline")).unwrap(),
        CANARIES,
        &format!("the tmux server's cmdline ({moment})"),
    );
    let pids = pane_processes(w);
    assert!(!pids.is_empty());
    for pid in pids {
        assert_no_canary(
            &std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default(),
            CANARIES,
            &format!("/proc/{pid}/cmdline ({moment})"),
        );
    }
}

#[test]
#[allow(
    clippy::print_stdout,
    reason = "the audit's coverage figures belong in the test log"
)]
fn no_argv_holds_a_value_across_spawn_apply_restart_delivery_and_the_launcher() {
    let w = World::new();
    w.write_config("  deliver: [DELIVERED_TOKEN]\n  credentials: [EXTRA_CRED]\n");
    w.write_env(&format!(
        "SLACK_BOT_TOKEN={}\nDELIVERED_TOKEN={FILE_DELIVERED}\n",
        quoted(FILE_TOKEN)
    ));
    w.install_tmux_wrapper();
    let cwd = w.work.join("a");
    std::fs::create_dir_all(&cwd).unwrap();

    // Spawn, with no server running: the-loop's new-session starts it.
    assert_eq!(w.server_pid(), None);
    std::fs::remove_file(w.tmux_argv_log()).unwrap();
    let out = w.the_loop_with(
        &[
            "sessions",
            "start",
            "github:octo/repo#1",
            "--cwd",
            cwd.to_str().unwrap(),
            "--json",
        ],
        CALLER_ENV,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let started: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let name = started["tmux_target"].as_str().unwrap().to_owned();
    wait_for(
        || {
            w.pane(&name)
                .is_some_and(|p| environ(p.pid).contains_key("THE_LOOP_WORK_ITEM"))
        },
        "the launcher exec'd the harness",
    );
    let server = w.server_pid().unwrap();
    let calls = w.tmux_invocations();
    let first = calls
        .iter()
        .find(|argv| argv[0] == "new-session")
        .expect("the spawn was recorded");
    assert_eq!(
        first[0], "new-session",
        "the-loop's spawn started the server"
    );
    assert_eq!(
        &cmdline(server)[1..],
        &first[..],
        "the server keeps the argv of the client that started it, and that client was recorded"
    );
    // The server is not handed the caller's credentials either: it would
    // keep them for its whole life, and copy them into every new pane.
    let server_env = environ(server);
    for name in ["SLACK_BOT_TOKEN", "EXTRA_CRED", "DELIVERED_TOKEN"] {
        assert!(
            !server_env.contains_key(name),
            "the tmux server started by the-loop holds {name}"
        );
    }
    let pane = w.pane(&name).unwrap();
    let env = environ(pane.pid);
    assert_eq!(
        env.get("DELIVERED_TOKEN").map(String::as_str),
        Some(FILE_DELIVERED),
        "delivered from the file by the launcher, not through an argv"
    );
    assert!(!env.contains_key("SLACK_BOT_TOKEN") && !env.contains_key("EXTRA_CRED"));
    audit(&w, "after spawn");

    // Rotation, then apply: respawn-pane runs the launcher.
    w.write_env(&format!(
        "SLACK_BOT_TOKEN={}\nDELIVERED_TOKEN={ROTATED_DELIVERED}\n",
        quoted(ROTATED_TOKEN)
    ));
    let out = w.the_loop_with(&["apply", "--auto-approve"], CALLER_ENV);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let respawned = w.pane(&name).unwrap();
    assert_ne!(respawned.pid, pane.pid);
    assert_eq!(
        environ(respawned.pid)
            .get("DELIVERED_TOKEN")
            .map(String::as_str),
        Some(ROTATED_DELIVERED)
    );
    let respawn = w
        .tmux_control_commands()
        .into_iter()
        .find(|argv| argv[0] == "respawn-pane")
        .expect("apply respawned through tmux");
    assert!(
        respawn.contains(&"exec".to_owned()) && respawn.contains(&"--resume".to_owned()),
        "the pane runs the launcher, resuming: {respawn:?}"
    );
    audit(&w, "after apply");

    // sessions restart, and a scrub, and a plan with the caller's values.
    for args in [
        &["sessions", "restart", "--all"][..],
        &["apply", "--auto-approve", "--scrub-tmux-env"][..],
        &["plan"][..],
        &["status"][..],
        &["sessions", "list"][..],
    ] {
        let out = w.the_loop_with(args, CALLER_ENV);
        assert!(out.status.code().is_some(), "{args:?}");
        assert_no_canary(&out.stdout, CANARIES, &format!("{args:?} stdout"));
        assert_no_canary(&out.stderr, CANARIES, &format!("{args:?} stderr"));
    }
    audit(&w, "after restart, scrub, plan, status and list");
    // Every command of each invocation (a `cmd ; cmd` sequence is several),
    // and every line a roll sent to its control-mode client.
    let kinds: Vec<String> = w
        .tmux_invocations()
        .into_iter()
        .flat_map(|argv| {
            let starts = std::iter::once(0).chain((1..argv.len()).filter(|&i| argv[i - 1] == ";"));
            starts.map(|i| argv[i].clone()).collect::<Vec<_>>()
        })
        .chain(
            w.tmux_control_commands()
                .into_iter()
                .map(|words| words[0].clone()),
        )
        .collect();
    println!(
        "argv audit: {} tmux commands and {} pane processes checked",
        kinds.len(),
        pane_processes(&w).len()
    );
    for kind in [
        "new-session",
        "respawn-pane",
        "list-panes",
        // tmux's own layers are read inside the pane listing's call; a
        // scrub still reads them in a call of its own.
        "show-environment",
        "set-option",
    ] {
        assert!(
            kinds.contains(&kind.to_owned()),
            "{kind} was exercised: {kinds:?}"
        );
    }
}
