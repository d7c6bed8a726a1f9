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
//! A client that does not answer within the tmux timeout is ended, and
//! every command it had not answered is unanswered: callers read
//! "unknown", never "absent". Later batches go back to `\;` sequences.

use super::batch::Answer;
use crate::observed::script::quote;
use crate::tmux::{Tmux, TmuxError, TmuxOutput};
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// One command's block: its output, or its error.
struct Block {
    /// `%begin`'s flags: 1 for a command read from this client's stdin.
    from_stdin: bool,
    failed: bool,
    body: String,
}

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

pub struct ControlClient {
    child: Child,
    stdin: Option<ChildStdin>,
    blocks: Receiver<Block>,
    session: String,
    timeout: Duration,
    /// Ended or silent: nothing more is sent through it.
    broken: bool,
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
            child,
            stdin: Some(stdin),
            blocks,
            session,
            timeout: tmux.timeout(),
            broken: false,
        };
        // The first block answers `new-session` from the argv: the new
        // session's id, which names it exactly from here on.
        let deadline = crate::clock::deadline(client.timeout);
        match client.next_block(deadline, false) {
            Ok(block) if !block.failed && is_session_id(block.body.trim()) => {
                client.session = block.body.trim().to_owned();
                Ok(client)
            }
            Ok(_) | Err(Silence::Closed) => Err(OpenError::Refused),
            Err(Silence::TimedOut) => Err(OpenError::TimedOut(client.timeout)),
        }
    }

    /// False once the client ended or went silent.
    pub fn is_open(&self) -> bool {
        !self.broken
    }

    /// Sends `commands`, one line each, and reads each one's answer.
    pub fn run_each(&mut self, commands: &[Vec<OsString>]) -> Result<Vec<Answer>, NotSent> {
        let mut script = String::new();
        for command in commands {
            script.push_str(&command_line(command).ok_or(NotSent::Unwritable)?);
            script.push('\n');
        }
        let closed = || Err(TmuxError::Spawn("the tmux control client ended".into()));
        if self.broken {
            return Ok(commands.iter().map(|_| closed()).collect());
        }
        let written = self.stdin.as_mut().is_some_and(|stdin| {
            stdin.write_all(script.as_bytes()).is_ok() && stdin.flush().is_ok()
        });
        let mut answers = Vec::with_capacity(commands.len());
        // Silence is measured from the last answer, not from the send: a
        // busy server (a hundred harnesses starting at once on two cores)
        // answers a long batch slowly but steadily, and a stuck one not at all.
        while written && answers.len() < commands.len() {
            match self.next_block(crate::clock::deadline(self.timeout), true) {
                Ok(block) => answers.push(Ok(answer_of(block))),
                Err(Silence::TimedOut) => {
                    self.end();
                    answers.resize_with(commands.len(), || Err(TmuxError::TimedOut(self.timeout)));
                }
                Err(Silence::Closed) => break,
            }
        }
        if answers.len() < commands.len() {
            self.end();
            answers.resize_with(commands.len(), closed);
        }
        Ok(answers)
    }

    /// The next block (of a command read from stdin, when `from_stdin`).
    fn next_block(&mut self, deadline: Instant, from_stdin: bool) -> Result<Block, Silence> {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.blocks.recv_timeout(left) {
                Ok(block) if block.from_stdin == from_stdin => return Ok(block),
                Ok(_) => continue,
                Err(RecvTimeoutError::Timeout) => return Err(Silence::TimedOut),
                Err(RecvTimeoutError::Disconnected) => return Err(Silence::Closed),
            }
        }
    }

    fn end(&mut self) {
        self.broken = true;
        self.stdin = None;
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for ControlClient {
    /// Kills its own session (and so its watchdog), closes stdin, and waits
    /// a moment for the client to leave before it is killed.
    fn drop(&mut self) {
        if let Some(mut stdin) = self.stdin.take() {
            // By id once known; by exact name if tmux never said the id.
            let target = match is_session_id(&self.session) {
                true => self.session.clone(),
                false => format!("={}", self.session),
            };
            let line = format!("kill-session -t {}\n", quote(&target).unwrap_or_default());
            let _ = stdin.write_all(line.as_bytes());
        }
        let deadline = crate::clock::deadline(Duration::from_secs(1));
        while Instant::now() < deadline {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The control session's one pane: alive while the-loop (`$0`) is.
const WATCHDOG: &str = "while kill -0 \"$0\" 2>/dev/null; do sleep 1; done";

/// `$` and digits: a session id, which no session name can be taken for.
fn is_session_id(text: &str) -> bool {
    text.strip_prefix('$')
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

enum Silence {
    TimedOut,
    Closed,
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

fn answer_of(block: Block) -> TmuxOutput {
    if block.failed {
        TmuxOutput {
            success: false,
            stdout: String::new(),
            stderr: block.body.trim().to_owned(),
        }
    } else {
        TmuxOutput {
            success: true,
            stdout: block.body,
            stderr: String::new(),
        }
    }
}

/// Splits the client's output into blocks; notifications (`%output`,
/// `%sessions-changed`, …) come only between blocks and are skipped. A
/// block ends at `%end` or `%error` with the same time, number and flags
/// as its `%begin`, so an output line that starts with `%` (a pane id) is
/// never read as the end.
fn read_blocks(mut reader: impl BufRead, tx: &mpsc::Sender<Block>) {
    let mut open: Option<(String, String)> = None; // (the %begin's tail, body)
    let mut raw = Vec::new();
    loop {
        raw.clear();
        match reader.read_until(b'\n', &mut raw) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let line = String::from_utf8_lossy(&raw);
        let line = line.strip_suffix('\n').unwrap_or(&line);
        match &mut open {
            None => {
                if let Some(tail) = line.strip_prefix("%begin ") {
                    open = Some((tail.to_owned(), String::new()));
                }
            }
            Some((tail, body)) => {
                let failed = match line.split_once(' ') {
                    Some(("%end", rest)) if rest == tail => false,
                    Some(("%error", rest)) if rest == tail => true,
                    _ => {
                        body.push_str(line);
                        body.push('\n');
                        continue;
                    }
                };
                let from_stdin = tail.rsplit(' ').next().is_some_and(|flags| flags == "1");
                let body = std::mem::take(body);
                open = None;
                if tx
                    .send(Block {
                        from_stdin,
                        failed,
                        body,
                    })
                    .is_err()
                {
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(output: &str) -> Vec<(bool, bool, String)> {
        let (tx, rx) = mpsc::channel();
        read_blocks(output.as_bytes(), &tx);
        drop(tx);
        rx.iter()
            .map(|b| (b.from_stdin, b.failed, b.body))
            .collect()
    }

    #[test]
    fn each_block_is_one_answer_and_notifications_between_them_are_skipped() {
        let output = "%begin 1 264 0\n%end 1 264 0\n%window-add @1\n%sessions-changed\n\
                      %begin 1 270 1\n%3 4242 0\n%end 1 264 0\n%4 4243 1\n%end 1 270 1\n\
                      %output %1 x\n%begin 1 271 1\ncan't find session: =gone\n%error 1 271 1\n\
                      %begin 1 272 1\n%end 1 272 1\n%exit\n";
        assert_eq!(
            blocks(output),
            vec![
                (false, false, String::new()),
                (true, false, "%3 4242 0\n%end 1 264 0\n%4 4243 1\n".into()),
                (true, true, "can't find session: =gone\n".into()),
                (true, false, String::new()),
            ]
        );
    }

    #[test]
    fn a_block_cut_off_by_the_client_leaving_is_no_answer() {
        assert!(blocks("%begin 1 5 1\npartial\n").is_empty());
    }

    /// A fake `tmux -C` that confirms its session (unless `answered` is
    /// `None`), then answers each of its first `answered` lines after `delay`
    /// seconds, and then no more.
    fn fake_tmux(dir: &std::path::Path, delay: &str, answered: Option<usize>) -> Tmux {
        let (handshake, answered) = match answered {
            Some(n) => ("echo '%begin 1 0 0'; echo '$7'; echo '%end 1 0 0'", n),
            None => ("sleep 60", 0),
        };
        use std::os::unix::fs::PermissionsExt;
        let script = dir.join("tmux");
        let body = format!(
            "#!/bin/bash\n[ \"$1\" = -V ] && exit 0\nn=0\n{handshake}\n\
             while IFS= read -r line; do\n  n=$((n+1))\n\
             [ $n -gt {answered} ] && {{ sleep 60; exit; }}\n  sleep {delay}\n\
             echo \"%begin 1 $n 1\"; echo \"answer $n\"; echo \"%end 1 $n 1\"\ndone\n"
        );
        std::fs::write(&script, body).unwrap();
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
        Tmux::fake(&script, Duration::from_millis(600))
    }

    fn five_commands() -> Vec<Vec<OsString>> {
        (0..5)
            .map(|i| vec!["display".into(), "-p".into(), i.to_string().into()])
            .collect()
    }

    #[test]
    fn a_slow_but_steady_server_is_waited_for_past_the_timeout_in_all() {
        let dir = tempfile::tempdir().unwrap();
        let mut client = ControlClient::open(&fake_tmux(dir.path(), "0.25", Some(5))).unwrap();
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
        let mut client = ControlClient::open(&fake_tmux(dir.path(), "0", Some(2))).unwrap();
        let answers = client.run_each(&five_commands()).unwrap();
        assert!(answers[..2]
            .iter()
            .all(|a| a.as_ref().is_ok_and(|out| out.success)));
        for answer in &answers[2..] {
            assert!(matches!(answer, Err(TmuxError::TimedOut(_))), "{answer:?}");
        }
        assert!(!client.is_open(), "nothing more is sent to a silent client");
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
