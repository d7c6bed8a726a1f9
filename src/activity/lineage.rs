//! Which harness process a hook belongs to, proven rather than guessed.
//!
//! The pane launcher (`the-loop exec`) names itself in the harness's
//! environment as [`VARIABLE`] (`<pid>:<start>`) just before it `exec`s the
//! harness, which keeps that pid and start time. Every hook the harness
//! runs inherits the name, and the hook files its event under that process
//! only when it is one of the hook's own ancestors with that very start
//! time. Nothing is read from argv: a harness's flags may look like a
//! shell's (`codex -c key=value …` has `-c` where `sh -c` has it), and a
//! harness may be a script or sit behind `env` or a wrapper, so no rule
//! over argv can tell a harness from a shell. A hook that cannot prove its
//! harness files nothing.

use std::fmt;

/// The variable the launcher sets: `<pid>:<start>`, the harness process's
/// pid and its start time (`/proc/<pid>/stat` field 22).
pub const VARIABLE: &str = "THE_LOOP_HARNESS_PROCESS";

/// How many ancestors a hook looks through for its harness: the hook's
/// shell (`sh -c`), a wrapper or two (npm's `codex.js` runs the native
/// binary as its child), and room to spare. A harness further away than
/// this is not the hook's.
pub const MAX_DEPTH: usize = 8;

/// One process: its pid and start time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcessId {
    pub pid: i32,
    pub start: u64,
}

impl ProcessId {
    /// The variable's value for this process.
    pub fn to_variable(self) -> String {
        format!("{}:{}", self.pid, self.start)
    }

    /// Parses the variable's value; anything else is `None`.
    pub fn from_variable(value: &str) -> Option<ProcessId> {
        let (pid, start) = value.split_once(':')?;
        let pid: i32 = pid.parse().ok()?;
        let start: u64 = start.parse().ok()?;
        (pid > 1).then_some(ProcessId { pid, start })
    }
}

/// Why a hook filed nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unproven {
    /// The hook's environment names no harness: the harness was not started
    /// by the-loop's launcher (or by one from before this check).
    NotNamed,
    /// The variable holds something that is not `<pid>:<start>`.
    Malformed,
    /// The named process is not among the hook's ancestors, or it is a later
    /// process under a reused pid.
    NotAnAncestor(ProcessId),
}

impl fmt::Display for Unproven {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unproven::NotNamed => write!(f, "no {VARIABLE} in the hook's environment"),
            Unproven::Malformed => write!(f, "{VARIABLE} is not <pid>:<start>"),
            Unproven::NotAnAncestor(named) => write!(
                f,
                "process {} (start {}) named by {VARIABLE} is not among the hook's {MAX_DEPTH} nearest ancestors",
                named.pid, named.start
            ),
        }
    }
}

/// The harness the hook belongs to: the process `named` (the variable's
/// value) when it is one of the ancestors, nearest first, that `parent_of`
/// walks from `first` (the hook's parent), with the same start time.
/// `parent_of(pid)` gives a process's own start time and its parent.
pub fn harness_of(
    named: Option<&str>,
    first: i32,
    parent_of: &dyn Fn(i32) -> Option<(u64, i32)>,
) -> Result<ProcessId, Unproven> {
    let named =
        ProcessId::from_variable(named.ok_or(Unproven::NotNamed)?).ok_or(Unproven::Malformed)?;
    let mut pid = first;
    for _ in 0..MAX_DEPTH {
        let Some((start, parent)) = parent_of(pid) else {
            break;
        };
        if pid == named.pid {
            return if start == named.start {
                Ok(named)
            } else {
                Err(Unproven::NotAnAncestor(named))
            };
        }
        if parent <= 1 {
            break;
        }
        pid = parent;
    }
    Err(Unproven::NotAnAncestor(named))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// A process table: pid → (start, parent, argv).
    struct Table(BTreeMap<i32, (u64, i32, &'static str)>);

    impl Table {
        fn new(rows: &[(i32, u64, i32, &'static str)]) -> Table {
            Table(
                rows.iter()
                    .map(|(p, s, pp, a)| (*p, (*s, *pp, *a)))
                    .collect(),
            )
        }
        fn parent_of(&self, pid: i32) -> Option<(u64, i32)> {
            self.0.get(&pid).map(|(s, pp, _)| (*s, *pp))
        }
        fn lookup(&self, named: Option<&str>, first: i32) -> Result<ProcessId, Unproven> {
            harness_of(named, first, &|pid| self.parent_of(pid))
        }
    }

    /// The tmux server (pid 10) runs the pane's harness (pid 20, launched
    /// by `the-loop exec`, which named it), whose hook runs through `sh -c`
    /// (pid 30) or directly.
    fn pane(harness_argv: &'static str) -> Table {
        Table::new(&[
            (10, 100, 1, "tmux -L loop new-session"),
            (20, 200, 10, harness_argv),
            (30, 300, 20, "sh -c 'the-loop' hook --event Stop"),
        ])
    }

    #[test]
    fn every_argv_shape_is_filed_under_the_launched_harness() {
        let filed = ProcessId {
            pid: 20,
            start: 200,
        };
        for argv in [
            "codex -c hooks.Stop=[] -c model=gpt-5",
            "claude -c",
            "claude --settings /s/claude-settings.json --session-id abc",
            "sh -c 'exec claude'",
            "bash -c codex",
            "bash /usr/local/bin/stand-in-claude --session-id abc",
            "env FOO=1 codex -c x=1",
        ] {
            let table = pane(argv);
            assert_eq!(table.lookup(Some("20:200"), 30), Ok(filed), "{argv}");
            // A hook run without a shell between (the harness's own child).
            assert_eq!(table.lookup(Some("20:200"), 20), Ok(filed), "{argv}");
        }
    }

    #[test]
    fn a_wrapper_that_runs_the_harness_as_its_child_is_still_the_one_named() {
        // npm's `codex` (node) runs the native binary (pid 25) as its child.
        let table = Table::new(&[
            (10, 100, 1, "tmux"),
            (20, 200, 10, "node /usr/bin/codex -c x=1"),
            (25, 250, 20, "codex -c x=1"),
            (30, 300, 25, "sh -c hook"),
        ]);
        assert_eq!(table.lookup(Some("20:200"), 30).map(|p| p.pid), Ok(20));
    }

    #[test]
    fn a_hook_that_cannot_prove_its_harness_files_nothing() {
        let table = pane("codex -c x=1");
        assert_eq!(table.lookup(None, 30), Err(Unproven::NotNamed));
        for bad in ["", "20", "x:1", "20:", "1:5", "-4:5", "20:200:1"] {
            assert_eq!(
                table.lookup(Some(bad), 30),
                Err(Unproven::Malformed),
                "{bad}"
            );
        }
        // A reused pid: the process 20 now is not the one the launcher named.
        let reused = ProcessId {
            pid: 20,
            start: 199,
        };
        assert_eq!(
            table.lookup(Some("20:199"), 30),
            Err(Unproven::NotAnAncestor(reused))
        );
        // A process elsewhere in the table, not an ancestor (a daemon that
        // inherited the variable and was re-parented to init).
        let table = Table::new(&[(20, 200, 10, "codex"), (40, 400, 1, "codex app-server")]);
        assert!(matches!(
            table.lookup(Some("20:200"), 40),
            Err(Unproven::NotAnAncestor(_))
        ));
        // Further than the walk looks.
        let mut rows = vec![(20, 200, 1, "codex")];
        for pid in 21..21 + MAX_DEPTH as i32 {
            rows.push((pid, pid as u64, pid - 1, "sh -c x"));
        }
        let deep = Table::new(&rows);
        let last = 20 + MAX_DEPTH as i32;
        assert!(deep.lookup(Some("20:200"), last).is_err());
        assert!(deep.lookup(Some("20:200"), last - 1).is_ok());
    }

    #[test]
    fn the_variable_round_trips_and_names_no_secret() {
        let id = ProcessId {
            pid: 4242,
            start: 987_654,
        };
        assert_eq!(id.to_variable(), "4242:987654");
        assert_eq!(ProcessId::from_variable(&id.to_variable()), Some(id));
    }
}
