//! `examples/ansible/fleet.yml` run by a real `ansible-playbook` against
//! inventory "hosts" on this machine (`ansible_connection=local`), each with
//! its own config, state root, HOME and tmux server: the plan play fails
//! with a table of drifted hosts and sessions and touches nothing; the apply
//! play applies each host's own saved plan, a canary host first, and stops
//! at the first host that fails (`roll`); `--check` touches nothing
//! (`check_mode`); the plan files and the variables' flags (`plan_files`).
//!
//! Each host's `the_loop` is a wrapper around the built binary that appends
//! `start HOST ARGV` and `end HOST SUBCOMMAND RC` to one log shared by the
//! hosts ([`calls`]): the command lines the play ran, in the order it ran
//! them.
//!
//! ansible-playbook comes from $THE_LOOP_ANSIBLE_PLAYBOOK, else the
//! virtualenv `.ci/run` creates (`.ci/venv/bin/ansible-playbook`), else PATH.
//! When none is found the tests say SKIP loudly and pass, unless
//! THE_LOOP_REQUIRE_TOOLS is set (CI sets it).

mod check_mode;
mod plan_files;
mod roll;

use crate::support::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const RETIRED: &str = "xoxb-RETIRED-canary-f1ee";
const ROTATED: &str = "xoxb-ROTATED-canary-f1ee";
const CANARIES: &[&str] = &[RETIRED, ROTATED];
const DELIVER: &str = "  deliver: [SLACK_BOT_TOKEN]\n";

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

pub(crate) fn ansible_playbook(test: &str) -> Option<PathBuf> {
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
pub(crate) struct Host {
    name: &'static str,
    w: World,
    sessions: Vec<LegacySession>,
    /// More inventory variables for this host (YAML, six spaces in).
    vars: String,
    /// Shell the wrapper runs before `the-loop apply` (between the plan
    /// play and this host's apply).
    before_apply: String,
}

pub(crate) fn host(name: &'static str, n: usize) -> Host {
    let w = World::new();
    w.write_config(DELIVER);
    let sessions = w.rotated_fleet(n, RETIRED, ROTATED);
    Host {
        name,
        w,
        sessions,
        vars: String::new(),
        before_apply: String::new(),
    }
}

impl Host {
    /// Where the play saves this host's plan unless told otherwise.
    fn plan_file(&self) -> PathBuf {
        self.w
            .home
            .join(format!(".the-loop/fleet-plans/{}.tfplan", self.name))
    }
}

fn calls_log(scratch: &Path) -> PathBuf {
    scratch.join("calls.log")
}

/// Installs `host`'s wrapper around the-loop, logging to `log`.
fn wrapper(h: &Host, log: &Path) -> PathBuf {
    let script = format!(
        "#!/bin/sh\n[ \"$1\" = --probe ] && exit 0\n\
         printf 'start %s %s\\n' '{name}' \"$*\" >> '{log}'\n\
         if [ \"$1\" = apply ]; then :\n{before}\nfi\n\
         '{bin}' \"$@\"\nrc=$?\n\
         printf 'end %s %s %s\\n' '{name}' \"$1\" \"$rc\" >> '{log}'\nexit $rc\n",
        name = h.name,
        log = log.display(),
        before = h.before_apply,
        bin = assert_cmd::cargo::cargo_bin("the-loop").display(),
    );
    h.w.install_bin_settled("the-loop-logged", &script, "--probe")
}

/// The log's lines, in order, emptying it for the next run.
fn calls(scratch: &Path) -> Vec<String> {
    let path = calls_log(scratch);
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let _ = std::fs::remove_file(&path);
    text.lines().map(str::to_owned).collect()
}

/// The argv (after the subcommand's host) of every `start HOST SUBCOMMAND`.
fn started<'a>(calls: &'a [String], host: &str, subcommand: &str) -> Vec<&'a str> {
    let head = format!("start {host} {subcommand}");
    calls
        .iter()
        .filter(|l| *l == &head || l.starts_with(&format!("{head} ")))
        .map(|l| &l[format!("start {host} ").len()..])
        .collect()
}

/// Where in the log `line` is (it must be there).
fn at(calls: &[String], line: &str) -> usize {
    calls
        .iter()
        .position(|l| l == line)
        .unwrap_or_else(|| panic!("no {line:?} in {calls:#?}"))
}

/// YAML inventory: the environment each host's the-loop runs with is the
/// one its world gives every process (World::apply_env), plus its config.
pub(crate) fn inventory(hosts: &[&Host], dir: &Path) -> PathBuf {
    let system_path = std::env::var("PATH").unwrap_or_default();
    let mut text = "all:\n  vars:\n    ansible_connection: local\n    ansible_python_interpreter: \"{{ ansible_playbook_python }}\"\n  hosts:\n".to_owned();
    for h in hosts {
        let w = &h.w;
        text.push_str(&format!(
            "    {}:\n      the_loop: {}\n      the_loop_env:\n        THE_LOOP_CLI_CONFIG: {}\n        TMUX_TMPDIR: {}\n        HOME: {}\n        PATH: {}:{}\n        NO_COLOR: \"1\"\n{}",
            h.name,
            wrapper(h, &calls_log(dir)).display(),
            w.config_path.display(),
            w.tmux_tmpdir.display(),
            w.home.display(),
            w.bin_dir.display(),
            system_path,
            h.vars
        ));
    }
    let path = dir.join("inventory.yml");
    std::fs::write(&path, text).unwrap();
    path
}

pub(crate) fn run_playbook(bin: &Path, inventory: &Path, scratch: &Path, extra: &[&str]) -> Output {
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

pub(crate) fn said(out: &Output) -> String {
    format!("{}{}", stdout(out), stderr(out))
}

/// A host's counts in the PLAY RECAP: `ok`, `changed`, `failed`, ...
fn recap(text: &str, host: &str) -> BTreeMap<String, u32> {
    let tail = &text[text.rfind("PLAY RECAP").expect("a recap")..];
    let line = tail
        .lines()
        .find(|l| l.split_whitespace().next() == Some(host))
        .unwrap_or_else(|| panic!("{host} in the recap:\n{tail}"));
    line.split_whitespace()
        .filter_map(|w| w.split_once('='))
        .map(|(k, v)| (k.to_owned(), v.parse().unwrap()))
        .collect()
}

/// The recap's `changed` and `failed` for `host`.
fn changed_failed(text: &str, host: &str) -> (u32, u32) {
    let r = recap(text, host);
    (r["changed"], r["failed"])
}

/// A table row: the host, the session, and a drift column naming `drift`
/// (among others: legacy sessions also lack the-loop's identifiers). When
/// applying, the table is a list (`- ` first).
fn has_row(text: &str, host: &str, session: &str, drift: &str) -> bool {
    text.lines().any(|l| {
        let mut words = l.trim_start().trim_start_matches("- ").split_whitespace();
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

/// How many sessions a saved plan would respawn.
fn respawns_in(plan_file: &Path) -> usize {
    let plan = read_json(plan_file);
    assert_eq!(plan["format_version"], "1", "{plan}");
    plan["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["action"] == "respawn")
        .count()
}
