//! One way to spread per-session work over the cores: `/proc` reads and
//! filesystem checks for hundreds of sessions, whose answers come back in
//! the order asked ([`map`]); and one way for concurrent workers to share
//! a reading none of them may take stale ([`SharedPass`]).

/// The cores this process may use, asked once: the answer reads cgroup
/// files (four opens), and a plan splits several passes across the cores.
/// Asked only when a pass is large enough to split.
fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// `each` of `items`, split across the cores (at most one thread per
/// `per_thread` items, so a handful of items is done on this thread), the
/// answers in the order of `items`. A panic in a worker is raised here.
pub fn map<T: Sync, R: Send>(
    items: &[T],
    per_thread: usize,
    each: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let wanted = items.len().div_ceil(per_thread.max(1));
    let threads = match wanted {
        0 | 1 => 1,
        _ => cores().min(wanted),
    };
    if threads == 1 {
        return items.iter().map(each).collect();
    }
    let chunk = items.len().div_ceil(threads);
    // The first part is done on this thread, which would only wait.
    let (first, rest) = items.split_at(chunk.min(items.len()));
    std::thread::scope(|scope| {
        let workers: Vec<_> = rest
            .chunks(chunk)
            .map(|part| {
                let each = &each;
                scope.spawn(move || part.iter().map(each).collect::<Vec<R>>())
            })
            .collect();
        let mut answers: Vec<R> = first.iter().map(&each).collect();
        for worker in workers {
            answers.extend(
                worker
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            );
        }
        answers
    })
}

/// One reading (a pass over `/proc`, say) shared by concurrent callers,
/// none of whom is answered with a reading begun before it called: a caller
/// that finds a pass under way waits for it to end, then joins the next
/// one, which answers every caller that came meanwhile. So N callers at
/// once cost about two passes, not N, and each gets what a pass of its own
/// would have read.
pub struct SharedPass<T> {
    state: std::sync::Mutex<PassState<T>>,
    ended: std::sync::Condvar,
}

struct PassState<T> {
    /// Calls so far.
    asked: u64,
    /// Whether a pass is under way.
    running: bool,
    /// The newest pass, with the number of calls made before it began: it
    /// answers those calls, and no later one.
    newest: Option<(u64, std::sync::Arc<T>)>,
}

impl<T> SharedPass<T> {
    pub const fn new() -> Self {
        SharedPass {
            state: std::sync::Mutex::new(PassState {
                asked: 0,
                running: false,
                newest: None,
            }),
            ended: std::sync::Condvar::new(),
        }
    }

    /// What `read` read in a pass begun after this call: this caller's own,
    /// or one another caller began meanwhile.
    pub fn begun_after_this_call(&self, read: impl FnOnce() -> T) -> std::sync::Arc<T> {
        use std::sync::PoisonError;
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.asked += 1;
        let mine = state.asked;
        loop {
            if let Some((answers, reading)) = &state.newest {
                if *answers >= mine {
                    return std::sync::Arc::clone(reading);
                }
            }
            if !state.running {
                state.running = true;
                let answers = state.asked;
                drop(state);
                // Whatever happens in the pass, the callers waiting are let go.
                let ended = Ended(self);
                let reading = std::sync::Arc::new(read());
                self.state
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .newest = Some((answers, std::sync::Arc::clone(&reading)));
                drop(ended);
                return reading;
            }
            state = self
                .ended
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
}

impl<T> Default for SharedPass<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// Ends a pass: marks none under way and wakes the callers waiting.
struct Ended<'a, T>(&'a SharedPass<T>);

impl<T> Drop for Ended<'_, T> {
    fn drop(&mut self) {
        self.0
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .running = false;
        self.0.ended.notify_all();
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_item_is_answered_once_in_order() {
        for count in [0, 1, 7, 64, 65, 1000] {
            let items: Vec<usize> = (0..count).collect();
            let doubled = super::map(&items, 64, |n| n * 2);
            assert_eq!(doubled, items.iter().map(|n| n * 2).collect::<Vec<_>>());
        }
    }

    #[test]
    fn a_call_is_answered_by_a_pass_begun_after_it() {
        use std::sync::atomic::{AtomicU64, Ordering};
        let shared = super::SharedPass::new();
        let passes = AtomicU64::new(0);
        let pass = || passes.fetch_add(1, Ordering::SeqCst) + 1;
        // One at a time: each call its own pass.
        assert_eq!(*shared.begun_after_this_call(pass), 1);
        assert_eq!(*shared.begun_after_this_call(pass), 2);
        // A call made while a pass runs is not answered by that pass.
        let (began, go_on) = (std::sync::Barrier::new(2), std::sync::Barrier::new(2));
        std::thread::scope(|scope| {
            let first = scope.spawn(|| {
                *shared.begun_after_this_call(|| {
                    began.wait();
                    go_on.wait();
                    pass()
                })
            });
            began.wait();
            let late = scope.spawn(|| *shared.begun_after_this_call(pass));
            // The late call has asked (it waits on the pass under way).
            while shared.state.lock().unwrap().asked < 4 {
                std::thread::yield_now();
            }
            go_on.wait();
            assert_eq!(first.join().unwrap(), 3);
            assert_eq!(late.join().unwrap(), 4, "a pass begun after the call");
        });
    }

    #[test]
    fn callers_at_once_share_passes() {
        use std::sync::atomic::{AtomicU64, Ordering};
        let shared = super::SharedPass::new();
        let passes = AtomicU64::new(0);
        let calls = 64;
        let start = std::sync::Barrier::new(calls);
        std::thread::scope(|scope| {
            for _ in 0..calls {
                scope.spawn(|| {
                    start.wait();
                    shared.begun_after_this_call(|| {
                        std::thread::sleep(std::time::Duration::from_millis(20));
                        passes.fetch_add(1, Ordering::SeqCst)
                    });
                });
            }
        });
        let passes = passes.load(Ordering::SeqCst);
        assert!(
            (1..=calls as u64 / 4).contains(&passes),
            "{passes} passes for {calls} calls"
        );
    }
}
