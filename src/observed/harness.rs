//! Reading a harness process: its environment, its launch argv and its start
//! time, through one `/proc/<pid>` handle, refusing the launcher's own (until
//! the launcher has exec'd, the pid still holds the tmux server's
//! environment).

use crate::proc_env::{self, EnvRead, ProcStat, ProcessDir};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// What one harness pane's process holds: everything the plan compares
/// about a running harness, kept together so a new fact about the process
/// is one more field here, read through the same handle, rather than one
/// more map by pid beside the others.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HarnessProcess {
    pub env: EnvRead,
    /// The argv, for launch-argument drift; `None` when it could not be
    /// read or the process is still the launcher.
    pub argv: Option<Vec<String>>,
    /// `/proc/<pid>/stat` field 22 (clock ticks after boot): with the pid
    /// it names this process and no later one that reuses the pid (the
    /// activity files record the same value). `None` when unreadable.
    pub start: Option<u64>,
}

impl HarnessProcess {
    /// A process known only by its environment reading (the pure core's
    /// tests, and readings that failed before anything else was read).
    pub fn of_env(env: EnvRead) -> Self {
        HarnessProcess {
            env,
            argv: None,
            start: None,
        }
    }
}

/// The pane's process is still the launcher: it has not exec'd the harness
/// yet, so there is no harness environment to read (a respawn waits it out).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StillLauncher;

const STILL_LAUNCHER: &str = "the launcher has not started the harness yet";

/// The harness's environment, refusing to read the launcher's.
pub fn read_harness_environment(pid: i32, launcher: Option<&Path>) -> EnvRead {
    read_harness(pid, launcher)
        .unwrap_or_else(|StillLauncher| EnvRead::Unverified(STILL_LAUNCHER.into()))
}

/// Like [`read_harness_environment`], but says apart that the launcher has
/// not started the harness yet, for a caller that waits for it.
pub fn read_harness(pid: i32, launcher: Option<&Path>) -> Result<EnvRead, StillLauncher> {
    read_process(pid, launcher).map(|p| p.env)
}

/// The harness's environment and argv, read through one handle.
pub fn read_process(pid: i32, launcher: Option<&Path>) -> Result<HarnessProcess, StillLauncher> {
    read_process_in(pid, launcher, &ParentImages::default())
}

/// The image of each parent a batch of reads met: every pane's parent is
/// the tmux server, whose image is read once per batch instead of once per
/// pane (at 500 panes, about 2,000 of the plan's 32,500 syscalls).
#[derive(Default)]
pub struct ParentImages(Mutex<HashMap<i32, Option<PathBuf>>>);

impl ParentImages {
    fn of(&self, parent: i32) -> Option<PathBuf> {
        let mut known = self.0.lock().unwrap_or_else(|e| e.into_inner());
        known
            .entry(parent)
            .or_insert_with(|| proc_env::executable(parent).ok())
            .clone()
    }
}

/// [`read_process`], with the parents' images shared across a batch.
fn read_process_in(
    pid: i32,
    launcher: Option<&Path>,
    parents: &ParentImages,
) -> Result<HarnessProcess, StillLauncher> {
    if !cfg!(target_os = "linux") {
        return Ok(HarnessProcess::of_env(proc_env::read_environ(pid)));
    }
    let process = match ProcessDir::open(pid) {
        Ok(process) => process,
        Err(reason) => return Ok(HarnessProcess::of_env(EnvRead::Unverified(reason))),
    };
    let stat = process.stat();
    read_opened_process(&process, stat, launcher, parents)
}

/// [`read_process_in`] through a handle already open, with the `stat` read
/// through it.
fn read_opened_process(
    process: &ProcessDir,
    stat: Option<ProcStat>,
    launcher: Option<&Path>,
    parents: &ParentImages,
) -> Result<HarnessProcess, StillLauncher> {
    let argv = process.cmdline().ok();
    let parent = stat.as_ref().map(|stat| stat.parent);
    let image = process.executable().ok();
    let same_as_parent = || match (&image, parent.and_then(|p| parents.of(p))) {
        (Some(own), Some(parents)) => *own == parents,
        _ => false,
    };
    if is_launcher(image.as_deref(), argv.as_deref(), launcher) || same_as_parent() {
        // A pane's process between tmux's fork and its exec of the launcher
        // is still an image of its parent, the tmux server, and shows the
        // server's own environment: on a loaded machine a probe can land in
        // that gap, and reading it would report the server's environment as
        // the harness's.
        return Err(StillLauncher);
    }
    Ok(HarnessProcess {
        env: process.environ(),
        argv,
        start: stat.map(|stat| stat.start),
    })
}

/// A process already known by its argv to be a harness, beneath the shell
/// of a pane `import` adopted: no launcher check, since its parent is that
/// shell, whose image a harness run as a script shares.
pub fn read_recognised(pid: i32) -> HarnessProcess {
    match ProcessDir::open(pid) {
        Ok(process) => HarnessProcess {
            env: process.environ(),
            argv: process.cmdline().ok(),
            start: process.stat().map(|stat| stat.start),
        },
        Err(reason) => HarnessProcess::of_env(EnvRead::Unverified(reason)),
    }
}

/// `read_process_in`, with the launcher read as an unverified environment.
pub fn read_process_or_unverified(
    pid: i32,
    launcher: Option<&Path>,
    parents: &ParentImages,
) -> HarnessProcess {
    or_unverified(read_process_in(pid, launcher, parents))
}

/// `read_opened_process`, with the launcher read as an unverified
/// environment.
pub fn read_opened_or_unverified(
    process: &ProcessDir,
    stat: Option<ProcStat>,
    launcher: Option<&Path>,
    parents: &ParentImages,
) -> HarnessProcess {
    or_unverified(read_opened_process(process, stat, launcher, parents))
}

fn or_unverified(read: Result<HarnessProcess, StillLauncher>) -> HarnessProcess {
    read.unwrap_or_else(|StillLauncher| {
        HarnessProcess::of_env(EnvRead::Unverified(STILL_LAUNCHER.into()))
    })
}

/// The launcher is recognised by its image (this binary) or, when another
/// the-loop binary started the pane, by its argv shape (`… exec --config …`).
fn is_launcher(image: Option<&Path>, argv: Option<&[String]>, launcher: Option<&Path>) -> bool {
    let same_image = launcher.is_some_and(|l| image == Some(l));
    same_image
        || argv.is_some_and(|argv| {
            argv.get(1).map(String::as_str) == Some(crate::harness::LAUNCHER_SUBCOMMAND)
                && argv.get(2).map(String::as_str) == Some("--config")
        })
}

/// Fewer reads than this per thread are not worth a thread.
const READS_PER_THREAD: usize = 64;

/// Each `/proc` read costs tens of microseconds of kernel time (the
/// environment is copied out of the other process's memory), so hundreds of
/// sessions are split across the cores.
pub fn read_in_parallel<T: Send>(pids: &[i32], read: impl Fn(i32) -> T + Sync) -> BTreeMap<i32, T> {
    let reads = crate::parallel::map(pids, READS_PER_THREAD, |&pid| read(pid));
    pids.iter().copied().zip(reads).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallel_reads_cover_every_pid_once_with_its_own_result() {
        for count in [0, 1, READS_PER_THREAD, READS_PER_THREAD + 1, 1000] {
            let pids: Vec<i32> = (1..=count as i32).collect();
            let reads = read_in_parallel(&pids, |pid| EnvRead::Unverified(format!("pid {pid}")));
            assert_eq!(reads.len(), count);
            for pid in pids {
                assert_eq!(reads[&pid], EnvRead::Unverified(format!("pid {pid}")));
            }
        }
    }

    #[test]
    fn own_process_reads_environment_and_argv() {
        let me =
            read_process_or_unverified(std::process::id() as i32, None, &ParentImages::default());
        assert!(matches!(me.env, EnvRead::Read(_)));
        assert_eq!(me.argv, Some(std::env::args().collect::<Vec<_>>()));
        let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
        assert_eq!(
            me.start,
            crate::proc_env::ProcStat::parse(&stat).map(|s| s.start)
        );
        assert!(me.start.is_some_and(|ticks| ticks > 0));
    }

    /// A child forked and not yet exec'd (tmux's, before it runs the pane's
    /// command) is not read as a harness: a Python process forks one that
    /// sleeps on in its parent's image.
    #[test]
    fn a_child_not_yet_execd_is_not_read_as_a_harness() {
        let script = "import os, sys, time\npid = os.fork()\nif pid == 0:\n    time.sleep(30)\n    os._exit(0)\nprint(pid, flush=True)\ntime.sleep(30)\n";
        let mut parent = std::process::Command::new("python3")
            .args(["-c", script])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(parent.stdout.take().unwrap()),
            &mut line,
        )
        .unwrap();
        let child: i32 = line.trim().parse().unwrap();
        let read = read_process(child, None);
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(child),
            nix::sys::signal::Signal::SIGKILL,
        );
        let _ = parent.kill();
        let _ = parent.wait();
        assert_eq!(read.map(|_| ()), Err(StillLauncher));
        // The parent itself (python3 under this test binary) is read.
        assert!(read_process(std::process::id() as i32, None).is_ok());
    }
}
