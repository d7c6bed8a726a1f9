//! Reading a pane process's environment from `/proc/<pid>/environ`.
//!
//! Any failure (the pid exited, permission denied, an unsupported platform)
//! yields [`EnvRead::Unverified`] with a reason: never an error that stops a
//! plan, and never a guess.

use crate::secret::SecretValue;
use std::collections::BTreeMap;
use std::os::unix::ffi::OsStrExt;
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

fn process(pid: i32) -> Result<procfs::process::Process, String> {
    if pid <= 0 {
        return Err("no pid".into());
    }
    procfs::process::Process::new_with_root(proc_root().join(pid.to_string())).map_err(describe)
}

/// Reads the environment a process holds now.
pub fn read_environ(pid: i32) -> EnvRead {
    if !cfg!(target_os = "linux") {
        return EnvRead::Unverified(
            "reading another process's environment is not supported on this platform".into(),
        );
    }
    let environ = match process(pid).and_then(|p| p.environ().map_err(describe)) {
        Ok(environ) => environ,
        Err(reason) => return EnvRead::Unverified(reason),
    };
    let pairs = environ
        .into_iter()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.as_bytes().to_vec())));
    EnvRead::Read(ProcessEnv::from_pairs(pairs))
}

/// The executable a process runs, to tell the launcher from the harness it
/// becomes (same pid, different image after `execvp`).
pub fn executable(pid: i32) -> Result<PathBuf, String> {
    process(pid).and_then(|p| p.exe().map_err(describe))
}

/// The process's argv, for checking what a relaunch really runs.
pub fn cmdline(pid: i32) -> Result<Vec<String>, String> {
    process(pid).and_then(|p| p.cmdline().map_err(describe))
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
}
