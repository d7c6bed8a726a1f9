//! Reading a pane process's environment from `/proc/<pid>/environ`.
//!
//! Any failure (the pid exited, permission denied, an unsupported platform)
//! yields [`EnvRead::Unverified`] with a reason: never an error that stops a
//! plan, and never a guess.

use crate::secret::SecretValue;
use nix::errno::Errno;
use nix::fcntl::OFlag;
use nix::sys::stat::Mode;
use std::collections::BTreeMap;
use std::io::Read;
use std::os::fd::OwnedFd;
use std::path::PathBuf;

/// Environment of one process, values unprintable.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProcessEnv {
    vars: BTreeMap<String, SecretValue>,
}

impl ProcessEnv {
    pub fn from_pairs<K: Into<String>, V: Into<Vec<u8>>>(
        pairs: impl IntoIterator<Item = (K, V)>,
    ) -> Self {
        ProcessEnv {
            vars: pairs
                .into_iter()
                .map(|(k, v)| (k.into(), SecretValue::new(v)))
                .collect(),
        }
    }

    pub fn get(&self, name: &str) -> Option<&SecretValue> {
        self.vars.get(name)
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.vars.keys().map(String::as_str)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnvRead {
    Read(ProcessEnv),
    Unverified(String),
}

/// Where procfs is mounted. `THE_LOOP_PROC_ROOT` exists so tests can make an
/// environment unreadable without needing a second user.
fn proc_root() -> PathBuf {
    std::env::var_os("THE_LOOP_PROC_ROOT")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/proc"))
}

/// Bytes asked for per read of a `/proc` file.
const READ_CHUNK: usize = 16 * 1024;

/// One process's `/proc/<pid>` directory, held open. Every read through it
/// is of that process: once it exits, the handle goes stale rather than
/// pointing at a later process that reuses the pid. Opening it once also
/// spares a path walk per read, which counts when a plan reads hundreds.
pub struct ProcessDir {
    dir: OwnedFd,
}

impl ProcessDir {
    pub fn open(pid: i32) -> Result<Self, String> {
        if pid <= 0 {
            return Err("no pid".into());
        }
        let path = proc_root().join(pid.to_string());
        let flags = OFlag::O_PATH | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC;
        let dir = nix::fcntl::open(&path, flags, Mode::empty()).map_err(describe)?;
        Ok(ProcessDir { dir })
    }

    /// The executable the process runs (`exe`), to tell the launcher from
    /// the harness it becomes (same pid, different image after `execvp`).
    pub fn executable(&self) -> Result<PathBuf, String> {
        nix::fcntl::readlinkat(&self.dir, "exe")
            .map(PathBuf::from)
            .map_err(describe)
    }

    fn read(&self, name: &str) -> Result<Vec<u8>, String> {
        let fd = nix::fcntl::openat(
            &self.dir,
            name,
            OFlag::O_RDONLY | OFlag::O_CLOEXEC,
            Mode::empty(),
        )
        .map_err(describe)?;
        let mut file = std::fs::File::from(fd);
        // Each read of another process's environ locks and walks that
        // process's memory, so read in large pieces: one read for a
        // typical environment, and one more to see the end.
        let mut bytes = vec![0; READ_CHUNK];
        let mut len = 0;
        loop {
            if len == bytes.len() {
                bytes.resize(len + READ_CHUNK, 0);
            }
            match file.read(&mut bytes[len..]) {
                Ok(0) => break,
                Ok(n) => len += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(describe(Errno::from_raw(e.raw_os_error().unwrap_or(0)))),
            }
        }
        bytes.truncate(len);
        Ok(bytes)
    }

    /// The environment the process holds now.
    pub fn environ(&self) -> EnvRead {
        match self.read("environ") {
            Ok(bytes) => EnvRead::Read(parse_environ(&bytes)),
            Err(reason) => EnvRead::Unverified(reason),
        }
    }

    /// The process's argv.
    pub fn cmdline(&self) -> Result<Vec<String>, String> {
        let bytes = self.read("cmdline")?;
        Ok(bytes
            .split(|b| *b == 0)
            .filter(|arg| !arg.is_empty())
            .map(|arg| String::from_utf8_lossy(arg).into_owned())
            .collect())
    }
}

/// `NAME=VALUE` entries separated by NUL, split at the first `=`. Entries
/// without `=` and names that are not UTF-8 are dropped; a repeated name
/// keeps its last value, as `getenv` in the process would not, but as the
/// plan has always read it.
fn parse_environ(bytes: &[u8]) -> ProcessEnv {
    let pairs = bytes.split(|b| *b == 0).filter_map(|entry| {
        let eq = entry.iter().position(|b| *b == b'=')?;
        let name = std::str::from_utf8(&entry[..eq]).ok()?;
        Some((name, &entry[eq + 1..]))
    });
    ProcessEnv::from_pairs(pairs)
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
    let bytes = std::fs::read(proc_root().join(pid.to_string()).join("cmdline")).map_err(|e| {
        match e.kind() {
            std::io::ErrorKind::NotFound => "the process has exited".to_owned(),
            kind => format!("cannot read the process argv: {kind}"),
        }
    })?;
    Ok(bytes
        .split(|b| *b == 0)
        .filter(|a| !a.is_empty())
        .map(<[u8]>::to_vec)
        .collect())
}

fn describe(err: Errno) -> String {
    match err {
        Errno::EACCES | Errno::EPERM => "permission denied reading the process environment".into(),
        Errno::ENOENT | Errno::ESRCH => "the process has exited".into(),
        other => format!("cannot read the process environment: {}", other.desc()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn environ_entries_split_at_the_first_equals_sign() {
        let env = parse_environ(b"A=1\0B=x=y\0NOEQUALS\0\xff=bad-name\0EMPTY=\0A=2\0\0");
        let names: Vec<&str> = env.names().collect();
        assert_eq!(names, ["A", "B", "EMPTY"]);
        assert_eq!(env.get("A").unwrap().expose_bytes(), b"2");
        assert_eq!(env.get("B").unwrap().expose_bytes(), b"x=y");
        assert_eq!(env.get("EMPTY").unwrap().expose_bytes(), b"");
    }

    #[test]
    fn reads_own_executable_and_argv_through_one_handle() {
        let dir = ProcessDir::open(std::process::id() as i32).unwrap();
        assert_eq!(dir.executable().unwrap(), std::env::current_exe().unwrap());
        assert_eq!(dir.cmdline().unwrap(), std::env::args().collect::<Vec<_>>());
    }
}
