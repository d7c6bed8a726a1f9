//! Can the new launch start? Asked before any signal to a harness and before
//! any spawn, by every path that ends or starts one (a roll, a delivery's
//! respawn, a first start). A roll that ends a harness whose replacement
//! cannot exec leaves a dead pane, and the next run takes the next live
//! session as its canary: so nothing is signalled until the launcher's exec
//! is known to be possible.
//!
//! What the kernel and the launcher need: every value can be a C string (no
//! NUL), every string fits `MAX_ARG_STRLEN`, argv plus environment fit
//! `ARG_MAX`, the harness binary resolves on the PATH the new process will
//! hold, and the working directory is a directory. Errors name variables,
//! never their values.

use crate::desired::policy::DesiredEnv;
use crate::observed::ProcessEnv;
use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

/// Linux's limit on one argv or environment string, its NUL included
/// (`MAX_ARG_STRLEN`, 32 pages).
pub const MAX_ARG_STRLEN: usize = 131_072;

/// The PATH `execvp` searches when the environment holds none (glibc).
const DEFAULT_PATH: &str = "/bin:/usr/bin";

/// One launch as the launcher will exec it.
pub struct Prelaunch<'a> {
    /// The harness's name (`claude`, `codex`): the key under
    /// `routing.harnessBinary` that sets its binary.
    pub harness: &'a str,
    /// `claude`, or the configured override.
    pub harness_binary: &'a OsStr,
    /// The harness argv after the binary, boot prompt included.
    pub harness_args: &'a [OsString],
    pub cwd: &'a Path,
    pub desired: &'a DesiredEnv,
    /// The environment the new process starts from, before the desired
    /// environment is applied over it.
    pub base: Vec<(OsString, OsString)>,
}

/// Why the launch cannot start. Names and sizes only, never a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unlaunchable {
    CwdNotDirectory {
        cwd: PathBuf,
    },
    NulInValue {
        name: String,
    },
    ValueTooLong {
        name: String,
        bytes: usize,
    },
    ArgumentTooLong {
        position: usize,
        bytes: usize,
    },
    NulInArgument {
        position: usize,
    },
    OverExecLimit {
        bytes: usize,
        limit: usize,
    },
    HarnessNotFound {
        binary: PathBuf,
        path: PathOrigin,
        /// The harness's name, for the config key that sets the binary.
        harness: String,
    },
    /// Another live process already holds the conversation this launch
    /// would resume or name ([`super::conversation_holder`]).
    ConversationHeld {
        conversation: String,
        holders: Vec<super::conversation_holder::Holder>,
    },
}

/// Where the PATH searched for the harness came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathOrigin {
    /// The env file delivers PATH.
    Delivered,
    /// Inherited: the session's own environment.
    Session,
    /// No PATH at all: execvp's default.
    Default,
    /// The binary is a path, so no search happens.
    NotSearched,
}

impl fmt::Display for Unlaunchable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::CwdNotDirectory { cwd } => {
                write!(f, "the working directory {} is not a directory", cwd.display())
            }
            Self::NulInValue { name } => write!(
                f,
                "the value of {name} holds a NUL byte, which no process environment can carry"
            ),
            Self::ValueTooLong { name, bytes } => write!(
                f,
                "{name} is {bytes} bytes with its name, over the exec limit of {MAX_ARG_STRLEN} per variable"
            ),
            Self::ArgumentTooLong { position, bytes } => write!(
                f,
                "harness argument {position} is {bytes} bytes, over the exec limit of {MAX_ARG_STRLEN} per argument"
            ),
            Self::NulInArgument { position } => {
                write!(f, "harness argument {position} holds a NUL byte")
            }
            Self::OverExecLimit { bytes, limit } => write!(
                f,
                "the harness's argv and environment would take {bytes} bytes, over the exec limit (ARG_MAX) of {limit}"
            ),
            Self::HarnessNotFound {
                binary,
                path,
                harness,
            } => {
                let searched = match path {
                    PathOrigin::Delivered => " on the PATH the env file delivers",
                    PathOrigin::Session => " on the session's PATH",
                    PathOrigin::Default => " on the default PATH (the session would hold none)",
                    PathOrigin::NotSearched => "",
                };
                write!(
                    f,
                    "the harness {} is not an executable file{searched} (routing.harnessBinary.{harness} sets it): install it there, or set that key to the executable's full path",
                    binary.display()
                )
            }
            Self::ConversationHeld {
                conversation,
                holders,
            } => {
                let who: Vec<String> = holders.iter().map(|h| h.to_string()).collect();
                write!(
                    f,
                    "conversation {conversation} is already held by a live harness ({}); a second one would interleave its transcript (a renamed or moved tmux session keeps its harness: find it there, or end it first)",
                    who.join(", ")
                )
            }
        }
    }
}

impl std::error::Error for Unlaunchable {}

/// A process environment as pairs: the base of a respawn in place, whose
/// pane is the session's own.
pub fn base_of(env: &ProcessEnv) -> Vec<(OsString, OsString)> {
    env.names()
        .filter_map(|name| {
            let value = env.get(name)?;
            Some((
                OsString::from(name),
                OsStr::from_bytes(value.expose_bytes()).to_owned(),
            ))
        })
        .collect()
}

/// Our own environment plus what is passed through: the base of a new
/// session, whose pane inherits from the tmux server and the client.
pub fn base_of_caller(passthrough: &[(String, String)]) -> Vec<(OsString, OsString)> {
    let mut base: Vec<(OsString, OsString)> = std::env::vars_os().collect();
    base.extend(
        passthrough
            .iter()
            .map(|(n, v)| (OsString::from(n), OsString::from(v))),
    );
    base
}

/// The one check. `Ok` means the exec the launcher will make can succeed as
/// far as can be known before it runs.
pub fn check(launch: &Prelaunch) -> Result<(), Unlaunchable> {
    if !launch.cwd.is_dir() {
        return Err(Unlaunchable::CwdNotDirectory {
            cwd: launch.cwd.to_owned(),
        });
    }
    let env = final_env(launch)?;
    let mut total: usize = 0;
    for (name, value) in &env {
        // "NAME=VALUE\0", plus the pointer to it in envp.
        let bytes = name.len().saturating_add(value.len()).saturating_add(2);
        if bytes > MAX_ARG_STRLEN {
            return Err(Unlaunchable::ValueTooLong {
                name: name.to_string_lossy().into_owned(),
                bytes,
            });
        }
        total = total.saturating_add(bytes).saturating_add(POINTER);
    }
    let argv = std::iter::once(launch.harness_binary)
        .chain(launch.harness_args.iter().map(|a| a.as_os_str()));
    for (position, arg) in argv.enumerate() {
        if arg.as_bytes().contains(&0) {
            return Err(Unlaunchable::NulInArgument { position });
        }
        let bytes = arg.len().saturating_add(1);
        if bytes > MAX_ARG_STRLEN {
            return Err(Unlaunchable::ArgumentTooLong { position, bytes });
        }
        total = total.saturating_add(bytes).saturating_add(POINTER);
    }
    let limit = arg_max();
    if total > limit {
        return Err(Unlaunchable::OverExecLimit {
            bytes: total,
            limit,
        });
    }
    resolve_harness(launch, &env)
}

const POINTER: usize = size_of::<usize>();

/// The base with withheld names removed and desired ones set, as the
/// launcher's `apply_to` does. Desired values are checked for NUL here,
/// where the name is still known.
fn final_env(launch: &Prelaunch) -> Result<BTreeMap<OsString, OsString>, Unlaunchable> {
    let mut env: BTreeMap<OsString, OsString> = launch.base.iter().cloned().collect();
    for name in &launch.desired.withheld {
        env.remove(OsStr::new(name));
    }
    for (name, value) in &launch.desired.set {
        if value.expose_bytes().contains(&0) {
            return Err(Unlaunchable::NulInValue { name: name.clone() });
        }
        env.insert(
            OsString::from(name),
            OsString::from_vec(value.expose_bytes().to_vec()),
        );
    }
    Ok(env)
}

/// `sysconf(_SC_ARG_MAX)`: the kernel's bound on argv plus environment for
/// this process's stack limit. When unknown, the historical 128 KiB, so an
/// unknown limit refuses rather than kills.
fn arg_max() -> usize {
    use nix::unistd::{sysconf, SysconfVar};
    match sysconf(SysconfVar::ARG_MAX) {
        Ok(Some(n)) if n > 0 => usize::try_from(n).unwrap_or(MAX_ARG_STRLEN),
        _ => MAX_ARG_STRLEN,
    }
}

/// Resolves the harness the way `execvp` will in the launcher: a name with a
/// `/` is a path (relative to the working directory), any other is searched
/// on the new environment's PATH.
fn resolve_harness(
    launch: &Prelaunch,
    env: &BTreeMap<OsString, OsString>,
) -> Result<(), Unlaunchable> {
    let delivered = launch.desired.set.contains_key("PATH");
    let (path, origin) = match env.get(OsStr::new("PATH")) {
        _ if launch.harness_binary.as_bytes().contains(&b'/') => {
            (OsString::new(), PathOrigin::NotSearched)
        }
        Some(path) if delivered => (path.clone(), PathOrigin::Delivered),
        Some(path) => (path.clone(), PathOrigin::Session),
        None => (OsString::from(DEFAULT_PATH), PathOrigin::Default),
    };
    if resolves(launch.harness_binary, &path, launch.cwd) {
        Ok(())
    } else {
        Err(Unlaunchable::HarnessNotFound {
            binary: PathBuf::from(launch.harness_binary),
            path: origin,
            harness: launch.harness.to_owned(),
        })
    }
}

/// Whether `binary` names an executable as `execvp` will look for it: a
/// name with a `/` is a path (relative to `cwd`), any other is searched on
/// `path`, an empty entry meaning `cwd`. `validate` asks it too, of the
/// PATH it runs with.
pub fn resolves(binary: &OsStr, path: &OsStr, cwd: &Path) -> bool {
    let binary = Path::new(binary);
    if binary.as_os_str().as_bytes().contains(&b'/') {
        return executable(&cwd.join(binary));
    }
    std::env::split_paths(path).any(|dir| {
        let dir = if dir.as_os_str().is_empty() {
            cwd.to_owned()
        } else {
            cwd.join(dir)
        };
        executable(&dir.join(binary))
    })
}

/// A regular file (after links) that we may execute.
fn executable(path: &Path) -> bool {
    path.is_file() && nix::unistd::access(path, nix::unistd::AccessFlags::X_OK).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::secret::SecretValue;

    fn desired(pairs: &[(&str, &[u8])]) -> DesiredEnv {
        DesiredEnv {
            withheld: Default::default(),
            set: pairs
                .iter()
                .map(|(n, v)| (n.to_string(), SecretValue::new(v.to_vec())))
                .collect(),
            ..DesiredEnv::default()
        }
    }

    fn run(desired: &DesiredEnv, binary: &str, args: &[OsString]) -> Result<(), Unlaunchable> {
        check(&Prelaunch {
            harness: "claude",
            harness_binary: OsStr::new(binary),
            harness_args: args,
            cwd: Path::new("/"),
            desired,
            base: vec![("PATH".into(), "/usr/bin:/bin".into())],
        })
    }

    #[test]
    fn a_launch_that_can_start_passes() {
        assert_eq!(run(&desired(&[("A", b"1")]), "sh", &[]), Ok(()));
        assert_eq!(run(&desired(&[]), "/bin/sh", &[]), Ok(()));
    }

    #[test]
    fn each_fault_is_named_without_its_value() {
        let secret = b"s3cr3t-value";
        let mut nul = secret.to_vec();
        nul.insert(3, 0);
        let err = run(&desired(&[("TOKEN", &nul)]), "sh", &[]).unwrap_err();
        assert_eq!(
            err,
            Unlaunchable::NulInValue {
                name: "TOKEN".into()
            }
        );
        assert!(!err.to_string().contains("s3cr"));

        let big = vec![b'x'; MAX_ARG_STRLEN];
        let err = run(&desired(&[("BIG", &big)]), "sh", &[]).unwrap_err();
        assert!(matches!(err, Unlaunchable::ValueTooLong { ref name, .. } if name == "BIG"));

        // Each value fits; together they pass any ARG_MAX a stack allows.
        let piece = vec![b'x'; MAX_ARG_STRLEN - 100];
        let names: Vec<String> = (0..200).map(|i| format!("V{i}")).collect();
        let many: Vec<(&str, &[u8])> = names.iter().map(|n| (n.as_str(), &piece[..])).collect();
        let err = run(&desired(&many), "sh", &[]).unwrap_err();
        assert!(matches!(err, Unlaunchable::OverExecLimit { .. }), "{err}");

        let long_arg = OsString::from("y".repeat(MAX_ARG_STRLEN));
        let err = run(&desired(&[]), "sh", &[long_arg]).unwrap_err();
        assert_eq!(
            err,
            Unlaunchable::ArgumentTooLong {
                position: 1,
                bytes: MAX_ARG_STRLEN + 1
            }
        );

        let err = run(&desired(&[]), "no-such-harness-b1n", &[]).unwrap_err();
        assert!(
            err.to_string().contains("routing.harnessBinary.claude"),
            "{err}"
        );
        assert!(matches!(
            err,
            Unlaunchable::HarnessNotFound {
                path: PathOrigin::Session,
                ..
            }
        ));
        let err = run(&desired(&[("PATH", b"/nonexistent")]), "sh", &[]).unwrap_err();
        assert!(matches!(
            err,
            Unlaunchable::HarnessNotFound {
                path: PathOrigin::Delivered,
                ..
            }
        ));
        let err = run(&desired(&[]), "/etc/passwd", &[]).unwrap_err();
        assert!(matches!(
            err,
            Unlaunchable::HarnessNotFound {
                path: PathOrigin::NotSearched,
                ..
            }
        ));
    }

    #[test]
    fn a_working_directory_that_is_a_file_is_refused() {
        let d = desired(&[]);
        let err = check(&Prelaunch {
            harness: "claude",
            harness_binary: OsStr::new("sh"),
            harness_args: &[],
            cwd: Path::new("/etc/passwd"),
            desired: &d,
            base: vec![],
        })
        .unwrap_err();
        assert!(matches!(err, Unlaunchable::CwdNotDirectory { .. }));
    }
}
