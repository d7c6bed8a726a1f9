//! The one place that runs the `tmux` binary.
//!
//! Every call has a timeout, because a tmux server that never answers must
//! read as "unknown", never as "absent". Arguments carry names, refs and
//! paths only; callers never pass an environment value here.

use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// How long one tmux call may take before it counts as unanswered.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);

/// The most bytes of arguments (each counted with its NUL, as
/// [`argv_bytes`] counts them) tmux's client sends its server in one
/// message. Measured with tmux 3.3a, a `display -p` of a growing word: 16,364
/// bytes are sent; past them the client says "failed to send command", and
/// from 16,380 "command too long" (its message is 16 KiB with the headers).
/// exec's own limits are far above it (one argument at most 128 KiB,
/// `MAX_ARG_STRLEN`, past which exec fails with E2BIG; argv and the
/// environment together at most `ARG_MAX`, 2 MiB here), so this one binds:
/// no call is started past it ([`TmuxError::CommandTooLong`]).
pub const COMMAND_LIMIT: usize = 16_364;

/// The bytes `args` take in tmux's message: each argument and its NUL.
pub fn argv_bytes<S: AsRef<OsStr>>(args: &[S]) -> usize {
    args.iter().map(|a| a.as_ref().len() + 1).sum()
}

#[derive(Debug, Clone)]
pub struct Tmux {
    program: OsString,
    timeout: Duration,
    /// Names removed from tmux's environment: a tmux client that starts the
    /// server hands the server its whole environment, which the server keeps
    /// (and copies into its global environment) for its whole life.
    withheld: Vec<String>,
    /// The server's socket, when the-loop chose one; `None` leaves the
    /// choice to tmux (`$TMUX`, else its default socket).
    socket: Option<std::path::PathBuf>,
    /// Whether calls name the socket (`-S`): only when tmux itself would
    /// pick another, so a call reads as a person would type it otherwise.
    name_socket: bool,
}

#[derive(Debug, Clone)]
pub struct TmuxOutput {
    pub success: bool,
    pub stdout: String,
    pub stderr: String,
}

#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum TmuxError {
    #[error("tmux is not installed (not found on PATH)")]
    NotInstalled,
    #[error("tmux did not answer within {0:?}")]
    TimedOut(Duration),
    #[error("could not run tmux: {0}")]
    Spawn(String),
    /// The-loop built a command tmux would refuse (or exec could not
    /// start): never sent, and never blamed on tmux.
    #[error("the-loop built a tmux command of {0} bytes, past the {COMMAND_LIMIT} tmux takes in one message; it was not sent")]
    CommandTooLong(usize),
}

impl Default for Tmux {
    fn default() -> Self {
        Tmux::new()
    }
}

impl Tmux {
    /// Uses `tmux` from PATH. `THE_LOOP_TMUX_TIMEOUT_MS` overrides the timeout.
    pub fn new() -> Self {
        let timeout = std::env::var("THE_LOOP_TMUX_TIMEOUT_MS")
            .ok()
            .and_then(|ms| ms.parse().ok())
            .map(Duration::from_millis)
            .unwrap_or(DEFAULT_TIMEOUT);
        Tmux {
            program: "tmux".into(),
            timeout,
            withheld: Vec::new(),
            socket: None,
            name_socket: false,
        }
    }

    /// Talks to the server at `socket`, whatever `$TMUX` says: named with
    /// `tmux -S` when tmux's own choice (`tmux_default`) is another.
    pub fn on_socket(mut self, socket: std::path::PathBuf, tmux_default: &std::path::Path) -> Self {
        self.name_socket = socket != tmux_default;
        self.socket = Some(socket);
        self
    }

    /// The server's socket, when the-loop chose one.
    pub fn socket(&self) -> Option<&std::path::Path> {
        self.socket.as_deref()
    }

    /// Runs tmux without these names in its environment.
    pub fn withholding(mut self, names: impl IntoIterator<Item = String>) -> Self {
        self.withheld.extend(names);
        self
    }

    /// Another program in tmux's place, with its own timeout: for tests of
    /// what the-loop does with a tmux that answers slowly or not at all.
    #[cfg(test)]
    pub fn fake(program: &std::path::Path, timeout: Duration) -> Self {
        Tmux {
            program: program.into(),
            timeout,
            withheld: Vec::new(),
            socket: None,
            name_socket: false,
        }
    }

    /// How long one call may take before it counts as unanswered.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// A `tmux` command with these arguments, the withheld names removed
    /// from its environment, for a caller that keeps the client running
    /// (the roll's control-mode client). Stdio is left to the caller.
    pub fn command<I, S>(&self, args: I) -> Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut command = Command::new(&self.program);
        for name in &self.withheld {
            command.env_remove(name);
        }
        if let Some(socket) = self.socket.as_ref().filter(|_| self.name_socket) {
            command.arg("-S").arg(socket);
        }
        command.args(args);
        command
    }

    /// Runs one tmux invocation (which may chain commands with `;`).
    pub fn run<I, S>(&self, args: I) -> Result<TmuxOutput, TmuxError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.run_with_input(args, None)
    }

    /// [`Tmux::run`] with `input` written to tmux's stdin (for
    /// `load-buffer -`), so text handed to tmux never travels in an argv.
    pub fn run_with_input<I, S>(
        &self,
        args: I,
        input: Option<&[u8]>,
    ) -> Result<TmuxOutput, TmuxError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let stdin = if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        };
        self.start(args, stdin)?.finish(input)
    }

    /// Starts a tmux client whose stdin is written later, by
    /// [`Started::finish`]: the client starts and connects to the server
    /// while the caller works out what to send (`source-file -` waits for
    /// its stdin's end). The timeout runs from `finish`.
    pub fn start_with_input<I, S>(&self, args: I) -> Result<Started, TmuxError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.start(args, Stdio::piped())
    }

    /// Starts a tmux client that reads nothing, to be waited for later by
    /// [`Started::finish`] (with no input): it runs while the caller reads
    /// what it needs the answer for. The timeout runs from `finish`.
    pub fn start_without_input<I, S>(&self, args: I) -> Result<Started, TmuxError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.start(args, Stdio::null())
    }

    fn start<I, S>(&self, args: I, stdin: Stdio) -> Result<Started, TmuxError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let args: Vec<OsString> = args.into_iter().map(|a| a.as_ref().to_owned()).collect();
        // Client options (`-C`, `-S`) are counted too: a little over, never under.
        let socket = match (&self.socket, self.name_socket) {
            (Some(socket), true) => socket.as_os_str().len() + 4,
            _ => 0,
        };
        let bytes = argv_bytes(&args) + socket;
        if bytes > COMMAND_LIMIT {
            return Err(TmuxError::CommandTooLong(bytes));
        }
        tracing::trace!(args = ?args, "tmux");
        let mut child = self
            .command(&args)
            .stdin(stdin)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|err| match err.kind() {
                std::io::ErrorKind::NotFound => TmuxError::NotInstalled,
                // exec's own words: "Argument list too long (os error 7)" for E2BIG.
                _ => TmuxError::Spawn(err.to_string()),
            })?;
        let mut stdout = child.stdout.take().expect("piped");
        let mut stderr = child.stderr.take().expect("piped");
        // Read both pipes off-thread so a large listing cannot fill a pipe
        // while we wait, and so the wait itself can time out.
        let (tx, rx) = mpsc::channel();
        let err_reader = std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = stderr.read_to_end(&mut buf);
            buf
        });
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = stdout.read_to_end(&mut buf);
            let _ = tx.send(buf);
        });
        Ok(Started {
            child: Some(child),
            stdout: rx,
            stderr: Some(err_reader),
            timeout: self.timeout,
        })
    }

    /// tmux's version string (`tmux 3.3a` → `3.3a`).
    pub fn version(&self) -> Result<String, TmuxError> {
        let out = self.run(["-V"])?;
        Ok(out
            .stdout
            .trim()
            .trim_start_matches("tmux")
            .trim()
            .to_owned())
    }
}

/// A tmux client started by [`Tmux::start_with_input`], not yet waited
/// for. Dropped unfinished, the client is killed and reaped.
pub struct Started {
    child: Option<std::process::Child>,
    stdout: mpsc::Receiver<Vec<u8>>,
    stderr: Option<std::thread::JoinHandle<Vec<u8>>>,
    timeout: Duration,
}

impl Started {
    /// Writes `input` to the client's stdin and closes it, then waits for
    /// the answer, at most the tmux timeout.
    pub fn finish(mut self, input: Option<&[u8]>) -> Result<TmuxOutput, TmuxError> {
        let mut child = self.child.take().expect("finished once");
        if let Some(mut stdin) = child.stdin.take() {
            let input = input.unwrap_or_default().to_vec();
            // Off-thread: a tmux that never reads must still time out below.
            std::thread::spawn(move || {
                use std::io::Write;
                let _ = stdin.write_all(&input);
            });
        }
        let out = match self.stdout.recv_timeout(self.timeout) {
            Ok(out) => out,
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(TmuxError::TimedOut(self.timeout));
            }
        };
        let status = child
            .wait()
            .map_err(|e| TmuxError::Spawn(crate::fsutil::IoKind(e.kind()).to_string()))?;
        let err = self
            .stderr
            .take()
            .and_then(|reader| reader.join().ok())
            .unwrap_or_default();
        Ok(TmuxOutput {
            success: status.success(),
            stdout: String::from_utf8_lossy(&out).into_owned(),
            stderr: String::from_utf8_lossy(&err).trim().to_owned(),
        })
    }
}

impl Drop for Started {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// True when tmux's answer means "there is no server", which is an answer
/// (every session is absent), unlike a timeout.
pub fn means_no_server(stderr: &str) -> bool {
    stderr.contains("no server running")
        || stderr.contains("error connecting to")
        || stderr.contains("No such file or directory")
        // The server was exiting as it was asked (its last session had just
        // been killed): it answered, and it has no sessions.
        || stderr.contains("server exited unexpectedly")
}

/// True when tmux's answer means the named session does not exist.
pub fn means_no_session(stderr: &str) -> bool {
    stderr.contains("can't find session")
        || stderr.contains("can't find pane")
        || stderr.contains("can't find window")
        || means_no_server(stderr)
}

/// One command's answer, as [`Tmux::run`] would have given it alone.
pub type Answer = Result<TmuxOutput, TmuxError>;

/// Something that runs one tmux command: tmux itself, or a `runner::batch::Batcher`.
pub trait Run: Sync {
    fn run_command(&self, args: Vec<OsString>) -> Answer;
}

impl Run for Tmux {
    fn run_command(&self, args: Vec<OsString>) -> Answer {
        self.run(args)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_that_is_gone_is_an_answer_but_silence_is_not() {
        for gone in [
            "no server running on /tmp/tmux-0/default",
            "error connecting to /tmp/tmux-0/default (No such file or directory)",
            "server exited unexpectedly",
        ] {
            assert!(means_no_server(gone), "{gone}");
            assert!(means_no_session(gone), "{gone}");
        }
        assert!(means_no_session("can't find session: loop-x"));
        for other in ["", "unknown command: x", "client is read-only"] {
            assert!(!means_no_server(other), "{other}");
            assert!(!means_no_session(other), "{other}");
        }
    }

    /// A stand-in tmux: a shell script of `body` (`$0` is its own path).
    fn stand_in(dir: &std::path::Path, body: &str) -> Tmux {
        use std::os::unix::fs::PermissionsExt;
        let path = dir.join("tmux");
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        Tmux::fake(&path, Duration::from_secs(5))
    }

    #[test]
    fn a_command_past_tmuxs_limit_is_never_started_and_says_whose_it_is() {
        let dir = tempfile::tempdir().unwrap();
        let tmux = stand_in(dir.path(), "echo ran >\"$0.ran\"");
        let fits = "x".repeat(COMMAND_LIMIT - argv_bytes(&["display", "-p"]) - 1);
        assert!(tmux.run(["display", "-p", &fits]).is_ok());
        assert!(dir.path().join("tmux.ran").exists());
        std::fs::remove_file(dir.path().join("tmux.ran")).unwrap();
        let long = format!("{fits}x");
        let err = tmux.run(["display", "-p", &long]).unwrap_err();
        assert_eq!(err, TmuxError::CommandTooLong(COMMAND_LIMIT + 1));
        assert!(err.to_string().starts_with("the-loop built"), "{err}");
        assert!(!dir.path().join("tmux.ran").exists(), "never started");
    }

    #[test]
    fn a_client_started_first_gets_its_input_later_and_answers() {
        let dir = tempfile::tempdir().unwrap();
        let tmux = stand_in(dir.path(), "echo \"$@\" >\"$0.argv\"; cat");
        let started = tmux.start_with_input(["source-file", "-"]).unwrap();
        std::thread::sleep(Duration::from_millis(50));
        let out = started.finish(Some(b"list-panes\n")).unwrap();
        assert!(out.success);
        assert_eq!(out.stdout, "list-panes\n");
        let argv = std::fs::read_to_string(dir.path().join("tmux.argv")).unwrap();
        assert_eq!(argv.trim(), "source-file -");
    }

    #[test]
    fn a_client_dropped_unfinished_is_killed_and_one_that_never_answers_times_out() {
        let dir = tempfile::tempdir().unwrap();
        let tmux = stand_in(dir.path(), "echo $$ >\"$0.pid\"; exec sleep 30");
        let started = tmux.start_with_input(["source-file", "-"]).unwrap();
        let pid_file = dir.path().join("tmux.pid");
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        // The shell creates the file before `echo` writes to it: wait for the line.
        let read_pid = || std::fs::read_to_string(&pid_file).ok()?.trim().parse().ok();
        let mut pid: Option<i32> = read_pid();
        while pid.is_none() && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
            pid = read_pid();
        }
        let pid = pid.expect("the stand-in wrote its pid");
        drop(started);
        // Killed and reaped: the pid is gone, not a zombie.
        assert!(!std::path::Path::new(&format!("/proc/{pid}")).exists());

        let silent = Tmux {
            timeout: Duration::from_millis(200),
            ..tmux
        };
        let started = silent.start_with_input(["source-file", "-"]).unwrap();
        assert_eq!(
            started.finish(Some(b"x")).err(),
            Some(TmuxError::TimedOut(Duration::from_millis(200)))
        );
    }
}
