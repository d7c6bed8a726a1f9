//! One tmux control-mode client (`tmux -C`) held for a whole roll.
//!
//! `\;` sequences ([`super::batch::run_each`]) start one client per batch.
//! At the default parallelism a roll streams: its workers reach the same
//! step at different moments, so 100 sessions still cost about a hundred
//! clients. A control-mode client reads one command per line on its stdin
//! and answers each in its own block (`%begin … %end`, or `%error` for a
//! command that failed), so a roll of any size and any parallelism costs
//! one client, and a failed command fails alone: the lines after it run.
//!
//! A control client must be attached to a session, and an attached client
//! counts in `#{session_attached}`, which the safe-point rules read. So it
//! makes a session of its own, `the-loop-roll-<pid>`: not a managed session
//! (no `loop-` prefix). The roll kills it by id when it ends. Its one pane
//! runs a watchdog that exits once the-loop's pid is gone, so a the-loop
//! killed mid-roll leaves it behind for a second at most: tmux ends a
//! session whose last pane exited, the most ordinary way a session ends.
//! Not `destroy-unattached`: tmux 3.3a's server was seen to segfault (all
//! sessions gone) when a control client on such a session lost its stdin.
//!
//! The roll's workers write their lines as they reach them and each is
//! woken by its own answers (`wire`), so one session's pane is probed a
//! probe window after tmux respawned it, not after the whole wave was.
//!
//! A client that does not answer within the tmux timeout is ended, and
//! every command it had not answered is unanswered: callers read
//! "unknown", never "absent". Later batches go back to `\;` sequences.

mod blocks;
mod wire;

use crate::observed::script::quote;
use crate::tmux::Answer;
use crate::tmux::{Tmux, TmuxError};
use blocks::{read_blocks, Block};
use std::ffi::OsString;
use std::io::{BufReader, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use wire::{Ended, Wire};

/// Why a batch did not go through the control client.
#[derive(Debug, PartialEq, Eq)]
pub enum NotSent {
    /// A word a command line cannot carry (a line break): this batch goes
    /// as a `\;` sequence, whose words travel as argv.
    Unwritable,
}

/// Why no control client could be opened.
#[derive(Debug)]
pub enum OpenError {
    /// The server did not answer in time: a `\;` sequence would not either.
    TimedOut(Duration),
    /// Anything else (an old tmux, a refusal): use `\;` sequences.
    Refused,
}

/// Shared by the roll's workers: each writes its own lines and waits for
/// its own answers.
pub struct ControlClient {
    child: Mutex<Child>,
    /// Held while a caller writes its lines, so the lines of one call stay
    /// together and in the order of their ids.
    stdin: Mutex<Option<ChildStdin>>,
    wire: Arc<Wire>,
    session: String,
}

fn locked<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

impl ControlClient {
    /// Starts the client on its own session and waits for tmux to confirm
    /// it with the session's id.
    pub fn open(tmux: &Tmux) -> Result<ControlClient, OpenError> {
        let pid = std::process::id().to_string();
        let session = format!("the-loop-roll-{pid}");
        let args = [
            "-C",
            "new-session",
            "-P",
            "-F",
            "#{session_id}",
            "-s",
            session.as_str(),
            "--",
            "sh",
            "-c",
            WATCHDOG,
            pid.as_str(),
        ];
        let mut child = tmux
            .command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|_| OpenError::Refused)?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(OpenError::Refused);
        };
        let (tx, blocks) = mpsc::channel();
        std::thread::spawn(move || read_blocks(BufReader::new(stdout), &tx));
        let mut client = ControlClient {
            child: Mutex::new(child),
            stdin: Mutex::new(Some(stdin)),
            wire: Arc::new(Wire::new(tmux.timeout())),
            session,
        };
        // The first block answers `new-session` from the argv: the new
        // session's id, which names it exactly from here on.
        match first_block(&blocks, crate::clock::deadline(tmux.timeout())) {
            Ok(block) if !block.failed && is_session_id(block.body.trim()) => {
                client.session = block.body.trim().to_owned();
            }
            Ok(_) | Err(RecvTimeoutError::Disconnected) => return Err(OpenError::Refused),
            Err(RecvTimeoutError::Timeout) => return Err(OpenError::TimedOut(tmux.timeout())),
        }
        let wire = Arc::clone(&client.wire);
        std::thread::spawn(move || route(&blocks, &wire));
        Ok(client)
    }

    /// False once the client ended or went silent.
    pub fn is_open(&self) -> bool {
        self.wire.ended().is_none()
    }

    /// Sends `commands`, one line each, and waits for each one's answer.
    /// Other callers may send theirs meanwhile; each gets its own.
    pub fn run_each(&self, commands: &[Vec<OsString>]) -> Result<Vec<Answer>, NotSent> {
        let mut script = String::new();
        for command in commands {
            script.push_str(&command_line(command).ok_or(NotSent::Unwritable)?);
            script.push('\n');
        }
        let pending = {
            let mut stdin = locked(&self.stdin);
            let Some(pending) = stdin.as_ref().and(self.wire.take_ids(commands.len())) else {
                let closed = || Err(TmuxError::Spawn("the tmux control client ended".into()));
                return Ok(commands.iter().map(|_| closed()).collect());
            };
            let written = stdin.as_mut().is_some_and(|stdin| {
                stdin.write_all(script.as_bytes()).is_ok() && stdin.flush().is_ok()
            });
            if !written {
                self.wire.end(Ended::Closed);
            }
            pending
        };
        let (answers, found_silent) = self.wire.wait(pending);
        if found_silent || !self.is_open() {
            self.end();
        }
        Ok(answers)
    }

    /// Ends the client: what it had not answered stays unanswered.
    fn end(&self) {
        self.wire.end(Ended::Closed);
        // The child first: a writer blocked on a full pipe holds `stdin`
        // until the child's end breaks the pipe.
        {
            let mut child = locked(&self.child);
            let _ = child.kill();
            let _ = child.wait();
        }
        *locked(&self.stdin) = None;
    }
}

/// The first block of the client's output, from its argv.
fn first_block(blocks: &Receiver<Block>, deadline: Instant) -> Result<Block, RecvTimeoutError> {
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match blocks.recv_timeout(left)? {
            block if !block.from_stdin => return Ok(block),
            _ => continue,
        }
    }
}

/// Hands each answer to a line from stdin to whoever waits for it, until
/// the client's output ends.
fn route(blocks: &Receiver<Block>, wire: &Wire) {
    for block in blocks.iter().filter(|b| b.from_stdin) {
        wire.deliver(block);
    }
    wire.end(Ended::Closed);
}

impl Drop for ControlClient {
    /// Kills its own session (and so its watchdog), closes stdin, and waits
    /// a moment for the client to leave before it is killed.
    fn drop(&mut self) {
        if let Some(mut stdin) = locked(&self.stdin).take() {
            // By id once known; by exact name if tmux never said the id.
            let target = match is_session_id(&self.session) {
                true => self.session.clone(),
                false => format!("={}", self.session),
            };
            let line = format!("kill-session -t {}\n", quote(&target).unwrap_or_default());
            let _ = stdin.write_all(line.as_bytes());
        }
        let child = self.child.get_mut().unwrap_or_else(|e| e.into_inner());
        // Woken by the client's exit, not a poll's tick: this is the last
        // step of every roll. Our own unreaped child: its pid cannot be reused.
        let left = i32::try_from(child.id())
            .ok()
            .and_then(|pid| super::signal::ProcessHandle::open(pid).ok())
            .is_none_or(|client| client.wait_exit(Duration::from_secs(1)));
        if left && matches!(child.try_wait(), Ok(Some(_))) {
            return;
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}

/// The control session's one pane: alive while the-loop (`$0`) is.
const WATCHDOG: &str = "while kill -0 \"$0\" 2>/dev/null; do sleep 1; done";

/// `$` and digits: a session id, which no session name can be taken for.
fn is_session_id(text: &str) -> bool {
    text.strip_prefix('$')
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// One command as a control-mode line; `None` when a word cannot be
/// written on one line, or for no words at all (an empty line would
/// detach the client).
fn command_line(command: &[OsString]) -> Option<String> {
    if command.is_empty() {
        return None;
    }
    let words: Option<Vec<String>> = command
        .iter()
        .map(|word| word.to_str().and_then(quote))
        .collect();
    Some(words?.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fake `tmux -C` that confirms its session (unless `answered` is
    /// `None`), then answers each of its first `answered` lines after `delay`
    /// seconds, and then no more.
    fn fake_tmux(dir: &std::path::Path, delay: &str, answered: Option<usize>) -> Tmux {
        let (handshake, answered) = match answered {
            Some(n) => ("echo '%begin 1 0 0'; echo '$7'; echo '%end 1 0 0'", n),
            None => ("sleep 60", 0),
        };
        let body = format!(
            "while IFS= read -r line; do\n  n=$((n+1))\n\
             [ $n -gt {answered} ] && {{ sleep 60; exit; }}\n  sleep {delay}\n\
             echo \"%begin 1 $n 1\"; echo \"answer $n\"; echo \"%end 1 $n 1\"\ndone\n"
        );
        script_tmux(dir, handshake, &body, Duration::from_millis(600))
    }

    /// A `tmux` script that says its version, runs `handshake` and then
    /// `body` (with `n=0`).
    fn script_tmux(dir: &std::path::Path, handshake: &str, body: &str, timeout: Duration) -> Tmux {
        use std::os::unix::fs::PermissionsExt;
        let script = dir.join("tmux");
        let text = format!("#!/bin/bash\n[ \"$1\" = -V ] && exit 0\nn=0\n{handshake}\n{body}");
        std::fs::write(&script, text).unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        // A child another test thread forked while the script was open for
        // writing holds it until it execs; running the script meanwhile
        // fails with ETXTBSY. Run it once until it runs.
        let settle = crate::clock::deadline(Duration::from_secs(10));
        while let Err(err) = std::process::Command::new(&script).arg("-V").output() {
            assert!(
                err.raw_os_error() == Some(26) && Instant::now() < settle,
                "{err}"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        Tmux::fake(&script, timeout)
    }

    fn five_commands() -> Vec<Vec<OsString>> {
        (0..5)
            .map(|i| vec!["display".into(), "-p".into(), i.to_string().into()])
            .collect()
    }

    #[test]
    fn a_slow_but_steady_server_is_waited_for_past_the_timeout_in_all() {
        let dir = tempfile::tempdir().unwrap();
        let client = ControlClient::open(&fake_tmux(dir.path(), "0.25", Some(5))).unwrap();
        // 5 answers at 0.25 s each: 1.25 s in all,
        // more than the 0.6 s timeout, never 0.6 s without an answer.
        let answers = client.run_each(&five_commands()).unwrap();
        let bodies: Vec<String> = answers
            .into_iter()
            .map(|a| a.expect("answered").stdout)
            .collect();
        assert_eq!(
            bodies,
            [
                "answer 1\n",
                "answer 2\n",
                "answer 3\n",
                "answer 4\n",
                "answer 5\n"
            ]
        );
        assert!(client.is_open());
    }

    #[test]
    fn a_server_that_stops_answering_mid_batch_leaves_the_rest_unanswered() {
        let dir = tempfile::tempdir().unwrap();
        // Two commands are answered, then silence.
        let client = ControlClient::open(&fake_tmux(dir.path(), "0", Some(2))).unwrap();
        let answers = client.run_each(&five_commands()).unwrap();
        assert!(answers[..2]
            .iter()
            .all(|a| a.as_ref().is_ok_and(|out| out.success)));
        for answer in &answers[2..] {
            assert!(matches!(answer, Err(TmuxError::TimedOut(_))), "{answer:?}");
        }
        assert!(!client.is_open(), "nothing more is sent to a silent client");
    }

    /// A fake `tmux -C` that answers each line with its own words, after
    /// 2 s for a line that says `slow` and 0.2 s for any other.
    fn echoing_tmux(dir: &std::path::Path) -> Tmux {
        let body = "while IFS= read -r line; do\n  n=$((n+1))\n\
                    case $line in *slow*) sleep 2 ;; *) sleep 0.2 ;; esac\n\
                    echo \"%begin 1 $n 1\"; echo \"$line\"; echo \"%end 1 $n 1\"\ndone\n";
        let handshake = "echo '%begin 1 0 0'; echo '$7'; echo '%end 1 0 0'";
        script_tmux(dir, handshake, body, Duration::from_secs(5))
    }

    #[test]
    fn each_caller_gets_its_own_answers_as_soon_as_they_come() {
        let dir = tempfile::tempdir().unwrap();
        let tmux = echoing_tmux(dir.path());
        let client = ControlClient::open(&tmux).unwrap();
        let command = |word: &str| vec![OsString::from("display"), "-p".into(), word.into()];
        let started = Instant::now();
        let (fast, slow) = std::thread::scope(|scope| {
            let fast = scope.spawn(|| {
                let answers = client.run_each(&[command("fast-one")]).unwrap();
                (answers, started.elapsed())
            });
            // Written after the first caller's line, so answered after it.
            std::thread::sleep(Duration::from_millis(100));
            let slow = scope.spawn(|| client.run_each(&[command("slow-two"), command("three")]));
            (fast.join().unwrap(), slow.join().unwrap().unwrap())
        });
        let body = |answer: &Answer| answer.as_ref().expect("answered").stdout.clone();
        assert_eq!(body(&fast.0[0]), "'display' '-p' 'fast-one'\n");
        assert_eq!(body(&slow[0]), "'display' '-p' 'slow-two'\n");
        assert_eq!(body(&slow[1]), "'display' '-p' 'three'\n");
        assert!(
            fast.1 < Duration::from_millis(1500),
            "the first caller waited for the second's lines: {:?}",
            fast.1
        );
        assert!(client.is_open());
    }

    #[test]
    fn a_server_silent_from_the_start_times_out_the_open() {
        let dir = tempfile::tempdir().unwrap();
        let tmux = fake_tmux(dir.path(), "0", None);
        assert!(matches!(
            ControlClient::open(&tmux),
            Err(OpenError::TimedOut(_))
        ));
    }

    #[test]
    fn a_command_becomes_one_quoted_line_or_none() {
        let words = |w: &[&str]| w.iter().map(OsString::from).collect::<Vec<_>>();
        assert_eq!(
            command_line(&words(&[
                "list-panes",
                "-t",
                "=loop-a#1;x",
                "-F",
                "#{pane_id} #{pane_pid}"
            ]))
            .as_deref(),
            Some("'list-panes' '-t' '=loop-a#1;x' '-F' '#{pane_id} #{pane_pid}'")
        );
        assert_eq!(command_line(&words(&["display", "-p", "two\nlines"])), None);
        assert_eq!(command_line(&[]), None);
    }
}
