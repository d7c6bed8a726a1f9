//! One way to spread per-session work over the cores: `/proc` reads and
//! filesystem checks for hundreds of sessions, whose answers come back in
//! the order asked.

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
}
