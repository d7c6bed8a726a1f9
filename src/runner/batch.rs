//! Many tmux commands through few tmux clients, each with its own answer.
//!
//! A roll sends four tmux commands per session (provenance, remain-on-exit,
//! `respawn-pane`, the probe). Started one client each, 100 sessions cost
//! about 400 client processes. [`Batcher`] is what the roll's workers send
//! them to. Each worker writes its commands to the roll's one control-mode
//! client ([`super::control`]) and is answered as soon as tmux has run
//! them, so a roll of any size costs one client and no worker waits for
//! another's commands. When no control client can be had (a refusal, or a
//! word a command line cannot carry) it gathers the commands that the
//! workers send at about the same moment into one
//! `cmd \; display -p MARK \; cmd …` sequence, a few clients per wave.
//! `docs/bench/apply-tmux-clients.md` ("Apply: tmux clients per wave") has
//! the measurements.
//!
//! What a batch must not change: each command's own answer. In a sequence
//! a command that fails stops the rest (tmux drops the rest of the group),
//! so the marker after each command says how far the sequence got: the
//! commands before the failure answered, the failed one gets the client's
//! stderr, and the rest are sent again. A client that does not answer in
//! time makes every command it carried unanswered, never "absent".

use super::control::{ControlClient, NotSent, OpenError};
use crate::tmux::{means_no_server, Tmux, TmuxError, TmuxOutput};
use std::collections::HashMap;
use std::ffi::OsString;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

/// tmux refuses a command sequence longer than one message to its server
/// (16 KiB of arguments, each with its NUL); a batch is cut below that.
const ARGV_BUDGET: usize = 15_500;

/// How long the first command of a batch waits for others. The workers of
/// a wave reach the same step within a few milliseconds of each other; one
/// tmux client costs about as much as this wait.
const GATHER: Duration = Duration::from_millis(10);

pub use crate::tmux::{Answer, Run};

/// Runs `commands` in as few tmux clients as fit, each answered alone.
pub fn run_each(tmux: &Tmux, commands: &[Vec<OsString>]) -> Vec<Answer> {
    let mut answers: Vec<Option<Answer>> = vec![None; commands.len()];
    let mut next = 0;
    while next < commands.len() {
        let nonce = uuid::Uuid::new_v4().simple().to_string();
        let marker = |i: usize| format!("tl-batch-{} {i}", &nonce[..12]);
        let (mut argv, mut size, mut end) = (Vec::<OsString>::new(), 0, next);
        while end < commands.len() {
            let mark = [
                "display".into(),
                "-p".into(),
                marker(end - next).into(),
                ";".into(),
            ];
            let part: usize = commands[end]
                .iter()
                .chain(&mark)
                .map(|a| a.len() + 1)
                .sum::<usize>()
                + 2;
            if end > next && size + part > ARGV_BUDGET {
                break;
            }
            argv.extend(commands[end].iter().cloned());
            argv.push(";".into());
            argv.extend(mark);
            size += part;
            end += 1;
        }
        argv.pop(); // the last `;`
        let out = match tmux.run(&argv) {
            Ok(out) => out,
            Err(err) => {
                for answer in &mut answers[next..end] {
                    *answer = Some(Err(err.clone()));
                }
                next = end;
                continue;
            }
        };
        let read = split_answers(&out, &marker, end - next);
        if let [Ok(failed)] = read.as_slice() {
            if !failed.success && means_no_server(&failed.stderr) {
                // No server: every command gets the same answer, without
                // one client each to hear it again.
                for answer in &mut answers[next..] {
                    *answer = Some(Ok(failed.clone()));
                }
                break;
            }
        }
        let at = next + read.len();
        for (slot, answer) in answers[next..at].iter_mut().zip(read) {
            *slot = Some(answer);
        }
        next = at;
    }
    answers
        .into_iter()
        .map(|a| a.unwrap_or(Err(TmuxError::Spawn("not sent".into()))))
        .collect()
}

/// Reads one client's output for `count` commands whose markers are
/// `marker(0..count)` (relative to the chunk): every command whose marker
/// came back answered, and the one after the last marker failed, with the
/// client's stderr. Commands after a failure are left out: they never ran.
fn split_answers(out: &TmuxOutput, marker: &dyn Fn(usize) -> String, count: usize) -> Vec<Answer> {
    let mut answers = Vec::new();
    let mut stdout = String::new();
    for line in out.stdout.split_inclusive('\n') {
        if answers.len() < count && line.trim_end_matches('\n') == marker(answers.len()) {
            answers.push(Ok(TmuxOutput {
                success: true,
                stdout: std::mem::take(&mut stdout),
                stderr: String::new(),
            }));
        } else {
            stdout.push_str(line);
        }
    }
    if answers.len() < count {
        // This command stopped the sequence: the error is its own.
        answers.push(Ok(TmuxOutput {
            success: false,
            stdout,
            stderr: out.stderr.clone(),
        }));
    }
    answers
}

/// Sends the commands of concurrent callers through shared tmux clients:
/// the roll's control client, or else `\;` sequences, where the first
/// caller to find no batch in flight leads: it waits `GATHER`, takes
/// every command queued by then, runs them and hands each caller its
/// answer. Commands queued while a batch runs go in the next one.
pub struct Batcher<'a> {
    tmux: &'a Tmux,
    state: Mutex<State>,
    answered: Condvar,
    /// The roll's one control-mode client, opened at the first call and
    /// shared by every caller.
    control: Mutex<Control>,
}

enum Control {
    NotYet,
    Open(Arc<ControlClient>),
    /// Refused, timed out or ended: `\;` sequences from here on.
    Unavailable,
}

#[derive(Default)]
struct State {
    queued: Vec<(u64, Vec<OsString>)>,
    answers: HashMap<u64, Answer>,
    next_id: u64,
    leading: bool,
}

impl<'a> Batcher<'a> {
    pub fn new(tmux: &'a Tmux) -> Self {
        Batcher {
            tmux,
            state: Mutex::new(State::default()),
            answered: Condvar::new(),
            control: Mutex::new(Control::NotYet),
        }
    }

    /// The roll's control client, opened at the first call; `Err` with
    /// how long tmux was silent when it did not answer the open, `Ok(None)`
    /// when there is none (refused, or ended since): `\;` sequences then.
    fn control(&self) -> Result<Option<Arc<ControlClient>>, Duration> {
        let mut control = self.control.lock().unwrap_or_else(|e| e.into_inner());
        if matches!(*control, Control::NotYet) {
            let (opened, silent_for) = match ControlClient::open(self.tmux) {
                Ok(client) => (Control::Open(Arc::new(client)), None),
                Err(OpenError::TimedOut(after)) => (Control::Unavailable, Some(after)),
                Err(OpenError::Refused) => (Control::Unavailable, None),
            };
            *control = opened;
            if let Some(after) = silent_for {
                return Err(after);
            }
        }
        match &*control {
            Control::Open(client) if client.is_open() => Ok(Some(Arc::clone(client))),
            Control::Open(_) => {
                *control = Control::Unavailable;
                Ok(None)
            }
            _ => Ok(None),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // Every change is a push, a take or an insert: a panic between them
        // leaves nothing half-done.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Batcher<'_> {
    /// Runs `commands` in this order, in the same batch (so in one tmux
    /// client unless an earlier one fails), each answered alone.
    pub fn run_together<const N: usize>(&self, commands: [Vec<OsString>; N]) -> [Answer; N] {
        let mut answers = self.run_all(commands.into()).into_iter();
        std::array::from_fn(|_| {
            answers
                .next()
                .unwrap_or(Err(TmuxError::Spawn("not sent".into())))
        })
    }

    /// [`Batcher::run_together`] for any number of commands. Through the
    /// control client each caller sends its own lines and returns as soon
    /// as they are answered; otherwise callers are gathered into `\;`
    /// sequences.
    pub fn run_all(&self, commands: Vec<Vec<OsString>>) -> Vec<Answer> {
        match self.control() {
            Ok(Some(client)) => match client.run_each(&commands) {
                Ok(answers) => answers,
                // A line break in a word: argv carries it.
                Err(NotSent::Unwritable) => run_each(self.tmux, &commands),
            },
            // The server is silent: a sequence would wait as long again.
            Err(after) => commands
                .iter()
                .map(|_| Err(TmuxError::TimedOut(after)))
                .collect(),
            Ok(None) => self.gathered(commands),
        }
    }

    /// Runs `commands` in the next `\;` sequence: the first caller to find
    /// none in flight leads, waits [`GATHER`] for others, and hands each
    /// caller its answers.
    fn gathered(&self, commands: Vec<Vec<OsString>>) -> Vec<Answer> {
        let mut state = self.lock();
        let first = state.next_id;
        let ids: Vec<u64> = (first..first + commands.len() as u64).collect();
        state.next_id += commands.len() as u64;
        state.queued.extend(ids.iter().copied().zip(commands));
        loop {
            if ids.iter().all(|id| state.answers.contains_key(id)) {
                return ids
                    .iter()
                    .map(|id| {
                        state
                            .answers
                            .remove(id)
                            .unwrap_or(Err(TmuxError::Spawn("not sent".into())))
                    })
                    .collect();
            }
            if state.leading {
                state = self.answered.wait(state).unwrap_or_else(|e| e.into_inner());
                continue;
            }
            state.leading = true;
            drop(state);
            std::thread::sleep(GATHER);
            let batch = std::mem::take(&mut self.lock().queued);
            let (sent, commands): (Vec<u64>, Vec<Vec<OsString>>) = batch.into_iter().unzip();
            let answers = run_each(self.tmux, &commands);
            state = self.lock();
            state.leading = false;
            state.answers.extend(sent.into_iter().zip(answers));
            self.answered.notify_all();
        }
    }
}

impl Run for Batcher<'_> {
    fn run_command(&self, args: Vec<OsString>) -> Answer {
        let [answer] = self.run_together([args]);
        answer
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marker(i: usize) -> String {
        format!("tl-batch-0123456789ab {i}")
    }

    fn output(stdout: &str, stderr: &str) -> TmuxOutput {
        TmuxOutput {
            success: stderr.is_empty(),
            stdout: stdout.into(),
            stderr: stderr.into(),
        }
    }

    fn read(answer: &Answer) -> (bool, &str, &str) {
        let out = answer.as_ref().expect("answered");
        (out.success, out.stdout.as_str(), out.stderr.as_str())
    }

    #[test]
    fn each_command_gets_the_output_before_its_own_marker() {
        let stdout = format!("a1\na2\n{}\n{}\nc1\n{}\n", marker(0), marker(1), marker(2));
        let answers = split_answers(&output(&stdout, ""), &marker, 3);
        assert_eq!(answers.len(), 3);
        assert_eq!(read(&answers[0]), (true, "a1\na2\n", ""));
        assert_eq!(read(&answers[1]), (true, "", ""));
        assert_eq!(read(&answers[2]), (true, "c1\n", ""));
    }

    #[test]
    fn a_failed_command_alone_gets_the_error_and_the_ones_after_it_are_not_answered() {
        // The second command failed: tmux ran nothing after it.
        let stdout = format!("a1\n{}\npartial\n", marker(0));
        let answers = split_answers(&output(&stdout, "can't find pane: %9"), &marker, 4);
        assert_eq!(answers.len(), 2, "the third and fourth are sent again");
        assert_eq!(read(&answers[0]), (true, "a1\n", ""));
        assert_eq!(
            read(&answers[1]),
            (false, "partial\n", "can't find pane: %9")
        );
    }

    #[test]
    fn a_marker_of_another_call_or_out_of_order_is_only_output() {
        let stdout = format!("tl-batch-ffffffffffff 0\n{}\n{}\n", marker(1), marker(0));
        let answers = split_answers(&output(&stdout, "no"), &marker, 2);
        assert_eq!(answers.len(), 2);
        let expected = format!("tl-batch-ffffffffffff 0\n{}\n", marker(1));
        assert_eq!(read(&answers[0]), (true, expected.as_str(), ""));
        assert!(!read(&answers[1]).0);
    }
}
