//! Issue 15: while tmux answers the plan's one call, the plan reads every
//! tmux pane's process ahead (src/observed/observation.rs), finding them as
//! the children of the processes the kernel names `tmux: server`. On a
//! real tmux and a real /proc: the server is found, its panes are among
//! its children and are read in the table's own pass, and what is read
//! ahead is what the plan reports. The listing's call goes before the
//! records are read; with no server to answer it, that is still "no
//! server", and none is started.

use crate::support::*;
use the_loop::observed::detached::{process_table, process_table_visiting};

const ROTATED: &str = "xoxb-ROTATED-r3ad-4h3ad";

#[test]
fn the_real_tmux_server_is_found_and_each_pane_is_its_child() {
    let w = World::new();
    w.write_config("");
    let s = w.legacy_session("github:octo/ahead#1", "github-octo-ahead-1");
    let server = w.tmux_server_pid();
    let pane = w.pane(&s.name).expect("the session has a pane").pid;
    let table = process_table();
    assert!(
        table.tmux_servers.contains(&server),
        "tmux server {server} not among {:?}",
        table.tmux_servers
    );
    assert_eq!(table.parents.get(&pane), Some(&server));
    assert!(table.tmux_children().contains(&pane));
    let me = std::process::id() as i32;
    assert!(!table.tmux_children().contains(&me));

    // The same pass hands each tmux child's handle over, with the stat it
    // read through it: this pane among them, as procfs reads it.
    let mut visited = std::collections::BTreeMap::new();
    let visiting = process_table_visiting(|pid, process, stat| {
        visited.insert(pid, (process.cmdline().ok(), stat));
        true
    });
    assert_eq!(visiting.parents.get(&pane), Some(&server));
    let (argv, stat) = visited.get(&pane).expect("the pane was visited").clone();
    let oracle = procfs::process::Process::new(pane).unwrap();
    assert_eq!(argv, oracle.cmdline().ok());
    let stat = stat.expect("its stat was read");
    assert_eq!(
        (stat.parent, stat.start),
        (server, oracle.stat().unwrap().starttime)
    );
    assert!(visited
        .keys()
        .all(|pid| visiting.tmux_children().contains(pid)));
    assert!(!visited.contains_key(&server), "a server is no pane");

    // Visits stop when the visitor says so; the table is still whole.
    let mut visits = 0;
    let stopped = process_table_visiting(|_, _, _| {
        visits += 1;
        false
    });
    assert_eq!(visits, 1, "one visit, then none");
    assert_eq!(stopped.parents.get(&pane), Some(&server));
}

/// Every pane of every server is read ahead, this world's and the others'
/// (tests run side by side): the plan still reports exactly its own
/// sessions, each with what its own process holds.
#[test]
fn a_plan_reports_its_own_sessions_from_what_was_read_ahead() {
    let w = World::new();
    w.write_config("");
    w.write_env(&format!("SLACK_BOT_TOKEN={ROTATED}\n"));
    let drifted = w.legacy_session("github:octo/ahead#2", "github-octo-ahead-2");
    let other = World::new();
    other.write_config("");
    let stranger = other.legacy_session("github:octo/ahead#3", "github-octo-ahead-3");
    let out = ok(w.the_loop(&["plan", "--json"]));
    let doc = json(&out);
    let sessions = doc["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 1, "{doc}");
    let session = session_in(&doc, &drifted.reference);
    let pid = w.pane(&drifted.name).unwrap().pid;
    assert_eq!(session["pane_pid"], pid, "{session}");
    // Read, not unverified: a legacy launch holds none of the identifiers.
    assert_eq!(session["observation"], "read", "{session}");
    assert_eq!(session["action"], "respawn", "{session}");
    let unheld: Vec<&str> = session["changes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["have"].is_null())
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert!(unheld.contains(&"THE_LOOP_WORK_ITEM"), "{session}");
    assert!(
        !stdout(&out).contains(&stranger.reference),
        "another server's session was reported"
    );
    assert_no_canary(&out.stdout, &[ROTATED], "plan --json");
}

/// The listing's call goes before the records are read; with no server
/// it is told so, every record's session reads absent, none is started, and
/// the version check (no server reported one) falls back to `tmux -V`.
#[test]
fn a_listing_sent_before_the_records_meets_no_server_and_starts_none() {
    let w = World::new();
    w.write_env(&format!("SLACK_BOT_TOKEN={ROTATED}\n"));
    w.install_tmux_wrapper();
    for i in 1..=240 {
        let s = LegacySession {
            reference: format!("github:octo/early#{i}"),
            slug: format!("github-octo-early-{i}"),
            name: format!("loop-github-octo-early-{i}"),
            session_id: format!("0000-github-octo-early-{i}"),
            cwd: w.work.join(format!("github-octo-early-{i}")),
        };
        w.write_record(&s, "active");
    }
    let out = w.the_loop(&["plan", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", explain(&out));
    let p = json(&out);
    assert_eq!(p["tmux_unanswered"], serde_json::Value::Null);
    assert_eq!(p["residue"]["state"], "no_server");
    let sessions = p["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 240);
    assert!(sessions.iter().all(|s| s["probe"] == "absent"), "{p}");
    let calls = w.tmux_invocations();
    let first: Vec<&str> = calls.iter().map(|argv| argv[0].as_str()).collect();
    assert_eq!(first, ["list-panes", "-V"], "{calls:?}");
    assert!(
        !calls[0].iter().any(|word| word.starts_with("-st=")),
        "the listing's call names no session: {calls:?}"
    );
    assert!(
        !w.tmux(&["list-sessions"]).status.success(),
        "no tmux server was started"
    );
}
