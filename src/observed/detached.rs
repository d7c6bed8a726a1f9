//! Processes a harness left behind: a child it detached (`setsid`,
//! `nohup`, a double fork) outlives a roll, and keeps the environment it
//! was born with, retired values included. One pass over `/proc`.
//!
//! Only processes provably the-loop's own are kept: their environment
//! carries this config's launcher identifiers (see
//! [`crate::desired::policy::Policy::launched_here`]). Every other
//! environment read to decide that is dropped at once, and nothing here
//! ever signals a process.

use super::proc_env::{proc_root, ProcessDir};
use super::{EnvRead, ProcessEnv};
use std::collections::{BTreeMap, BTreeSet};

/// A process outside every pane that a launch under this config started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detached {
    pub pid: i32,
    /// `/proc/<pid>/comm`: the process name, as the kernel keeps it.
    pub process: String,
    pub env: ProcessEnv,
}

/// `(pid, ppid)` of every process, from `/proc/<pid>/stat`. A process that
/// exits meanwhile is just not listed.
pub fn parents() -> BTreeMap<i32, i32> {
    let Ok(dir) = std::fs::read_dir(proc_root()) else {
        return BTreeMap::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read(proc_root().join(pid.to_string()).join("stat")).ok()?;
            Some((pid, parse_ppid(&stat)?))
        })
        .collect()
}

/// The ppid from a `stat` line: the field after the state, counted from
/// the LAST `)`, since the process name in parentheses may hold anything.
fn parse_ppid(stat: &[u8]) -> Option<i32> {
    let close = stat.iter().rposition(|b| *b == b')')?;
    let rest = std::str::from_utf8(stat.get(close + 1..)?).ok()?;
    rest.split_whitespace().nth(1)?.parse().ok()
}

/// Whether `pid` is one of `roots` or descends from one.
fn under(pid: i32, roots: &BTreeSet<i32>, parents: &BTreeMap<i32, i32>) -> bool {
    let mut at = pid;
    // Bounded: a pid chain is never longer than the process table.
    for _ in 0..=parents.len() {
        if roots.contains(&at) {
            return true;
        }
        match parents.get(&at) {
            Some(&parent) if parent > 0 && parent != at => at = parent,
            _ => return false,
        }
    }
    false
}

/// Every process outside the panes (`pane_pids` and their descendants, which
/// the plan compares on its own) and outside this process's own lineage,
/// whose environment `ours` accepts. `parents` is [`parents`], read a moment
/// before: a process started since is not looked at until the next scan.
pub fn scan(
    parents: &BTreeMap<i32, i32>,
    pane_pids: &BTreeSet<i32>,
    ours: &dyn Fn(&ProcessEnv) -> bool,
) -> Vec<Detached> {
    let mut lineage = BTreeSet::new();
    let mut at = i32::try_from(std::process::id()).unwrap_or(0);
    while at > 0 && lineage.insert(at) {
        at = parents.get(&at).copied().unwrap_or(0);
    }
    let mut found = Vec::new();
    for &pid in parents.keys() {
        if lineage.contains(&pid) || under(pid, pane_pids, parents) {
            continue;
        }
        // Opened once: every read below is of this one process even if
        // its pid is reused meanwhile.
        let Ok(dir) = ProcessDir::open(pid) else {
            continue;
        };
        let EnvRead::Read(env) = dir.environ() else {
            continue;
        };
        if !ours(&env) {
            continue;
        }
        let process = std::fs::read_to_string(proc_root().join(pid.to_string()).join("comm"))
            .map(|c| c.trim_end().to_owned())
            .unwrap_or_else(|_| "?".into());
        found.push(Detached { pid, process, env });
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ppid_is_read_after_the_last_parenthesis() {
        assert_eq!(parse_ppid(b"42 (a) b) c) S 7 42 42 0"), Some(7));
        assert_eq!(parse_ppid(b"42 (sh) R 1 1"), Some(1));
        assert_eq!(parse_ppid(b"garbage"), None);
    }

    #[test]
    fn descent_is_followed_and_bounded() {
        let parents = BTreeMap::from([(10, 1), (11, 10), (12, 11), (20, 1), (30, 30)]);
        let roots = BTreeSet::from([10]);
        assert!(under(12, &roots, &parents));
        assert!(!under(20, &roots, &parents));
        assert!(!under(30, &roots, &parents), "a self-parent loop ends");
    }
}
