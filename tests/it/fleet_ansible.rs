//! `examples/ansible/fleet.yml` run by a real `ansible-playbook` against two
//! inventory "hosts" on this machine (`ansible_connection=local`), each with
//! its own config, state root, HOME and tmux server: the plan play fails
//! with a table of drifted hosts and sessions and touches nothing; the apply
//! play rolls host by host and stops at the first host that fails.
//!
//! ansible-playbook comes from $THE_LOOP_ANSIBLE_PLAYBOOK, else the
//! virtualenv `.ci/run` creates (`.ci/venv/bin/ansible-playbook`), else PATH.
//! When none is found the tests say SKIP loudly and pass, unless
//! THE_LOOP_REQUIRE_TOOLS is set (CI sets it).

use crate::support::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const RETIRED: &str = "xoxb-RETIRED-canary-f1ee";
const ROTATED: &str = "xoxb-ROTATED-canary-f1ee";
const CANARIES: &[&str] = &[RETIRED, ROTATED];
const DELIVER: &str = "  deliver: [SLACK_BOT_TOKEN]\n";

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn ansible_playbook(test: &str) -> Option<PathBuf> {
    let found = std::env::var_os("THE_LOOP_ANSIBLE_PLAYBOOK")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| Some(repo().join(".ci/venv/bin/ansible-playbook")).filter(|p| p.is_file()))
        .or_else(|| {
            std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
                .map(|d| d.join("ansible-playbook"))
                .find(|p| p.is_file())
        });
    let how = format!(
        "{test} needs it: set THE_LOOP_ANSIBLE_PLAYBOOK, or run .ci/run to create .ci/venv"
    );
    required_tool(found, "ansible-playbook", &how)
}

/// One inventory host: a world whose fleet was born on the retired token
/// and whose env file now holds the rotated one.
struct Host {
    name: &'static str,
    w: World,
    sessions: Vec<LegacySession>,
}

fn host(name: &'static str, n: usize) -> Host {
    let w = World::new();
    w.write_config(DELIVER);
    let sessions = w.rotated_fleet(n, RETIRED, ROTATED);
    Host { name, w, sessions }
}

/// YAML inventory: the environment each host's the-loop runs with is the
/// one its world gives every process (World::apply_env), plus its config.
fn inventory(hosts: &[&Host], dir: &Path) -> PathBuf {
    let system_path = std::env::var("PATH").unwrap_or_default();
    let mut text = format!(
        "all:\n  vars:\n    the_loop: {}\n    ansible_connection: local\n    ansible_python_interpreter: \"{{{{ ansible_playbook_python }}}}\"\n  hosts:\n",
        assert_cmd::cargo::cargo_bin("the-loop").display()
    );
    for h in hosts {
        let w = &h.w;
        text.push_str(&format!(
            "    {}:\n      the_loop_env:\n        THE_LOOP_CLI_CONFIG: {}\n        TMUX_TMPDIR: {}\n        HOME: {}\n        PATH: {}:{}\n        NO_COLOR: \"1\"\n",
            h.name,
            w.config_path.display(),
            w.tmux_tmpdir.display(),
            w.home.display(),
            w.bin_dir.display(),
            system_path
        ));
    }
    let path = dir.join("inventory.yml");
    std::fs::write(&path, text).unwrap();
    path
}

fn run_playbook(bin: &Path, inventory: &Path, scratch: &Path, extra: &[&str]) -> Output {
    let plans = scratch.join("plans");
    std::fs::create_dir_all(&plans).unwrap();
    Command::new(bin)
        .current_dir(repo().join("examples/ansible"))
        .env(
            "ANSIBLE_CONFIG",
            repo().join("examples/ansible/ansible.cfg"),
        )
        .env("ANSIBLE_HOME", scratch.join("ansible-home"))
        .env("ANSIBLE_LOCAL_TEMP", scratch.join("ansible-tmp"))
        .env("ANSIBLE_NOCOLOR", "1")
        .env("LC_ALL", "C.UTF-8")
        // The hosts' own tmux servers are named by their TMUX_TMPDIR; an
        // enclosing tmux must not leak in.
        .env_remove("TMUX")
        .env_remove("TMUX_PANE")
        .env_remove("THE_LOOP_CLI_CONFIG")
        .arg("-i")
        .arg(inventory)
        .arg("fleet.yml")
        .arg("-e")
        .arg(format!("the_loop_plans_dir={}", plans.display()))
        .args(extra)
        .output()
        .expect("run ansible-playbook")
}

fn said(out: &Output) -> String {
    format!("{}{}", stdout(out), stderr(out))
}

/// A table row: the host, the session, and a drift column naming `drift`
/// (among others: legacy sessions also lack the-loop's identifiers).
fn has_row(text: &str, host: &str, session: &str, drift: &str) -> bool {
    text.lines().any(|l| {
        let mut words = l.split_whitespace();
        words.next() == Some(host)
            && words.next() == Some(session)
            && words.any(|w| w.trim_end_matches(',') == drift)
    })
}

fn pids(h: &Host) -> Vec<i32> {
    h.sessions
        .iter()
        .map(|s| h.w.pane(&s.name).unwrap().pid)
        .collect()
}

fn plan_code(h: &Host) -> Option<i32> {
    h.w.the_loop(&["plan", "--detailed-exitcode"]).status.code()
}

#[test]
fn the_playbook_fails_with_a_drift_table_then_applies_host_by_host() {
    let test = "the_playbook_fails_with_a_drift_table_then_applies_host_by_host";
    let Some(bin) = ansible_playbook(test) else {
        return;
    };
    let a = host("agents-1", 2);
    let b = host("agents-2", 1);
    let scratch = tempfile::tempdir().unwrap();
    let inv = inventory(&[&a, &b], scratch.path());
    let before = [pids(&a), pids(&b)];

    let planned = run_playbook(&bin, &inv, scratch.path(), &[]);
    let text = said(&planned);
    assert_ne!(
        planned.status.code(),
        Some(0),
        "drift fails the run:\n{text}"
    );
    assert!(has_row(&text, "HOST", "SESSION", "DRIFT"), "{text}");
    assert!(
        has_row(&text, "agents-1", "github:octo/repo#1", "SLACK_BOT_TOKEN"),
        "{text}"
    );
    assert!(
        has_row(&text, "agents-1", "github:octo/repo#2", "SLACK_BOT_TOKEN"),
        "{text}"
    );
    assert!(
        has_row(&text, "agents-2", "github:octo/repo#1", "SLACK_BOT_TOKEN"),
        "{text}"
    );
    assert!(
        text.contains("3 drifted session(s) on 2 host(s): agents-1, agents-2."),
        "{text}"
    );
    assert!(!text.contains("PLAY [Apply host by host]"), "{text}");
    assert_eq!([pids(&a), pids(&b)], before, "planning touched nothing");
    // The JSON of every host was collected on the controller.
    for (name, n) in [("agents-1", 2), ("agents-2", 1)] {
        let plan: serde_json::Value = serde_json::from_slice(
            &std::fs::read(scratch.path().join(format!("plans/{name}.json"))).unwrap(),
        )
        .unwrap();
        assert_eq!(plan["format_version"], "1");
        let respawn = plan["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["action"] == "respawn")
            .count();
        assert_eq!(respawn, n, "{name}: {plan}");
    }

    let applied = run_playbook(&bin, &inv, scratch.path(), &["-e", "the_loop_apply=true"]);
    let text = said(&applied);
    assert_eq!(applied.status.code(), Some(0), "{text}");
    // serial: 1 — agents-1's whole play (apply, then its re-plan) before agents-2's.
    let first = text.find("changed: [agents-1]").expect("agents-1 applied");
    let second = text.find("changed: [agents-2]").expect("agents-2 applied");
    let replanned = text[first..]
        .find("TASK [The host is clean after its roll]")
        .map(|i| first + i)
        .unwrap();
    assert!(
        replanned < second,
        "agents-1 finished before agents-2:\n{text}"
    );
    for (h, old) in [&a, &b].into_iter().zip(&before) {
        for (s, old_pid) in h.sessions.iter().zip(old) {
            let pid = h.w.pane(&s.name).unwrap().pid;
            assert_ne!(pid, *old_pid, "{} {} was respawned", h.name, s.reference);
            assert_eq!(
                environ(pid).get("SLACK_BOT_TOKEN").map(String::as_str),
                Some(ROTATED),
                "{} {}: the new process holds the rotated value",
                h.name,
                s.reference
            );
            assert!(
                cmdline(pid)
                    .windows(2)
                    .any(|w| w[0] == "--resume" && w[1] == s.session_id),
                "{} {}: the conversation was resumed",
                h.name,
                s.reference
            );
        }
        assert_eq!(plan_code(h), Some(0), "{} is clean", h.name);
    }
    for out in [&planned, &applied] {
        assert_no_canary(&out.stdout, CANARIES, "ansible-playbook stdout");
        assert_no_canary(&out.stderr, CANARIES, "ansible-playbook stderr");
    }
}

#[test]
fn a_failed_apply_stops_the_roll_before_the_next_host() {
    let test = "a_failed_apply_stops_the_roll_before_the_next_host";
    let Some(bin) = ansible_playbook(test) else {
        return;
    };
    let a = host("agents-1", 1);
    let b = host("agents-2", 1);
    // agents-1's harness refuses to resume: its apply exits 1.
    std::fs::write(
        a.w.transcript(&a.sessions[0]),
        "{\"test\":\"fail-resume\"}\n",
    )
    .unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let inv = inventory(&[&a, &b], scratch.path());
    let untouched = pids(&b);

    let out = run_playbook(&bin, &inv, scratch.path(), &["-e", "the_loop_apply=true"]);
    let text = said(&out);
    assert_ne!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("fatal: [agents-1]"), "{text}");
    assert!(!text.contains("changed: [agents-2]"), "{text}");
    assert_eq!(pids(&b), untouched, "agents-2 was not rolled");
    assert_eq!(
        plan_code(&b),
        Some(2),
        "agents-2 is still drifted, for a person to look at"
    );
    assert_no_canary(&out.stdout, CANARIES, "ansible-playbook stdout");
}
