//! The activity files: `<state root>/activity/<pid>.jsonl`, one per harness
//! process, one [`HookRecord`] per line.
//!
//! One file per process rather than one shared log, so the hook never
//! waits for a lock: each harness appends to its own file, and a line is
//! one `write` far below `PIPE_BUF`, so even two hooks of one harness firing
//! at once (Claude Code runs hooks in parallel) cannot interleave.
//! Reading the sessions' activity is then one small file per live harness.

use super::{derive, HarnessActivity, HookRecord};
use crate::proc_env::{proc_root, ProcStat};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The directory under the state root.
pub const DIR: &str = "activity";

/// A file past this size is started over by the next hook: a process that
/// has recorded thousands of events loses at most the start time of a turn
/// that outlived them, never its current state.
pub const MAX_FILE_BYTES: u64 = 256 * 1024;

/// A directory holding more entries than this is not swept by the hook (it
/// would cost the harness time); the-loop's own reads still bound their work
/// by what they look up.
const SWEEP_LIMIT: usize = 4096;

pub fn dir(state_root: &Path) -> PathBuf {
    state_root.join(DIR)
}

fn file_for(dir: &Path, pid: i32) -> PathBuf {
    dir.join(format!("{pid}.jsonl"))
}

fn pid_of(name: &std::ffi::OsStr) -> Option<i32> {
    let pid: i32 = name.to_str()?.strip_suffix(".jsonl")?.parse().ok()?;
    (pid > 0).then_some(pid)
}

/// Appends one record to its process's file, creating the directory and
/// the file (0600) as needed.
pub fn append(dir: &Path, record: &HookRecord) -> std::io::Result<()> {
    let path = file_for(dir, record.pid);
    let mut line = serde_json::to_vec(record).map_err(std::io::Error::other)?;
    line.push(b'\n');
    let mut file = crate::fsutil::open_append(&path, 0o600)?;
    if file.metadata()?.len() > MAX_FILE_BYTES {
        file.set_len(0)?;
    }
    file.write_all(&line)
}

/// The hook's debug log: one line per event it could not file under a
/// harness, and why. Not a `<pid>.jsonl` name, so readers and the sweep
/// pass over it.
pub const UNFILED_LOG: &str = "unfiled.log";

/// Past this size the debug log is started over: it is for a person
/// looking into a session that reads `unknown`, not a history.
const UNFILED_LOG_MAX_BYTES: u64 = 64 * 1024;

/// Notes in the debug log that an event was filed under no harness. Best
/// effort: the hook must never fail its harness. The line holds the time,
/// the event's name and the reason, never anything from the hook's input.
pub fn note_unfiled(dir: &Path, at_ms: u64, event: super::HookEvent, why: &dyn std::fmt::Display) {
    let path = dir.join(UNFILED_LOG);
    let line = format!(
        "{} {} filed under no harness: {why}\n",
        crate::clock::format_utc(at_ms / 1000),
        event.name()
    );
    if let Ok(mut file) = crate::fsutil::open_append(&path, 0o600) {
        if file
            .metadata()
            .is_ok_and(|m| m.len() > UNFILED_LOG_MAX_BYTES)
        {
            let _ = file.set_len(0);
        }
        let _ = file.write_all(line.as_bytes());
    }
}

/// Parses one file's lines; a line that does not parse (a torn write, a
/// future format) is skipped, not fatal.
pub fn parse(bytes: &[u8]) -> Vec<HookRecord> {
    bytes
        .split(|b| *b == b'\n')
        .filter(|line| !line.is_empty())
        .filter_map(|line| serde_json::from_slice(line).ok())
        .collect()
}

/// Derives one process's activity from its file's records: those of the
/// newest process recorded under that pid (the last line's start time).
fn activity_of(pid: i32, records: &[HookRecord]) -> Option<HarnessActivity> {
    let start = records.iter().rev().find(|r| r.pid == pid)?.start;
    Some(derive(pid, start, records))
}

/// Every recorded harness process's activity, by pid, from one directory
/// read. A missing directory is an empty map: no harness has called a hook.
///
/// A pid's entry is for the newest process recorded under it; a caller that
/// must not mistake a reused pid compares [`HarnessActivity::start`] with
/// [`process_start`] of the live process.
pub fn read_all(state_root: &Path) -> BTreeMap<i32, HarnessActivity> {
    let dir = dir(state_root);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return BTreeMap::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let pid = pid_of(&entry.file_name())?;
            read_file(&entry.path(), pid).map(|a| (pid, a))
        })
        .collect()
}

/// One activity file, as the records of the newest process under `pid`.
/// Only its tail is read ([`crate::bounded_read::ACTIVITY_TAIL`]), never a
/// FIFO or a link: the newest records are all that is needed of it.
fn read_file(path: &Path, pid: i32) -> Option<HarnessActivity> {
    let bytes = crate::bounded_read::read_tail(path, &crate::bounded_read::ACTIVITY_TAIL).ok()?;
    activity_of(pid, &parse(&bytes))
}

// A file the hook wrote (started over past `MAX_FILE_BYTES`, plus one
// line) fits the tail that is read whole.
const _: () = assert!(MAX_FILE_BYTES + 4096 <= crate::bounded_read::ACTIVITY_TAIL.cap);

/// What the live process `pid` is doing, from a [`read_all`] map: `Unknown`
/// when it recorded nothing, or when the records under its pid are an
/// earlier process's (the pid was reused, so they say nothing about it).
pub fn live_activity(all: &BTreeMap<i32, HarnessActivity>, pid: i32) -> super::Activity {
    match all.get(&pid) {
        Some(a) if process_start(pid) == Some(a.start) => a.activity,
        _ => super::Activity::Unknown,
    }
}

/// The activity of each of `pids` that is a live process which recorded
/// hooks, reading only those pids' files: files of processes that have
/// ended since the last sweep cost nothing here. A pid whose records are an
/// earlier process's (the pid was reused) is left out: nothing is known of it.
pub fn live_activities(
    state_root: &Path,
    pids: impl IntoIterator<Item = i32>,
) -> BTreeMap<i32, HarnessActivity> {
    live_activities_of(state_root, pids.into_iter().map(|pid| (pid, None)))
}

/// [`live_activities`], for pids whose start time the caller already read
/// (the observation reads it with the harness's environment, through the
/// same `/proc/<pid>` handle): the records are matched against THAT
/// process, not against whatever holds the pid a moment later. A pid with
/// no start time given is read here.
pub fn live_activities_of(
    state_root: &Path,
    pids: impl IntoIterator<Item = (i32, Option<u64>)>,
) -> BTreeMap<i32, HarnessActivity> {
    let dir = dir(state_root);
    let pids: Vec<(i32, Option<u64>)> = pids.into_iter().collect();
    // A file each: split across the cores, as the plan's other reads are.
    crate::parallel::map(&pids, FILES_PER_THREAD, |&(pid, start)| {
        let found = read_file(&file_for(&dir, pid), pid)?;
        let start = start.or_else(|| process_start(pid));
        (start == Some(found.start)).then_some((pid, found))
    })
    .into_iter()
    .flatten()
    .collect()
}

/// Fewer activity files than this are not worth a thread.
const FILES_PER_THREAD: usize = 64;

/// Removes the file of a harness the caller has just ended (`start`: its
/// start time, read before the signal), so a roll leaves one file per live
/// harness without waiting for the next sweep. A file whose newest records
/// are another process's (the pid was reused meanwhile) is kept.
pub fn forget(state_root: &Path, pid: i32, start: u64) {
    let path = file_for(&dir(state_root), pid);
    if read_file(&path, pid).is_some_and(|a| a.start == start) {
        let _ = std::fs::remove_file(path);
    }
}

/// One process's activity; `Unknown` when it recorded nothing.
pub fn read_one(state_root: &Path, pid: i32) -> HarnessActivity {
    read_file(&file_for(&dir(state_root), pid), pid)
        .unwrap_or_else(|| HarnessActivity::unknown(pid))
}

/// A process's start time in clock ticks after boot (`/proc/<pid>/stat`
/// field 22), which with the pid names one process for the machine's uptime.
pub fn process_start(pid: i32) -> Option<u64> {
    ProcStat::read(proc_root(), pid).map(|stat| stat.start)
}

/// Field 22 of a `stat` line.
pub fn parse_start(stat: &str) -> Option<u64> {
    ProcStat::parse(stat).map(|stat| stat.start)
}

/// A process's parent pid, from its `stat`.
pub fn parent_of(pid: i32) -> Option<i32> {
    ProcStat::read(proc_root(), pid).map(|stat| stat.parent)
}

/// How often, at most, a hook sweeps one directory. A sweep reads every
/// file and every file's process (about 20 ms of CPU at 500 harnesses), so
/// one per harness start made a roll of N sessions cost N sweeps of N
/// files: about 10 s of CPU at 500, on the cores the new harnesses start on.
pub const SWEEP_EVERY_SECS: u64 = 60;

/// Names `.swept-<interval>`: the claim of one interval's sweep. Not a
/// `<pid>.jsonl` name, so readers pass over it.
const CLAIM_PREFIX: &str = ".swept-";

/// Whether the caller is the one to sweep `dir` in the interval holding
/// `now_secs` (seconds since the epoch): the first to create that
/// interval's claim file. Nobody waits: a hook that finds the claim made
/// goes on at once. Earlier intervals' claims are removed by [`sweep`].
pub fn claim_sweep(dir: &Path, now_secs: u64) -> bool {
    let claim = dir.join(claim_name(now_secs));
    std::os::unix::fs::OpenOptionsExt::mode(
        std::fs::OpenOptions::new().write(true).create_new(true),
        0o600,
    )
    .open(claim)
    .is_ok()
}

/// The claim file's name for the interval holding `now_secs`.
fn claim_name(now_secs: u64) -> String {
    format!("{CLAIM_PREFIX}{}", now_secs / SWEEP_EVERY_SECS)
}

/// Removes the files of processes that no longer run, so the directory
/// holds about one file per live harness, and claims of intervals before
/// `now_secs`'s. Best effort and bounded: the hook calls it at a harness's
/// start (once per [`SWEEP_EVERY_SECS`]), where a slow sweep would delay
/// the prompt.
pub fn sweep(dir: &Path, now_secs: u64) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let current_claim = claim_name(now_secs);
    for entry in entries.flatten().take(SWEEP_LIMIT) {
        let name = entry.file_name();
        if name
            .to_str()
            .is_some_and(|n| n.starts_with(CLAIM_PREFIX) && n != current_claim)
        {
            let _ = std::fs::remove_file(entry.path());
            continue;
        }
        let Some(pid) = pid_of(&name) else {
            continue;
        };
        let running = match process_start(pid) {
            None => false,
            Some(now) => read_file(&entry.path(), pid).is_none_or(|a| a.start == now),
        };
        if !running {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::activity::{Activity, HookEvent, StartSource};

    fn rec(pid: i32, start: u64, event: HookEvent, at_ms: u64) -> HookRecord {
        HookRecord {
            event,
            at_ms,
            session_id: "abc".into(),
            source: (event == HookEvent::SessionStart).then_some(StartSource::Resume),
            reason: None,
            pid,
            start,
        }
    }

    #[test]
    fn stat_fields_after_a_strange_command_name() {
        let stat = "4242 (we ird) (x) S 4000 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 3 0 987654 1000 200";
        assert_eq!(parse_start(stat), Some(987654));
        assert_eq!(parse_start("garbage"), None);
        let own = process_start(std::process::id() as i32);
        assert!(own.is_some_and(|t| t > 0));
        let ppid = parent_of(std::process::id() as i32).unwrap();
        assert_eq!(ppid, nix::unistd::getppid().as_raw());
    }

    #[test]
    fn written_records_read_back_per_process() {
        let root = tempfile::tempdir().unwrap();
        let dir = dir(root.path());
        assert!(read_all(root.path()).is_empty());
        append(&dir, &rec(10, 5, HookEvent::SessionStart, 1)).unwrap();
        append(&dir, &rec(10, 5, HookEvent::UserPromptSubmit, 2)).unwrap();
        append(&dir, &rec(11, 6, HookEvent::SessionStart, 3)).unwrap();
        std::fs::write(dir.join("junk.txt"), "x").unwrap();
        std::fs::write(dir.join("12.jsonl"), "{not json\n").unwrap();
        let all = read_all(root.path());
        assert_eq!(all.keys().copied().collect::<Vec<_>>(), vec![10, 11]);
        assert_eq!(all[&10].activity, Activity::Busy);
        assert_eq!(all[&10].busy_since_ms(), Some(2));
        assert_eq!(all[&11].activity, Activity::Idle);
        assert!(all[&11].confirmed_resume("abc"));
        assert_eq!(read_one(root.path(), 99).activity, Activity::Unknown);
        assert_eq!(read_one(root.path(), 10), all[&10]);
        let mode = std::fs::metadata(dir.join("10.jsonl")).unwrap();
        assert_eq!(
            std::os::unix::fs::PermissionsExt::mode(&mode.permissions()) & 0o777,
            0o600
        );
    }

    #[test]
    fn a_reused_pid_reads_as_its_newest_process() {
        let root = tempfile::tempdir().unwrap();
        let dir = dir(root.path());
        append(&dir, &rec(10, 5, HookEvent::SessionStart, 1)).unwrap();
        append(&dir, &rec(10, 5, HookEvent::UserPromptSubmit, 2)).unwrap();
        append(&dir, &rec(10, 9, HookEvent::Stop, 3)).unwrap();
        let a = read_one(root.path(), 10);
        assert_eq!((a.start, a.activity), (9, Activity::Idle));
        assert!(
            !a.confirmed_resume("abc"),
            "the resume was the old process's"
        );
    }

    #[test]
    fn a_start_time_read_with_the_environment_is_the_one_compared() {
        let root = tempfile::tempdir().unwrap();
        let dir = dir(root.path());
        // Pids far above pid_max: nothing runs there, so only the start
        // time given can make their records count.
        let (a, b, c) = (i32::MAX - 3, i32::MAX - 4, i32::MAX - 5);
        for pid in [a, b, c] {
            append(&dir, &rec(pid, 7, HookEvent::Stop, 1)).unwrap();
        }
        let live = live_activities_of(root.path(), [(a, Some(7)), (b, Some(8)), (c, None)]);
        assert_eq!(live.keys().copied().collect::<Vec<_>>(), vec![a]);
        assert_eq!(live[&a].activity, Activity::Idle);
    }

    #[test]
    fn the_sweep_keeps_only_live_processes() {
        let root = tempfile::tempdir().unwrap();
        let dir = dir(root.path());
        let me = std::process::id() as i32;
        let start = process_start(me).unwrap();
        append(&dir, &rec(me, start, HookEvent::SessionStart, 1)).unwrap();
        // A pid far above pid_max never runs; the second has our pid but
        // another start time: a process that has gone.
        append(&dir, &rec(i32::MAX - 1, 1, HookEvent::SessionStart, 1)).unwrap();
        std::fs::write(
            dir.join("1.jsonl"),
            serde_json::to_vec(&rec(1, start + 1_000_000_000, HookEvent::Stop, 1)).unwrap(),
        )
        .unwrap();
        sweep(&dir, 0);
        let left: Vec<i32> = read_all(root.path()).into_keys().collect();
        assert_eq!(left, vec![me]);
    }

    #[test]
    fn one_hook_per_interval_sweeps_and_the_old_claim_goes() {
        let root = tempfile::tempdir().unwrap();
        let dir = dir(root.path());
        std::fs::create_dir_all(&dir).unwrap();
        let t = 1_000 * SWEEP_EVERY_SECS;
        assert!(claim_sweep(&dir, t), "the first hook of an interval sweeps");
        assert!(!claim_sweep(&dir, t), "the next one does not");
        assert!(
            !claim_sweep(&dir, t + SWEEP_EVERY_SECS - 1),
            "nor any in that interval"
        );
        let later = t + SWEEP_EVERY_SECS;
        assert!(
            claim_sweep(&dir, later),
            "the next interval's first one does"
        );
        sweep(&dir, later);
        let names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, vec![format!(".swept-{}", later / SWEEP_EVERY_SECS)]);
        assert!(
            read_all(root.path()).is_empty(),
            "a claim is no process's file"
        );
    }

    #[test]
    fn an_ended_harness_is_forgotten_unless_its_pid_was_reused() {
        let root = tempfile::tempdir().unwrap();
        let dir = dir(root.path());
        append(&dir, &rec(10, 5, HookEvent::SessionStart, 1)).unwrap();
        append(&dir, &rec(11, 5, HookEvent::SessionStart, 1)).unwrap();
        append(&dir, &rec(11, 8, HookEvent::SessionStart, 2)).unwrap();
        forget(root.path(), 10, 5);
        forget(root.path(), 11, 5);
        forget(root.path(), 12, 5);
        let left: Vec<i32> = read_all(root.path()).into_keys().collect();
        assert_eq!(left, vec![11], "pid 11 now names a newer process");
    }

    #[test]
    fn a_full_file_starts_over() {
        let root = tempfile::tempdir().unwrap();
        let dir = dir(root.path());
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("10.jsonl"),
            vec![b'\n'; MAX_FILE_BYTES as usize + 1],
        )
        .unwrap();
        append(&dir, &rec(10, 5, HookEvent::Stop, 1)).unwrap();
        let len = std::fs::metadata(dir.join("10.jsonl")).unwrap().len();
        assert!(len < 1024, "{len}");
        assert_eq!(read_one(root.path(), 10).activity, Activity::Idle);
    }
}
