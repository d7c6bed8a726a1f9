//! Harnesses the-loop does not manage: a person ran `claude` in a pane of
//! their own session, in a split of a `loop-*` window, or in a `loop-*`
//! session no record names. They are found from the one pane listing and
//! `/proc`: the processes at and beneath each such pane, recognised by
//! their argv ([`crate::harness::Harness::recognises`]). Nothing here is
//! ever signalled; `plan` shows what they hold and `the-loop import` takes
//! one under management.
//!
//! The same walk finds the harness of a pane a record adopted
//! (`tmuxPane`, written by `import`): a person's harness usually runs
//! beneath their shell, not as the pane's own process.

use super::fleet::{Fleet, PaneCommand};
use super::registered::ManagedSession;
use super::EnvRead;
use super::HarnessProcess;
use crate::harness::{Harness, SaidConversation};
use crate::proc_env::ProcessDir;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// A harness running in a pane the-loop does not manage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnmanagedHarness {
    /// [`Harness::name`] of the harness it is.
    pub harness: &'static str,
    /// The tmux session and pane it runs in.
    pub session: String,
    pub pane_id: String,
    /// The pane's own process: the harness itself, or the shell it runs
    /// beneath.
    pub pane_pid: i32,
    pub pid: i32,
    /// `/proc/<pid>/stat` field 22, naming this process and no later one.
    pub start: Option<u64>,
    pub env: EnvRead,
    /// Its argv: the conversation it was launched on, if it names one.
    pub argv: Vec<String>,
    /// `/proc/<pid>/cwd`.
    pub cwd: Option<PathBuf>,
}

/// Children by parent, from the process table's `(pid, ppid)` pairs.
pub fn children(parents: &BTreeMap<i32, i32>) -> BTreeMap<i32, Vec<i32>> {
    let mut children: BTreeMap<i32, Vec<i32>> = BTreeMap::new();
    for (&pid, &parent) in parents {
        if parent != pid {
            children.entry(parent).or_default().push(pid);
        }
    }
    children
}

/// A harness process found by [`topmost_harnesses`].
#[derive(Debug, Clone)]
pub struct Found {
    pub pid: i32,
    pub harness: &'static dyn Harness,
    pub argv: Vec<String>,
}

/// The harness processes at or beneath `root` that have no harness above
/// them below `root`: a recognised process's own descendants (a fork of
/// it, a tool it runs) are its, not harnesses of their own. `argv_of`
/// reads a process's argv; the walk is bounded by the table.
pub fn topmost_harnesses(
    root: i32,
    children: &BTreeMap<i32, Vec<i32>>,
    argv_of: &dyn Fn(i32) -> Option<Vec<String>>,
) -> Vec<Found> {
    let mut found = Vec::new();
    let mut seen = BTreeSet::new();
    let mut queue = vec![root];
    while let Some(pid) = queue.pop() {
        if !seen.insert(pid) {
            continue;
        }
        let argv = argv_of(pid).unwrap_or_default();
        if let Some(harness) = crate::harness::recognise(&argv) {
            found.push(Found { pid, harness, argv });
            continue;
        }
        if let Some(below) = children.get(&pid) {
            queue.extend(below.iter().rev());
        }
    }
    found.sort_by_key(|f| f.pid);
    found
}

/// The argv `/proc` shows for `pid`, `None` when it cannot be read.
pub fn argv_of(pid: i32) -> Option<Vec<String>> {
    ProcessDir::open(pid).ok()?.cmdline().ok()
}

/// The panes that are a record's harness pane: every other pane may hold
/// a harness the-loop does not manage.
pub fn managed_panes<'a>(fleet: &'a Fleet, sessions: &[ManagedSession]) -> BTreeSet<&'a str> {
    sessions
        .iter()
        .filter_map(|s| fleet.harness_pane(&s.tmux_target))
        .map(|p| p.pane_id.as_str())
        .collect()
}

/// Every harness in a live pane that is no record's harness pane, in
/// tmux's listing order. Reads each such pane's process tree's argv, and
/// each harness's environment, start time and working directory.
pub fn scan(
    fleet: &Fleet,
    managed: &BTreeSet<&str>,
    children: &BTreeMap<i32, Vec<i32>>,
) -> Vec<UnmanagedHarness> {
    let mut out = Vec::new();
    for pane in fleet.all_panes() {
        if pane.dead || pane.pid <= 0 || managed.contains(pane.pane_id.as_str()) {
            continue;
        }
        for found in topmost_harnesses(pane.pid, children, &argv_of) {
            let Ok(process) = ProcessDir::open(found.pid) else {
                continue;
            };
            out.push(UnmanagedHarness {
                harness: found.harness.name(),
                session: pane.session.clone(),
                pane_id: pane.pane_id.clone(),
                pane_pid: pane.pid,
                pid: found.pid,
                start: process.stat().map(|s| s.start),
                env: process.environ(),
                argv: found.argv,
                cwd: process.procfs().cwd().ok(),
            });
        }
    }
    out
}

/// For each live pane a record adopted (`tmuxPane`) whose own process is
/// not a harness (a person's shell, until the first roll replaces it with
/// the-loop's launcher): the one harness beneath it, or `None` when there
/// is none or more than one. Keyed by the pane's pid; a pane whose own
/// process is the harness, or runs the launcher, is not listed.
pub fn beneath_adopted(
    fleet: &Fleet,
    sessions: &[ManagedSession],
    children: &BTreeMap<i32, Vec<i32>>,
) -> BTreeMap<i32, Option<i32>> {
    let mut beneath = BTreeMap::new();
    for session in sessions.iter().filter(|s| s.pane.is_some()) {
        let Some(pane) = fleet.adopted_pane(&session.tmux_target) else {
            continue;
        };
        if pane.dead || pane.pid <= 0 || pane.command == PaneCommand::Launcher {
            continue;
        }
        let found = topmost_harnesses(pane.pid, children, &argv_of);
        match found.as_slice() {
            [one] if one.pid == pane.pid => {}
            [one] => {
                beneath.insert(pane.pid, Some(one.pid));
            }
            _ => {
                beneath.insert(pane.pid, None);
            }
        }
    }
    beneath
}

/// What the harness process `pid` (started at `start`) says itself of its
/// conversation ([`crate::harness::Harness::said_conversation`]), read
/// where its own environment `env` says the harness keeps its files.
pub fn said(harness: &str, env: &EnvRead, pid: i32, start: Option<u64>) -> SaidConversation {
    use std::os::unix::ffi::OsStrExt;
    let Some(harness) = crate::harness::by_name(harness) else {
        return SaidConversation::Nothing;
    };
    match env {
        EnvRead::Read(env) => harness.said_conversation(
            &|name| {
                env.get(name)
                    .map(|v| std::ffi::OsStr::from_bytes(v.expose_bytes()).into())
            },
            pid,
            start,
        ),
        EnvRead::Unverified(why) => match harness.said_conversation(&|_| None, pid, start) {
            SaidConversation::Unclear(_) => SaidConversation::Unclear(format!(
                "its environment, which says where the harness keeps its files, cannot be read: {why}"
            )),
            said => said,
        },
    }
}

/// What the harness of each pane a record adopted (`tmuxPane`, written by
/// `the-loop import`) says itself of its conversation, by the harness's
/// pid ([`super::Observation::harness_pid`]). A harness the-loop launched reports
/// through its hooks; one a person started reports through none, so this
/// is how a `/clear` after its import is seen. One small file read per
/// adopted pane; none for the sessions the-loop launched.
pub fn said_by_adopted(
    fleet: &Fleet,
    sessions: &[ManagedSession],
    beneath: &BTreeMap<i32, Option<i32>>,
    processes: &BTreeMap<i32, HarnessProcess>,
) -> BTreeMap<i32, SaidConversation> {
    let mut said_by = BTreeMap::new();
    for session in sessions.iter().filter(|s| s.pane.is_some()) {
        let Some(pane) = fleet.adopted_pane(&session.tmux_target) else {
            continue;
        };
        let pid = match beneath.get(&pane.pid) {
            Some(beneath) => *beneath,
            None => Some(pane.pid),
        };
        let Some((pid, process)) = pid.and_then(|pid| Some((pid, processes.get(&pid)?))) else {
            continue;
        };
        let harness = process.argv.as_deref().and_then(crate::harness::recognise);
        if let Some(harness) = harness {
            said_by.insert(pid, said(harness.name(), &process.env, pid, process.start));
        }
    }
    said_by
}

/// What each live managed harness whose hooks have named no conversation
/// says itself ([`said`]): a harness launched before the hooks existed, or
/// one whose conversation began after its start without a `SessionStart`
/// the-loop heard (a Codex whose first prompt a person typed). Harnesses
/// whose hooks speak cost nothing here; already-read pids are kept.
pub fn said_where_hooks_are_silent(
    said_by: &mut BTreeMap<i32, SaidConversation>,
    live: &[i32],
    processes: &BTreeMap<i32, HarnessProcess>,
    activities: &BTreeMap<i32, crate::activity::HarnessActivity>,
) {
    for pid in live {
        let reported = activities
            .get(pid)
            .is_some_and(|a| a.conversation.is_some());
        if reported || said_by.contains_key(pid) {
            continue;
        }
        let Some(process) = processes.get(pid) else {
            continue;
        };
        let harness = process.argv.as_deref().and_then(crate::harness::recognise);
        if let Some(harness) = harness {
            said_by.insert(
                *pid,
                said(harness.name(), &process.env, *pid, process.start),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(line: &str) -> Option<Vec<String>> {
        Some(line.split(' ').map(String::from).collect())
    }

    #[test]
    fn the_topmost_harness_is_found_beneath_a_shell_and_its_forks_are_its_own() {
        // 10 bash ─┬─ 11 claude ── 12 claude (a fork) ── 13 sh -c hook
        //          └─ 14 vim claude
        // 20 claude (a pane's own process)
        let parents = BTreeMap::from([(10, 1), (11, 10), (12, 11), (13, 12), (14, 10), (20, 1)]);
        let read = |pid: i32| match pid {
            10 => argv("-bash"),
            11 | 12 => argv("bash /w/bin/claude --session-id abc"),
            13 => argv("sh -c the-loop hook"),
            14 => argv("vim claude"),
            20 => argv("/opt/claude --resume x"),
            _ => None,
        };
        let children = children(&parents);
        let pids = |root| -> Vec<i32> {
            topmost_harnesses(root, &children, &read)
                .iter()
                .map(|f| f.pid)
                .collect()
        };
        assert_eq!(pids(10), [11]);
        assert_eq!(pids(20), [20]);
        assert_eq!(pids(14), Vec::<i32>::new());
        assert_eq!(
            topmost_harnesses(10, &children, &read)[0].harness.name(),
            "claude"
        );
    }

    #[test]
    fn a_loop_in_the_table_ends() {
        let parents = BTreeMap::from([(5, 6), (6, 5)]);
        let children = children(&parents);
        assert!(topmost_harnesses(5, &children, &|_| None).is_empty());
    }
}
