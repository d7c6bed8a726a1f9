//! A queue whose items come out when they fall due, earliest first.
//!
//! A respawned session waits `resumeProbeSeconds` before its probe. Holding
//! a worker through that wait would make the roll of N sessions cost about
//! N / parallelism probe waits; parking the session here costs nothing, and
//! the probes of many sessions overlap.
//!
//! One consumer at a time waits for the earliest deadline (the timer); the
//! others wait to be woken. A roll at `--parallelism 500` has 500 probe
//! threads: when each push or each due item woke them all, the roll spent
//! most of a core on wakeups (250,000 for 500 sessions, measured with
//! `perf`); now a push or a pop wakes at most one thread, except a push
//! that is due before the timer's item, which wakes them all once.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Instant;

pub struct DeadlineQueue<T> {
    state: Mutex<State<T>>,
    changed: Condvar,
}

struct State<T> {
    due: BinaryHeap<Due<T>>,
    pushed: u64,
    closed: bool,
    /// A consumer is waiting for the earliest item's deadline.
    timed: bool,
}

/// Ordered so the heap's top is the earliest deadline; ties go in push order.
struct Due<T> {
    at: Instant,
    seq: u64,
    item: T,
}

impl<T> Ord for Due<T> {
    fn cmp(&self, other: &Self) -> Ordering {
        (other.at, other.seq).cmp(&(self.at, self.seq))
    }
}

impl<T> PartialOrd for Due<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<T> PartialEq for Due<T> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl<T> Eq for Due<T> {}

impl<T> Default for DeadlineQueue<T> {
    fn default() -> Self {
        DeadlineQueue {
            state: Mutex::new(State {
                due: BinaryHeap::new(),
                pushed: 0,
                closed: false,
                timed: false,
            }),
            changed: Condvar::new(),
        }
    }
}

impl<T> DeadlineQueue<T> {
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, State<T>> {
        // A worker that panicked cannot leave the heap half-updated (every
        // change is one push or pop), so a poisoned lock is still usable.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn push(&self, at: Instant, item: T) {
        let mut state = self.lock();
        let seq = state.pushed;
        state.pushed += 1;
        let earlier = state.due.peek().is_none_or(|top| at < top.at);
        state.due.push(Due { at, seq, item });
        let timed = state.timed;
        drop(state);
        match (earlier, timed) {
            // The timer waits for a later item: it must look again.
            (true, true) => self.changed.notify_all(),
            // Nobody waits for a deadline: one consumer becomes the timer.
            (_, false) => self.changed.notify_one(),
            // The timer's item comes first; it wakes the next consumer.
            (false, true) => {}
        }
    }

    /// No more items will come: [`pop_due`](Self::pop_due) drains what is
    /// left and then returns `None`.
    pub fn close(&self) {
        self.lock().closed = true;
        self.changed.notify_all();
    }

    /// Blocks until the earliest item is due and returns it; `None` once the
    /// queue is closed and empty. Items already queued are still handed out
    /// after `close`, each when it falls due.
    pub fn pop_due(&self) -> Option<T> {
        let mut state = self.lock();
        loop {
            let now = Instant::now();
            let wait = match state.due.peek() {
                Some(top) if top.at <= now => {
                    let item = state.due.pop().map(|d| d.item);
                    let (more, closed) = (!state.due.is_empty(), state.closed);
                    drop(state);
                    if more {
                        // Someone must wait for the next deadline.
                        self.changed.notify_one();
                    } else if closed {
                        // The last item: every idle consumer can finish.
                        self.changed.notify_all();
                    }
                    return item;
                }
                Some(top) if !state.timed => Some(top.at - now),
                None if state.closed => return None,
                _ => None,
            };
            state = match wait {
                Some(wait) => {
                    state.timed = true;
                    let mut woken = self
                        .changed
                        .wait_timeout(state, wait)
                        .unwrap_or_else(|e| e.into_inner())
                        .0;
                    woken.timed = false;
                    woken
                }
                None => self.changed.wait(state).unwrap_or_else(|e| e.into_inner()),
            };
        }
    }
}

/// Closes the queue when dropped, so consumers finish even if a producer panics.
pub struct CloseOnDrop<'a, T>(pub &'a DeadlineQueue<T>);

impl<T> Drop for CloseOnDrop<'_, T> {
    fn drop(&mut self) {
        self.0.close();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn items_come_out_earliest_deadline_first_whatever_the_push_order() {
        let queue = DeadlineQueue::new();
        let start = Instant::now();
        queue.push(start + Duration::from_millis(60), "late");
        queue.push(start + Duration::from_millis(20), "early");
        queue.push(start + Duration::from_millis(20), "early, pushed second");
        queue.push(start, "now");
        queue.close();
        let order: Vec<&str> = std::iter::from_fn(|| queue.pop_due()).collect();
        assert_eq!(order, ["now", "early", "early, pushed second", "late"]);
    }

    #[test]
    fn an_item_is_not_handed_out_before_it_is_due() {
        let queue = DeadlineQueue::new();
        let due = Instant::now() + Duration::from_millis(80);
        queue.push(due, 1);
        assert_eq!(queue.pop_due(), Some(1));
        assert!(Instant::now() >= due);
    }

    #[test]
    fn a_waiting_consumer_wakes_for_an_earlier_item_pushed_later() {
        let queue = DeadlineQueue::new();
        let start = Instant::now();
        queue.push(start + Duration::from_secs(30), "far");
        std::thread::scope(|scope| {
            let consumer = scope.spawn(|| queue.pop_due());
            std::thread::sleep(Duration::from_millis(30));
            queue.push(Instant::now(), "near");
            assert_eq!(consumer.join().unwrap(), Some("near"));
        });
        assert!(start.elapsed() < Duration::from_secs(30));
    }

    #[test]
    fn many_consumers_each_get_one_item_and_all_finish_after_close() {
        let queue = DeadlineQueue::new();
        let start = Instant::now();
        let got = Mutex::new(Vec::new());
        std::thread::scope(|scope| {
            for _ in 0..16 {
                scope.spawn(|| {
                    while let Some(item) = queue.pop_due() {
                        got.lock().unwrap().push(item);
                    }
                });
            }
            for i in 0..64u32 {
                queue.push(start + Duration::from_millis(u64::from(i % 8) * 5), i);
                if i % 16 == 0 {
                    std::thread::sleep(Duration::from_millis(3));
                }
            }
            queue.close();
        });
        let mut got = got.into_inner().unwrap();
        got.sort();
        assert_eq!(got, (0..64).collect::<Vec<_>>());
    }

    #[test]
    fn closing_wakes_idle_consumers_and_drains_what_is_left() {
        let queue: DeadlineQueue<u8> = DeadlineQueue::new();
        std::thread::scope(|scope| {
            let idle = scope.spawn(|| queue.pop_due());
            std::thread::sleep(Duration::from_millis(30));
            queue.close();
            assert_eq!(idle.join().unwrap(), None);
        });
        let queue = DeadlineQueue::new();
        queue.push(Instant::now() + Duration::from_millis(10), 7);
        drop(CloseOnDrop(&queue));
        assert_eq!(queue.pop_due(), Some(7));
        assert_eq!(queue.pop_due(), None);
    }
}
