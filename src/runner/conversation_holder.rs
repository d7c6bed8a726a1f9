//! One conversation, one harness: before a launch that resumes or names a
//! conversation, no live process on the host may already hold it.
//!
//! Two harness processes on one conversation interleave their writes to
//! its transcript. The-loop finds a session by its tmux name, and a person
//! can rename a session or move its pane: then a `deliver` or a `start`
//! that finds "no session" would start a second harness on the same
//! conversation while the first still runs. So every launch asks the host
//! itself, whatever tmux says: each process whose argv is a harness's
//! (`claude --resume ID`, `claude --session-id ID`, `codex resume ID`), and
//! for a harness that holds its conversation's file open (Codex's rollout),
//! the files it holds. The process a roll is about to replace is the one
//! exception: it is ended before the new one starts.

use crate::harness::Harness;
use std::fmt;
use std::path::Path;

/// A live process that holds the conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holder {
    pub pid: i32,
    /// The tmux pane it runs in (`$TMUX_PANE` in its environment), when
    /// it runs in one and its environment can be read.
    pub pane: Option<String>,
}

impl fmt::Display for Holder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "pid {}", self.pid)?;
        match &self.pane {
            Some(pane) => write!(f, " in tmux pane {pane}"),
            None => Ok(()),
        }
    }
}

/// Where the launch keeps the conversation: its transcript, which names
/// it for the host (the same id under another config directory or
/// project is another conversation).
pub struct Wanted<'a> {
    pub id: &'a str,
    pub transcript: &'a Path,
}

/// The live processes, other than `except`, that hold conversation `id`
/// of `harness` (by their argv, or by the files they hold open) in the
/// same place: a process whose own environment and working directory put
/// that conversation's transcript elsewhere holds another one. A process
/// whose environment cannot be read is counted: it cannot be told apart.
pub fn holders(harness: &dyn Harness, wanted: &Wanted, except: &[i32]) -> Vec<Holder> {
    let id = wanted.id;
    let mut found = Vec::new();
    for (pid, raw) in argv_pass().iter() {
        let pid = *pid;
        if except.contains(&pid) {
            continue;
        }
        let argv = words(raw);
        if !harness.recognises(&argv) {
            continue;
        }
        let by_argv = harness
            .read_launch(&argv)
            .and_then(|launch| launch.conversation)
            .is_some_and(|held| held == id);
        let holds = by_argv
            || harness
                .conversations_held(pid)
                .iter()
                .any(|held| held == id);
        if holds && same_place(harness, pid, wanted) {
            found.push(Holder {
                pid,
                pane: pane_of(pid),
            });
        }
    }
    found.sort_by_key(|h| h.pid);
    found
}

/// Every live process's `cmdline` but this one's, by pid, from one pass
/// over `/proc`.
type ArgvTable = Vec<(i32, Vec<u8>)>;

/// A pass over `/proc` begun after this call, shared with every launch
/// that asked while the pass before it ran ([`crate::parallel::SharedPass`]).
/// A pass reads every process's `cmdline` (about 1,000 at a fleet of 500),
/// and each of a roll's workers asks before its launch: 500 passes of their
/// own were two fifths of the CPU of a roll of 500 (issue 46). A caller is
/// never answered with what was read before it asked (that would widen the
/// window in which a harness started meanwhile goes unseen): it gets what
/// a pass of its own would have read.
fn argv_pass() -> std::sync::Arc<ArgvTable> {
    static PASSES: crate::parallel::SharedPass<ArgvTable> = crate::parallel::SharedPass::new();
    PASSES.begun_after_this_call(read_argvs)
}

/// One pass: each process's `cmdline`, in one `open` and two `read`s
/// (no `stat`: a `/proc` file's size reads 0).
fn read_argvs() -> ArgvTable {
    let root = crate::proc_env::proc_root();
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let own = std::process::id() as i32;
    entries
        .flatten()
        .filter_map(|entry| {
            let pid = entry.file_name().to_str()?.parse::<i32>().ok()?;
            if pid == own {
                return None;
            }
            let raw = crate::proc_env::read_file(&entry.path().join("cmdline"), CMDLINE_BUFFER);
            Some((pid, raw.ok()?))
        })
        .collect()
}

/// Most harness command lines fit: one read for the bytes, one for the end.
const CMDLINE_BUFFER: usize = 1024;

/// How long a launch waits for holders to go before it refuses: a harness
/// whose tmux session was just killed takes a moment to exit (it writes
/// its conversation out on the way), and a `deliver` right after must not
/// be refused for a process that is already on its way out.
pub const GRACE: std::time::Duration = std::time::Duration::from_secs(3);

/// [`holders`], looked for again until none is left or [`GRACE`] has
/// passed: what still holds the conversation then.
pub fn holders_after_grace(harness: &dyn Harness, wanted: &Wanted, except: &[i32]) -> Vec<Holder> {
    let deadline = crate::clock::deadline(GRACE);
    loop {
        let found = holders(harness, wanted, except);
        if found.is_empty() || std::time::Instant::now() >= deadline {
            return found;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// Whether process `pid` keeps conversation `wanted.id` where the launch
/// does (its transcript path, from its own environment and directory).
fn same_place(harness: &dyn Harness, pid: i32, wanted: &Wanted) -> bool {
    let crate::observed::EnvRead::Read(env) = crate::proc_env::read_environ(pid) else {
        return true;
    };
    let Ok(cwd) = std::fs::read_link(
        crate::proc_env::proc_root()
            .join(pid.to_string())
            .join("cwd"),
    ) else {
        return true;
    };
    let env_of = |name: &str| env.path(name);
    harness.transcript_path(&env_of, &cwd, wanted.id) == wanted.transcript
}

/// A `cmdline` file's words.
fn words(raw: &[u8]) -> Vec<String> {
    raw.split(|b| *b == 0)
        .filter(|w| !w.is_empty())
        .map(|w| String::from_utf8_lossy(w).into_owned())
        .collect()
}

/// `$TMUX_PANE` as the process holds it: a pane id (`%N`), nothing else.
fn pane_of(pid: i32) -> Option<String> {
    match crate::proc_env::read_environ(pid) {
        crate::observed::EnvRead::Read(env) => {
            let value = env.get("TMUX_PANE")?;
            let text = std::str::from_utf8(value.expose_bytes()).ok()?;
            let shaped = text.strip_prefix('%').is_some_and(|n| {
                !n.is_empty() && n.len() < 12 && n.bytes().all(|b| b.is_ascii_digit())
            });
            shaped.then(|| text.to_owned())
        }
        crate::observed::EnvRead::Unverified(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn a_process_holding_the_conversation_in_its_argv_is_found_and_an_exception_is_not() {
        let id = format!(
            "0b6f0a4e-{:04}-4c6d-8e7f-8091a2b3c4d5",
            std::process::id() % 10_000
        );
        let dir = tempfile::tempdir().unwrap();
        let fake = dir.path().join("claude");
        // `read`, a builtin, waits on stdin without a fork: a shell that ran
        // `sleep` would fork a child holding the same argv until it exec'd,
        // which a look in that moment counted as a second holder.
        std::fs::write(&fake, "#!/bin/sh\nread _line\n").unwrap();
        std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        // Another test thread that forked while the script was open for
        // writing holds it until its child execs: exec'ing it meanwhile
        // fails with ETXTBSY, so that is waited out.
        let mut tries = 0;
        let mut child = loop {
            match std::process::Command::new(&fake)
                .args(["--resume", &id])
                .current_dir(dir.path())
                .stdin(std::process::Stdio::piped())
                .spawn()
            {
                Ok(child) => break child,
                Err(e) if e.raw_os_error() == Some(nix::libc::ETXTBSY) && tries < 500 => {
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                Err(e) => panic!("spawn the fake claude: {e}"),
            }
        };
        let pid = child.id() as i32;
        let claude = crate::harness::by_name("claude").unwrap();
        // Where this process's own environment puts the conversation, in
        // the child's directory: the child inherited both.
        let env_of = |name: &str| std::env::var_os(name).map(PathBuf::from);
        let cwd = std::fs::canonicalize(dir.path()).unwrap();
        let transcript = claude.transcript_path(&env_of, &cwd, &id);
        let wanted = Wanted {
            id: &id,
            transcript: &transcript,
        };
        let elsewhere = claude.transcript_path(&env_of, Path::new("/elsewhere"), &id);
        let mut seen = Vec::new();
        // Until the child has exec'd its script (a loaded machine can take
        // seconds), its argv is not yet the fake claude's.
        for _ in 0..500 {
            seen = holders(claude, &wanted, &[]);
            if !seen.is_empty() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let found: Vec<i32> = seen.iter().map(|h| h.pid).collect();
        assert_eq!(found, vec![pid]);
        assert!(
            holders(claude, &wanted, &[pid]).is_empty(),
            "the replaced one"
        );
        let other = Wanted {
            id: "another-conversation",
            transcript: &transcript,
        };
        assert!(holders(claude, &other, &[]).is_empty());
        let moved = Wanted {
            id: &id,
            transcript: &elsewhere,
        };
        assert!(
            holders(claude, &moved, &[]).is_empty(),
            "the same id kept elsewhere is another conversation"
        );
        let _ = child.kill();
        let _ = child.wait();
    }

    #[test]
    fn a_holder_says_its_pid_and_pane() {
        let holder = Holder {
            pid: 42,
            pane: Some("%3".into()),
        };
        assert_eq!(holder.to_string(), "pid 42 in tmux pane %3");
        assert_eq!(
            Holder {
                pid: 42,
                pane: None
            }
            .to_string(),
            "pid 42"
        );
    }
}
