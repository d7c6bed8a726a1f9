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

use super::super::batch::Answer;
use super::blocks::Block;
use crate::tmux::{TmuxError, TmuxOutput};
use std::collections::{HashMap, VecDeque};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How the client stopped answering.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ended {
    /// Its output ended, or a line could not be written to it.
    Closed,
    /// Nothing came back for a whole timeout while lines were in flight.
    Silent,
}

pub(super) struct Wire {
    lines: Mutex<Lines>,
    answered: Condvar,
    timeout: Duration,
}

struct Lines {
    next: u64,
    /// Ids of lines written and not yet answered, oldest first.
    in_flight: VecDeque<u64>,
    answers: HashMap<u64, Answer>,
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
                answers: HashMap::new(),
                heard: Instant::now(),
                ended: None,
            }),
            answered: Condvar::new(),
            timeout,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Lines> {
        // Every change is a push, a pop or an insert: a panic between them
        // leaves nothing half-done.
        self.lines.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn ended(&self) -> Option<Ended> {
        self.lock().ended
    }

    /// Takes ids for `count` lines about to be written; `None` once the
    /// client has ended. Call it while holding the writer, so ids follow
    /// the order of the lines on the wire.
    pub fn take_ids(&self, count: usize) -> Option<Vec<u64>> {
        let mut lines = self.lock();
        if lines.ended.is_some() {
            return None;
        }
        if lines.in_flight.is_empty() {
            lines.heard = Instant::now();
        }
        let first = lines.next;
        lines.next += count as u64;
        let ids: Vec<u64> = (first..lines.next).collect();
        lines.in_flight.extend(&ids);
        Some(ids)
    }

    /// The answer to the oldest line in flight (called by the reader).
    pub fn deliver(&self, block: Block) {
        let mut lines = self.lock();
        let Some(id) = lines.in_flight.pop_front() else {
            // An answer to no line of ours: nothing waits for it.
            return;
        };
        lines.heard = Instant::now();
        lines.answers.insert(id, Ok(answer_of(block)));
        self.answered.notify_all();
    }

    /// No more answers will come; the first reason given stays.
    pub fn end(&self, why: Ended) {
        let mut lines = self.lock();
        lines.ended.get_or_insert(why);
        self.answered.notify_all();
    }

    /// Waits for the answers to `ids`. Lines left unanswered when the
    /// client ended, or fell silent, get an error that says which; the
    /// second value is true when this wait is the one that found it silent
    /// (the caller then ends the client).
    pub fn wait(&self, ids: &[u64]) -> (Vec<Answer>, bool) {
        let mut lines = self.lock();
        let mut found_silent = false;
        loop {
            let all_in = ids.iter().all(|id| lines.answers.contains_key(id));
            if all_in || lines.ended.is_some() {
                break;
            }
            let deadline = crate::clock::deadline_from(lines.heard, self.timeout);
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                lines.ended = Some(Ended::Silent);
                found_silent = true;
                self.answered.notify_all();
                break;
            }
            lines = self
                .answered
                .wait_timeout(lines, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        let unanswered = |ended: Option<Ended>| match ended {
            Some(Ended::Silent) => Err(TmuxError::TimedOut(self.timeout)),
            _ => Err(TmuxError::Spawn("the tmux control client ended".into())),
        };
        let ended = lines.ended;
        let answers = ids
            .iter()
            .map(|id| {
                lines.answers.remove(id).unwrap_or_else(|| {
                    // The client has ended: no answer will take this id.
                    lines.in_flight.retain(|waiting| waiting != id);
                    unanswered(ended)
                })
            })
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
