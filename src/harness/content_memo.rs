//! What was read from a harness's user config, kept beside the very bytes
//! it was read from.
//!
//! Every spawn and respawn asks whether the harness's user config already
//! holds what it needs, and nearly always it does (the roll before wrote
//! it). Those files grow with every project the harness has opened, so a
//! roll of N sessions reading a file of N projects N times cost the square
//! of the fleet. A [`ContentMemo`] reads a file's content once: a later
//! caller holding the same bytes (compared whole, which costs far less
//! than reading them as JSON or TOML) gets what was read from them; other
//! bytes are read afresh and replace them. Nothing is ever answered for
//! bytes it was not read from.
//!
//! The bytes stay in memory, one file's worth per kind, and go nowhere
//! else: a user config may hold a credential, so [`ContentMemo`] has no
//! `Debug` and no way to hand them out.

use std::sync::{Arc, Mutex};

/// The last content read and what was read from it (`None`: the reader
/// was unsure, and said so).
type Remembered<S> = Option<(Arc<[u8]>, Option<Arc<S>>)>;

/// One content of one kind of file and its reading.
pub struct ContentMemo<S> {
    last: Mutex<Remembered<S>>,
}

impl<S> ContentMemo<S> {
    pub const fn new() -> Self {
        ContentMemo {
            last: Mutex::new(None),
        }
    }

    /// What `read` makes of `bytes`, read at most once per content. The
    /// lock is held while a new content is read, so a wave of respawns
    /// reads it once, not once each.
    pub fn read(&self, bytes: &[u8], read: impl FnOnce(&[u8]) -> Option<S>) -> Option<Arc<S>> {
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((seen, reading)) = last.as_ref() {
            if **seen == *bytes {
                return reading.clone();
            }
        }
        let reading = read(bytes).map(Arc::new);
        *last = Some((Arc::from(bytes), reading.clone()));
        reading
    }
}

impl<S> Default for ContentMemo<S> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn each_content_is_read_once_in_a_row_and_never_answered_for_another() {
        let memo: ContentMemo<usize> = ContentMemo::new();
        let reads = AtomicUsize::new(0);
        let len = |bytes: &[u8]| {
            reads.fetch_add(1, Ordering::SeqCst);
            (!bytes.is_empty()).then_some(bytes.len())
        };
        assert_eq!(memo.read(b"abc", len).as_deref(), Some(&3));
        assert_eq!(memo.read(b"abc", len).as_deref(), Some(&3));
        assert_eq!(reads.load(Ordering::SeqCst), 1);
        assert_eq!(memo.read(b"abcd", len).as_deref(), Some(&4));
        assert_eq!(memo.read(b"", len), None);
        assert_eq!(memo.read(b"", len), None, "an unsure reading is kept too");
        assert_eq!(memo.read(b"abc", len).as_deref(), Some(&3));
        assert_eq!(reads.load(Ordering::SeqCst), 4);
    }
}
