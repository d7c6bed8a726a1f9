//! Processes a harness left behind: a child it detached (`setsid`,
//! `nohup`, a double fork) outlives a roll, and keeps the environment it
//! was born with, retired values included. One pass over `/proc`.
//!
//! Only processes provably the-loop's own are kept: their environment
//! carries this config's launcher identifiers (see
//! [`crate::desired::policy::Policy::launched_here`]). Every other
//! environment read to decide that is dropped at once, and nothing here
//! ever signals a process.
//!
//! A process in a pane of some other session (a person's shell that
//! exported the-loop's variables) is not detached from anything: it is kept
//! with the pane it runs in. A harness there, and whatever runs beneath
//! it, is not residue at all but a harness the-loop does not manage
//! ([`super::unmanaged`]), listed on its own.

use super::fleet::Fleet;
use super::unmanaged::UnmanagedHarness;
use super::{EnvRead, ProcessEnv};
use crate::proc_env::{pid_dir, proc_root, ProcStat, ProcessDir};
use std::collections::{BTreeMap, BTreeSet};

/// A process outside the-loop's panes that carries this config's
/// identifiers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detached {
    pub pid: i32,
    /// `/proc/<pid>/comm`: the process name, as the kernel keeps it.
    pub process: String,
    pub env: ProcessEnv,
    /// The pane of another session it runs in; `None` for a process
    /// outside every pane (detached).
    pub pane: Option<PaneAt>,
}

/// A pane of a session that is not the-loop's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaneAt {
    pub session: String,
    pub pane_id: String,
}

/// The panes the scan places processes by.
#[derive(Debug, Clone, Default)]
pub struct Panes {
    /// `loop-*` panes' processes: what runs beneath them is the plan's to
    /// compare, never residue.
    pub ours: BTreeSet<i32>,
    /// Every other pane's process, with where it is.
    pub outside: BTreeMap<i32, PaneAt>,
    /// Harnesses the-loop does not manage: listed on their own, so neither
    /// they nor what runs beneath them are residue.
    pub harnesses: BTreeSet<i32>,
}

impl Panes {
    /// The listing's panes, and the harnesses found in the others'.
    pub fn of(fleet: &Fleet, unmanaged: &[UnmanagedHarness]) -> Panes {
        let ours: BTreeSet<i32> = fleet
            .session_names()
            .flat_map(|name| fleet.panes(name))
            .map(|p| p.pid)
            .collect();
        let outside = fleet
            .outside_panes()
            .iter()
            .map(|p| {
                let at = PaneAt {
                    session: p.session.clone(),
                    pane_id: p.pane_id.clone(),
                };
                (p.pid, at)
            })
            .collect();
        Panes {
            ours,
            outside,
            harnesses: unmanaged.iter().map(|h| h.pid).collect(),
        }
    }

    /// Every pane alike, none placed: a process in any pane is skipped.
    pub fn all(pids: BTreeSet<i32>) -> Panes {
        Panes {
            ours: pids,
            ..Panes::default()
        }
    }
}

/// One pass over every process's `/proc/<pid>/stat`.
#[derive(Debug, Default)]
pub struct ProcessTable {
    /// `(pid, ppid)` of every process. A process that exits meanwhile is
    /// just not listed.
    pub parents: BTreeMap<i32, i32>,
    /// The processes named `tmux: server` (the name tmux gives its server):
    /// their children are every tmux pane's process on the machine, read
    /// in the same pass while tmux lists the panes ([`process_table_visiting`]).
    pub tmux_servers: BTreeSet<i32>,
}

impl ProcessTable {
    /// The children of every tmux server.
    pub fn tmux_children(&self) -> Vec<i32> {
        self.parents
            .iter()
            .filter(|(_, parent)| self.tmux_servers.contains(parent))
            .map(|(&pid, _)| pid)
            .collect()
    }
}

/// The name tmux gives its server process (`prctl` keeps 15 bytes).
const TMUX_SERVER_NAME: &[u8] = b"tmux: server";

/// Reads the [`ProcessTable`].
pub fn process_table() -> ProcessTable {
    table_pass(false, |_, _, _| false)
}

/// [`process_table`], handing `visit` each child of a tmux server as the
/// pass meets it, with a handle on its `/proc` directory and the `stat`
/// read through that handle: what `visit` reads through it is of the same
/// process. Visits stop when `visit` returns `false`. The pass goes in pid
/// order and a server is older than its panes, so a pane is met after its
/// server (past a pid wrap-around it is just not visited). Each pane's
/// `stat` is then read once, for the table and for its reader, where a pass
/// and a read after it would read it twice.
pub fn process_table_visiting(
    visit: impl FnMut(i32, &ProcessDir, Option<ProcStat>) -> bool,
) -> ProcessTable {
    table_pass(true, visit)
}

/// One pass over every process's `stat`: through a directory handle while
/// `visiting`, else by path (one open fewer).
fn table_pass(
    mut visiting: bool,
    mut visit: impl FnMut(i32, &ProcessDir, Option<ProcStat>) -> bool,
) -> ProcessTable {
    let mut table = ProcessTable::default();
    let Ok(dir) = std::fs::read_dir(proc_root()) else {
        return table;
    };
    for pid in dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok()) {
        let (handle, stat) = if visiting {
            let Ok(handle) = ProcessDir::open(pid) else {
                continue;
            };
            let Ok(stat) = handle.stat_line() else {
                continue;
            };
            (Some(handle), stat)
        } else {
            let path = pid_dir(pid).join("stat");
            let Ok(stat) = crate::proc_env::read_stat_file(&path) else {
                continue;
            };
            (None, stat)
        };
        let Some(ppid) = parse_ppid(&stat) else {
            continue;
        };
        table.parents.insert(pid, ppid);
        if command_name(&stat) == Some(TMUX_SERVER_NAME) {
            table.tmux_servers.insert(pid);
        } else if let Some(handle) = handle.filter(|_| table.tmux_servers.contains(&ppid)) {
            visiting = visit(pid, &handle, ProcStat::from_bytes(&stat));
        }
    }
    table
}

/// `(pid, ppid)` of every process, from `/proc/<pid>/stat`.
pub fn parents() -> BTreeMap<i32, i32> {
    process_table().parents
}

/// The ppid from a `stat` line: the field after the state, counted from
/// the LAST `)`, since the process name in parentheses may hold anything.
fn parse_ppid(stat: &[u8]) -> Option<i32> {
    let close = stat.iter().rposition(|b| *b == b')')?;
    let rest = std::str::from_utf8(stat.get(close + 1..)?).ok()?;
    rest.split_whitespace().nth(1)?.parse().ok()
}

/// The process name from a `stat` line: between the first `(` and the
/// last `)`.
fn command_name(stat: &[u8]) -> Option<&[u8]> {
    let open = stat.iter().position(|b| *b == b'(')?;
    let close = stat.iter().rposition(|b| *b == b')')?;
    stat.get(open + 1..close)
}

/// Where a process is, for the scan.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Place {
    /// Outside every pane.
    Detached,
    /// In a pane of another session.
    In(PaneAt),
    /// In a `loop-*` pane, or a harness the-loop does not manage (or
    /// beneath one): not the scan's.
    Skipped,
}

/// Where `pid` is: the first pane process or unmanaged harness met on the
/// way up its parents, itself included.
fn place(pid: i32, panes: &Panes, parents: &BTreeMap<i32, i32>) -> Place {
    let mut at = pid;
    // Bounded: a pid chain is never longer than the process table.
    for _ in 0..=parents.len() {
        if panes.ours.contains(&at) || panes.harnesses.contains(&at) {
            return Place::Skipped;
        }
        if let Some(pane) = panes.outside.get(&at) {
            return Place::In(pane.clone());
        }
        match parents.get(&at) {
            Some(&parent) if parent > 0 && parent != at => at = parent,
            _ => return Place::Detached,
        }
    }
    Place::Detached
}

/// Every process outside the-loop's panes (whose processes the plan
/// compares on its own), outside the harnesses it does not manage and
/// outside this process's own lineage, whose environment `ours` accepts.
/// `parents` is [`parents`], read a moment before: a process started since
/// is not looked at until the next scan.
pub fn scan(
    parents: &BTreeMap<i32, i32>,
    panes: &Panes,
    ours: &dyn Fn(&ProcessEnv) -> bool,
) -> Vec<Detached> {
    let mut lineage = BTreeSet::new();
    let mut at = i32::try_from(std::process::id()).unwrap_or(0);
    while at > 0 && lineage.insert(at) {
        at = parents.get(&at).copied().unwrap_or(0);
    }
    let mut found = Vec::new();
    for &pid in parents.keys() {
        if lineage.contains(&pid) {
            continue;
        }
        let pane = match place(pid, panes, parents) {
            Place::Skipped => continue,
            Place::Detached => None,
            Place::In(pane) => Some(pane),
        };
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
        let process = std::fs::read_to_string(pid_dir(pid).join("comm"))
            .map(|c| c.trim_end().to_owned())
            .unwrap_or_else(|_| "?".into());
        found.push(Detached {
            pid,
            process,
            env,
            pane,
        });
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
    fn the_name_is_read_between_the_first_and_the_last_parenthesis() {
        assert_eq!(
            command_name(b"42 (tmux: server) S 1 42"),
            Some(&b"tmux: server"[..])
        );
        assert_eq!(command_name(b"42 (a (b) c) S 1"), Some(&b"a (b) c"[..]));
        assert_eq!(command_name(b"garbage"), None);
    }

    #[test]
    fn the_children_of_tmux_servers_are_every_pane_process() {
        let table = ProcessTable {
            parents: BTreeMap::from([(10, 1), (11, 10), (12, 10), (13, 11), (20, 1), (21, 20)]),
            tmux_servers: BTreeSet::from([10, 20]),
        };
        assert_eq!(table.tmux_children(), vec![11, 12, 21]);
    }

    /// The table names a real tmux server when one runs on this machine,
    /// and never this test process.
    #[test]
    fn this_process_is_in_the_table_and_is_no_tmux_server() {
        let table = process_table();
        let me = std::process::id() as i32;
        assert!(table.parents.contains_key(&me));
        assert!(!table.tmux_servers.contains(&me));
    }

    #[test]
    fn descent_is_followed_and_bounded() {
        let parents = BTreeMap::from([
            (10, 1),
            (11, 10),
            (12, 11),
            (20, 1),
            (30, 30),
            (40, 1),
            (41, 40),
            (42, 41),
            (43, 40),
        ]);
        let at = PaneAt {
            session: "mywork".into(),
            pane_id: "%4".into(),
        };
        let panes = Panes {
            ours: BTreeSet::from([10]),
            outside: BTreeMap::from([(40, at.clone())]),
            harnesses: BTreeSet::from([41]),
        };
        assert_eq!(place(12, &panes, &parents), Place::Skipped);
        assert_eq!(place(20, &panes, &parents), Place::Detached);
        assert_eq!(
            place(30, &panes, &parents),
            Place::Detached,
            "a self-parent loop ends"
        );
        assert_eq!(
            place(42, &panes, &parents),
            Place::Skipped,
            "beneath a harness"
        );
        assert_eq!(place(43, &panes, &parents), Place::In(at.clone()));
        assert_eq!(place(40, &panes, &parents), Place::In(at));
    }
}
