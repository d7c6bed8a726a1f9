//! Who is waiting for which answer of a control-mode client.
//!
//! tmux answers the lines of one client in the order it read them, so the
//! lines in flight form one queue: whoever writes lines takes the next ids
//! (under the same lock as the write, so ids follow the order on the wire),
//! and each answer that comes back belongs to the oldest id still waiting.
//! Each caller is woken as its own answers arrive, not when a whole batch
//! is done: in a roll, a session's probe clock starts when tmux has
//! respawned its pane, however many respawns were sent after it.
//!
//! Silence is measured from the last answer (or from the send, when nothing
//! was in flight): a busy server answers a long queue slowly but steadily,
//! and a stuck one not at all.

use super::blocks::Block;
use crate::tmux::Answer;
use crate::tmux::{TmuxError, TmuxOutput};
use std::collections::{HashMap, VecDeque};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How the client stopped answering.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ended {
    /// Its output ended, or a line could not be written to it.
    Closed,
    /// Nothing came back for a whole timeout while lines were in flight.
    Silent,
}

/// One caller's lines in flight: their ids, and where their answers go.
/// Each caller has a channel of its own, so an answer wakes the one caller
/// it belongs to: with one condition variable for all, each of 500
/// answers woke all 500 callers of a wide roll.
pub(super) struct Pending {
    ids: Vec<u64>,
    answers: Receiver<(u64, Answer)>,
}

pub(super) struct Wire {
    lines: Mutex<Lines>,
    timeout: Duration,
}

struct Lines {
    next: u64,
    /// Lines written and not yet answered, oldest first, each with its
    /// caller's channel. Emptied when the client ends, which wakes every
    /// caller still waiting (its channel disconnects).
    in_flight: VecDeque<(u64, Sender<(u64, Answer)>)>,
    /// The last answer, or the send that found nothing in flight.
    heard: Instant,
    ended: Option<Ended>,
}

impl Wire {
    pub fn new(timeout: Duration) -> Self {
        Wire {
            lines: Mutex::new(Lines {
                next: 0,
                in_flight: VecDeque::new(),
                heard: Instant::now(),
                ended: None,
            }),
            timeout,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Lines> {
        // Every change is a push, a pop or an assignment: a panic between
        // them leaves nothing half-done.
        self.lines.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn ended(&self) -> Option<Ended> {
        self.lock().ended
    }

    /// Takes ids for `count` lines about to be written; `None` once the
    /// client has ended. Call it while holding the writer, so ids follow
    /// the order of the lines on the wire.
    pub fn take_ids(&self, count: usize) -> Option<Pending> {
        let mut lines = self.lock();
        if lines.ended.is_some() {
            return None;
        }
        if lines.in_flight.is_empty() {
            lines.heard = Instant::now();
        }
        let (tx, answers) = mpsc::channel();
        let first = lines.next;
        lines.next += count as u64;
        let ids: Vec<u64> = (first..lines.next).collect();
        lines
            .in_flight
            .extend(ids.iter().map(|id| (*id, tx.clone())));
        Some(Pending { ids, answers })
    }

    /// The answer to the oldest line in flight (called by the reader).
    pub fn deliver(&self, block: Block) {
        let mut lines = self.lock();
        let Some((id, caller)) = lines.in_flight.pop_front() else {
            // An answer to no line of ours: nothing waits for it.
            return;
        };
        lines.heard = Instant::now();
        drop(lines);
        // A caller that stopped waiting (it found the client silent) is gone.
        let _ = caller.send((id, Ok(answer_of(block))));
    }

    /// No more answers will come; the first reason given stays.
    pub fn end(&self, why: Ended) {
        let mut lines = self.lock();
        lines.ended.get_or_insert(why);
        lines.in_flight.clear();
    }

    /// Waits for the answers to `pending`'s lines. Lines left unanswered
    /// when the client ended, or fell silent, get an error that says which;
    /// the second value is true when this wait is the one that found it
    /// silent (the caller then ends the client).
    pub fn wait(&self, pending: Pending) -> (Vec<Answer>, bool) {
        let Pending { ids, answers } = pending;
        let mut got: HashMap<u64, Answer> = HashMap::with_capacity(ids.len());
        let mut found_silent = false;
        while got.len() < ids.len() {
            let heard = self.lock().heard;
            let deadline = crate::clock::deadline_from(heard, self.timeout);
            let left = deadline.saturating_duration_since(Instant::now());
            match answers.recv_timeout(left) {
                Ok((id, answer)) => {
                    got.insert(id, answer);
                }
                Err(RecvTimeoutError::Disconnected) => break,
                Err(RecvTimeoutError::Timeout) => {
                    let mut lines = self.lock();
                    let silent_since = crate::clock::deadline_from(lines.heard, self.timeout);
                    if Instant::now() >= silent_since && lines.ended.is_none() {
                        lines.ended = Some(Ended::Silent);
                        lines.in_flight.clear();
                        found_silent = true;
                        break;
                    }
                }
            }
        }
        // Answers that came in before the end are still this caller's.
        got.extend(answers.try_iter());
        let ended = self.ended();
        let unanswered = || match ended {
            Some(Ended::Silent) => Err(TmuxError::TimedOut(self.timeout)),
            _ => Err(TmuxError::Spawn("the tmux control client ended".into())),
        };
        let answers = ids
            .iter()
            .map(|id| got.remove(id).unwrap_or_else(unanswered))
            .collect();
        (answers, found_silent)
    }
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
