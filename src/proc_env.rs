//! Reading a pane process's environment from `/proc/<pid>/environ`.
//!
//! Any failure (the pid exited, permission denied, an unsupported platform)
//! yields [`EnvRead::Unverified`] with a reason: never an error that stops a
//! plan, and never a guess.

pub use crate::process_env::ProcessEnv;
use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnvRead {
    Read(ProcessEnv),
    Unverified(String),
}

/// The fields of `/proc/<pid>/stat` the-loop reads: one parser for the
/// hook's parent walk, the activity's pid-reuse guard and the zombie checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcStat {
    /// Field 3: `R`, `S`, `Z`, …
    pub state: char,
    /// Field 4.
    pub parent: i32,
    /// Field 22: clock ticks after boot, which with the pid names one
    /// process for the machine's uptime.
    pub start: u64,
}

impl ProcStat {
    /// Parses a `stat` line. The command name (field 2) may hold spaces and
    /// parentheses, so fields are counted after its last `)`.
    pub fn parse(line: &str) -> Option<ProcStat> {
        let (_, rest) = line.rsplit_once(')')?;
        // `fields` begins at field 3.
        let mut fields = rest.split_whitespace();
        Some(ProcStat {
            state: fields.next()?.chars().next()?,
            parent: fields.next()?.parse().ok()?,
            start: fields.nth(17)?.parse().ok()?,
        })
    }

    /// Parses a `stat` file's bytes as read.
    pub(crate) fn from_bytes(bytes: &[u8]) -> Option<ProcStat> {
        ProcStat::parse(std::str::from_utf8(bytes).ok()?)
    }

    /// Reads `<root>/<pid>/stat`.
    pub fn read(root: &std::path::Path, pid: i32) -> Option<ProcStat> {
        ProcStat::from_bytes(&read_stat_file(&root.join(pid.to_string()).join("stat")).ok()?)
    }

    pub fn is_zombie(&self) -> bool {
        self.state == 'Z'
    }
}

/// A first buffer for a `stat` or `cmdline`: one page holds either.
pub(crate) const LINE_BUFFER: usize = 4096;
/// A first buffer for an environment: most fit, a larger one grows it.
const ENVIRON_BUFFER: usize = 16 * 1024;

/// Reads a `/proc` file by path, whole ([`crate::fsutil::read_whole`]).
pub(crate) fn read_file(path: &std::path::Path, capacity: usize) -> std::io::Result<Vec<u8>> {
    crate::fsutil::read_whole(&std::fs::File::open(path)?, capacity)
}

/// A `stat` file by path, in one read ([`crate::fsutil::read_short_ends`]).
pub(crate) fn read_stat_file(path: &std::path::Path) -> std::io::Result<Vec<u8>> {
    crate::fsutil::read_short_ends(&std::fs::File::open(path)?, LINE_BUFFER, 0)
}

/// Where procfs is mounted. `THE_LOOP_PROC_ROOT` exists so tests can make an
/// environment unreadable without needing a second user; it is read once,
/// as a plan opens about a thousand process directories.
pub(crate) fn proc_root() -> &'static std::path::Path {
    static ROOT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    ROOT.get_or_init(|| {
        std::env::var_os("THE_LOOP_PROC_ROOT")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("/proc"))
    })
}

/// `<proc root>/<pid>`, built in one buffer.
pub(crate) fn pid_dir(pid: i32) -> PathBuf {
    let root = proc_root();
    let mut path = PathBuf::with_capacity(root.as_os_str().len() + 12);
    path.push(root);
    path.push(pid.to_string());
    path
}

/// One process's `/proc/<pid>` directory, held open by procfs. Every read
/// through it is of that process: once it exits, the handle goes stale
/// rather than pointing at a later process that reuses the pid. Opening it
/// once also spares a path walk per read, which counts when a plan reads
/// hundreds.
pub struct ProcessDir {
    process: procfs::process::Process,
}

impl ProcessDir {
    pub fn open(pid: i32) -> Result<Self, String> {
        if pid <= 0 {
            return Err("no pid".into());
        }
        procfs::process::Process::new_with_root(pid_dir(pid))
            .map(|process| ProcessDir { process })
            .map_err(describe)
    }

    /// The executable the process runs (`exe`), to tell the launcher from
    /// the harness it becomes (same pid, different image after `execvp`).
    pub fn executable(&self) -> Result<PathBuf, String> {
        self.process.exe().map_err(describe)
    }

    /// The environment the process holds now. Names that are not UTF-8
    /// cannot be declared in an env file, so they are dropped.
    pub fn environ(&self) -> EnvRead {
        match self.read("environ", ENVIRON_BUFFER) {
            Ok(bytes) => EnvRead::Read(ProcessEnv::from_environ(bytes)),
            Err(reason) => EnvRead::Unverified(reason),
        }
    }

    /// The process's argv (its non-empty arguments, as procfs gives them).
    pub fn cmdline(&self) -> Result<Vec<String>, String> {
        let bytes = self.read("cmdline", LINE_BUFFER)?;
        let text =
            String::from_utf8(bytes).map_err(|_| "the process argv is not UTF-8".to_owned())?;
        Ok(text
            .split('\0')
            .filter(|a| !a.is_empty())
            .map(str::to_owned)
            .collect())
    }

    /// The process's `stat` line, parsed by the one [`ProcStat`] parser.
    pub fn stat(&self) -> Option<ProcStat> {
        ProcStat::from_bytes(&self.stat_line().ok()?)
    }

    /// The process's `stat` line as the kernel writes it, in one read.
    pub fn stat_line(&self) -> Result<Vec<u8>, String> {
        let file = self.process.open_relative("stat").map_err(describe)?;
        crate::fsutil::read_short_ends(&file, LINE_BUFFER, 0).map_err(|e| describe_io(&e))
    }

    /// `environ` or `cmdline`, read to its first short read
    /// ([`crate::fsutil::read_short_ends`]). The kernel copies either out
    /// of the other process's memory a page at a time, but within one
    /// `read`: it loops until the buffer is full or the area ends. A read
    /// that returns less than was asked has therefore reached the end (or
    /// memory it cannot read, where another read gets no more), and the
    /// second read that would return nothing is saved: 1,000 calls in a
    /// plan of 500. `reads_a_process_environment_and_argv_of_many_pages`
    /// holds this to areas larger than a page and than the first buffer.
    fn read(&self, name: &str, capacity: usize) -> Result<Vec<u8>, String> {
        let file = self.process.open_relative(name).map_err(describe)?;
        crate::fsutil::read_short_ends(&file, capacity, 0).map_err(|e| describe_io(&e))
    }

    /// The handle itself, for a fact about the process that has no reader
    /// here yet (`cwd`, `status`, …): reading it through this handle keeps
    /// it about the same process as the environment and argv.
    pub fn procfs(&self) -> &procfs::process::Process {
        &self.process
    }
}

/// Reads the environment a process holds now.
pub fn read_environ(pid: i32) -> EnvRead {
    if !cfg!(target_os = "linux") {
        return EnvRead::Unverified(
            "reading another process's environment is not supported on this platform".into(),
        );
    }
    match ProcessDir::open(pid) {
        Ok(dir) => dir.environ(),
        Err(reason) => EnvRead::Unverified(reason),
    }
}

/// The executable a process runs.
pub fn executable(pid: i32) -> Result<PathBuf, String> {
    ProcessDir::open(pid)?.executable()
}

/// The process's argv, for checking what a relaunch really runs.
pub fn cmdline(pid: i32) -> Result<Vec<String>, String> {
    ProcessDir::open(pid)?.cmdline()
}

/// The process's argv as raw bytes, for arguments that may hold a value
/// (the tmux server keeps its first client's argv).
pub fn cmdline_bytes(pid: i32) -> Result<Vec<Vec<u8>>, String> {
    if pid <= 0 {
        return Err("no pid".into());
    }
    let bytes =
        read_file(&pid_dir(pid).join("cmdline"), LINE_BUFFER).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => "the process has exited".to_owned(),
            kind => format!("cannot read the process argv: {kind}"),
        })?;
    Ok(bytes
        .split(|b| *b == 0)
        .filter(|a| !a.is_empty())
        .map(<[u8]>::to_vec)
        .collect())
}

/// At most this many children are read of one process: a harness has a
/// handful (its tools, hooks and servers); past it, the rest are not read.
const CHILDREN_READ: usize = 256;

/// The argv of each child process of `pid`, from every thread's
/// `children` list (a runtime may spawn from any of its threads). A child
/// that exits meanwhile is left out; nothing read is an empty list.
pub fn children_argv(pid: i32) -> Vec<Vec<String>> {
    if pid <= 0 {
        return Vec::new();
    }
    let Ok(threads) = std::fs::read_dir(pid_dir(pid).join("task")) else {
        return Vec::new();
    };
    let mut children: Vec<i32> = threads
        .flatten()
        .filter_map(|thread| read_file(&thread.path().join("children"), LINE_BUFFER).ok())
        .flat_map(|list| {
            String::from_utf8_lossy(&list)
                .split_whitespace()
                .filter_map(|pid| pid.parse().ok())
                .collect::<Vec<i32>>()
        })
        .collect();
    children.sort_unstable();
    children.dedup();
    children
        .into_iter()
        .take(CHILDREN_READ)
        .filter_map(|child| cmdline(child).ok())
        .collect()
}

/// A read that failed after the open: the process exited in between
/// (`ESRCH`), or anything else, by its kind.
fn describe_io(err: &std::io::Error) -> String {
    match (err.kind(), err.raw_os_error()) {
        (std::io::ErrorKind::PermissionDenied, _) => {
            "permission denied reading the process environment".into()
        }
        (std::io::ErrorKind::NotFound, _) | (_, Some(nix::libc::ESRCH)) => {
            "the process has exited".into()
        }
        (kind, _) => format!("cannot read the process environment: {kind}"),
    }
}

fn describe(err: procfs::ProcError) -> String {
    match err {
        procfs::ProcError::PermissionDenied(_) => {
            "permission denied reading the process environment".into()
        }
        procfs::ProcError::NotFound(_) => "the process has exited".into(),
        procfs::ProcError::Io(e, _) => format!("cannot read the process environment: {}", e.kind()),
        procfs::ProcError::Incomplete(_) => "the process environment was incomplete".into(),
        procfs::ProcError::InternalError(_) => "procfs internal error".into(),
        procfs::ProcError::Other(_) => "cannot read the process environment".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_line_is_read_after_the_last_parenthesis() {
        // A command name with a space and a `)` in it, as `comm` allows.
        let line = "42 (a) b) Z 7 42 42 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 987654 0 0";
        let stat = ProcStat::parse(line).unwrap();
        assert_eq!((stat.state, stat.parent, stat.start), ('Z', 7, 987654));
        assert!(stat.is_zombie());
        assert_eq!(ProcStat::parse("42 (short) S 1"), None);
    }

    /// procfs's own reader is the oracle for the environment and argv read
    /// here without it.
    #[test]
    fn own_environment_and_argv_read_as_procfs_reads_them() {
        let me = procfs::process::Process::myself().unwrap();
        let oracle =
            ProcessEnv::from_pairs(me.environ().unwrap().into_iter().filter_map(|(k, v)| {
                Some((
                    k.into_string().ok()?,
                    std::os::unix::ffi::OsStringExt::into_vec(v),
                ))
            }));
        let dir = ProcessDir::open(std::process::id() as i32).unwrap();
        assert_eq!(dir.environ(), EnvRead::Read(oracle));
        assert_eq!(dir.cmdline().unwrap(), me.cmdline().unwrap());
        let stat = dir.stat().unwrap();
        assert_eq!(stat.parent, me.stat().unwrap().ppid);
        assert_eq!(stat.start, me.stat().unwrap().starttime);
    }

    /// Areas of several pages, larger than the first buffers: each read
    /// fills the buffer whole until the last, so the read ending at a short
    /// one still gets every byte. procfs's reader is the oracle.
    #[test]
    fn reads_a_process_environment_and_argv_of_many_pages() {
        // `sleep` adds up its operands: zeros of any length are 0 s.
        let zeros = |n: usize| "0".repeat(n);
        let mut child = std::process::Command::new("sleep")
            .args(["30".to_owned(), zeros(3000), zeros(5000), zeros(9000)])
            .env("THE_LOOP_TEST_LONG_1", "x".repeat(20_000))
            .env("THE_LOOP_TEST_LONG_2", "y".repeat(30_000))
            .spawn()
            .unwrap();
        let pid = child.id() as i32;
        let dir = ProcessDir::open(pid).unwrap();
        // Until it has exec'd, the child is a copy of this test.
        let mut argv = dir.cmdline().unwrap();
        for _ in 0..400 {
            if argv.first().map(String::as_str) == Some("sleep") {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
            argv = dir.cmdline().unwrap();
        }
        let env = dir.environ();
        let oracle = procfs::process::Process::new(pid).unwrap();
        let (oracle_env, oracle_argv) = (oracle.environ().unwrap(), oracle.cmdline().unwrap());
        let _ = child.kill();
        let _ = child.wait();
        assert_eq!(argv, oracle_argv);
        let lengths: Vec<usize> = argv.iter().map(String::len).collect();
        assert_eq!(lengths, [5, 2, 3000, 5000, 9000]);
        let oracle_env = ProcessEnv::from_pairs(oracle_env.into_iter().filter_map(|(k, v)| {
            Some((
                k.into_string().ok()?,
                std::os::unix::ffi::OsStringExt::into_vec(v),
            ))
        }));
        assert_eq!(env, EnvRead::Read(oracle_env));
        let EnvRead::Read(env) = env else {
            unreachable!()
        };
        assert!(env.names().any(|n| n == "THE_LOOP_TEST_LONG_2"));
    }

    #[test]
    fn reads_own_environment() {
        let me = std::process::id() as i32;
        match read_environ(me) {
            EnvRead::Read(env) => assert!(env.get("PATH").is_some() || env.names().count() > 0),
            EnvRead::Unverified(reason) => panic!("own environ unreadable: {reason}"),
        }
    }

    #[test]
    fn exited_or_invalid_pid_is_unverified() {
        assert!(matches!(read_environ(0), EnvRead::Unverified(_)));
        assert!(matches!(read_environ(-5), EnvRead::Unverified(_)));
        assert!(matches!(read_environ(i32::MAX), EnvRead::Unverified(_)));
    }

    #[test]
    fn reads_own_executable_and_argv_through_one_handle() {
        let dir = ProcessDir::open(std::process::id() as i32).unwrap();
        assert_eq!(dir.executable().unwrap(), std::env::current_exe().unwrap());
        assert_eq!(dir.cmdline().unwrap(), std::env::args().collect::<Vec<_>>());
    }
}
