//! One process's environment as it was read: the `environ` bytes, whole,
//! with an index of where each entry lies.
//!
//! A plan reads hundreds of environments and looks up a handful of names in
//! each. Copying every entry out into a map of owned strings cost a tenth of
//! the plan's CPU (two allocations an entry, then the sort and the frees), so
//! the bytes stay in one buffer and [`ProcessEnv::get`] hands out a
//! [`SecretRef`] into it. The index keeps the file's order and a lookup
//! walks it from the end: for the few names a plan asks, that is cheaper
//! than sorting, and the last entry of a name wins as it does for the
//! process's own `getenv`.

use crate::secret::SecretRef;
use std::collections::BTreeMap;
use std::fmt;

/// Environment of one process, values unprintable.
#[derive(Clone, Default)]
pub struct ProcessEnv {
    bytes: Vec<u8>,
    /// One per `NAME=value` entry, in the file's order.
    entries: Vec<Entry>,
}

/// Where one `NAME=value` entry lies in the buffer.
#[derive(Clone, Copy)]
struct Entry {
    start: usize,
    equals: usize,
    end: usize,
}

impl ProcessEnv {
    /// An `environ` file's bytes: `NAME=value` entries, each ended by a NUL.
    /// An entry without `=` is not a variable and is dropped. A name that is
    /// not UTF-8 cannot be declared in an env file: no lookup can match it,
    /// and [`ProcessEnv::names`] leaves it out.
    pub fn from_environ(mut bytes: Vec<u8>) -> Self {
        bytes.shrink_to_fit();
        let mut entries = Vec::with_capacity(memchr::memchr_iter(0, &bytes).count() + 1);
        let mut start = 0;
        while start < bytes.len() {
            let end = memchr::memchr(0, &bytes[start..]).map_or(bytes.len(), |at| start + at);
            if let Some(at) = memchr::memchr(b'=', &bytes[start..end]) {
                entries.push(Entry {
                    start,
                    equals: start + at,
                    end,
                });
            }
            start = end + 1;
        }
        ProcessEnv { bytes, entries }
    }

    pub fn from_pairs<K: Into<String>, V: Into<Vec<u8>>>(
        pairs: impl IntoIterator<Item = (K, V)>,
    ) -> Self {
        let mut bytes = Vec::new();
        for (name, value) in pairs {
            let name: String = name.into();
            // A name holding `=` would split elsewhere when read back; no
            // process can hold one, so neither can this.
            if name.contains(['=', '\0']) {
                continue;
            }
            bytes.extend_from_slice(name.as_bytes());
            bytes.push(b'=');
            bytes.extend(value.into().into_iter().take_while(|b| *b != 0));
            bytes.push(0);
        }
        Self::from_environ(bytes)
    }

    pub fn get(&self, name: &str) -> Option<SecretRef<'_>> {
        self.entries
            .iter()
            .rev()
            .find(|e| self.name_of(e) == name.as_bytes())
            .map(|e| self.value_of(e))
    }

    /// The value of `name` as a path, its bytes whole (a path need not be
    /// UTF-8). The harnesses find their conversations from such paths
    /// (`HOME`, `CLAUDE_CONFIG_DIR`, `CODEX_HOME`), whether the environment
    /// is a running process's or the one a launch will give.
    pub fn path(&self, name: &str) -> Option<std::path::PathBuf> {
        use std::os::unix::ffi::OsStrExt;
        self.get(name)
            .map(|v| std::ffi::OsStr::from_bytes(v.expose_bytes()).into())
    }

    /// The names, sorted, each once.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.by_name()
            .into_keys()
            .filter_map(|name| std::str::from_utf8(name).ok())
    }

    /// Each name with the value that wins, sorted by name.
    fn by_name(&self) -> BTreeMap<&[u8], SecretRef<'_>> {
        self.entries
            .iter()
            .map(|e| (self.name_of(e), self.value_of(e)))
            .collect()
    }

    fn name_of(&self, entry: &Entry) -> &[u8] {
        &self.bytes[entry.start..entry.equals]
    }

    fn value_of(&self, entry: &Entry) -> SecretRef<'_> {
        SecretRef::new(&self.bytes[entry.equals + 1..entry.end])
    }
}

/// Two environments are equal when they hold the same names with the same
/// values, however their entries were ordered or repeated.
impl PartialEq for ProcessEnv {
    fn eq(&self, other: &Self) -> bool {
        self.by_name() == other.by_name()
    }
}

impl Eq for ProcessEnv {}

/// The names, with every value shown as the placeholder.
impl fmt::Debug for ProcessEnv {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let vars: BTreeMap<_, _> = self
            .by_name()
            .into_iter()
            .map(|(name, value)| (String::from_utf8_lossy(name), value))
            .collect();
        f.debug_struct("ProcessEnv").field("vars", &vars).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(env: &ProcessEnv, name: &str) -> Option<Vec<u8>> {
        env.get(name).map(|v| v.expose_bytes().to_vec())
    }

    #[test]
    fn environ_entries_split_at_the_first_equals_and_a_later_name_wins() {
        let bytes = b"A=1\0B=x=y\0noequals\0=empty-name\0A=2\0\xff=bad\0C=\0A=3\0".to_vec();
        let env = ProcessEnv::from_environ(bytes);
        assert_eq!(value(&env, "A"), Some(b"3".to_vec()));
        assert_eq!(value(&env, "B"), Some(b"x=y".to_vec()));
        assert_eq!(value(&env, "C"), Some(Vec::new()));
        assert_eq!(value(&env, ""), Some(b"empty-name".to_vec()));
        assert_eq!(value(&env, "noequals"), None);
        assert_eq!(value(&env, "D"), None);
        assert_eq!(env.names().collect::<Vec<_>>(), ["", "A", "B", "C"]);
        assert_eq!(value(&env, "\u{fffd}"), None);
    }

    #[test]
    fn a_path_keeps_its_bytes_whole() {
        use std::os::unix::ffi::OsStrExt;
        let env = ProcessEnv::from_environ(b"HOME=/h/\xff\0A=\0".to_vec());
        let want = std::path::Path::new(std::ffi::OsStr::from_bytes(b"/h/\xff"));
        assert_eq!(env.path("HOME").as_deref(), Some(want));
        assert_eq!(env.path("A"), Some(std::path::PathBuf::new()));
        assert_eq!(env.path("B"), None);
    }

    #[test]
    fn a_last_entry_without_its_nul_is_still_read() {
        let env = ProcessEnv::from_environ(b"A=1\0B=2".to_vec());
        assert_eq!(value(&env, "B"), Some(b"2".to_vec()));
        assert_eq!(ProcessEnv::from_environ(Vec::new()), ProcessEnv::default());
    }

    /// std's own parse of the test process's environment is the oracle.
    #[test]
    fn every_name_of_a_real_environment_is_found_with_its_value() {
        let bytes = std::fs::read("/proc/self/environ").unwrap();
        let env = ProcessEnv::from_environ(bytes);
        // Collected in the environment's order, so a later name wins here too.
        let oracle: std::collections::BTreeMap<String, Vec<u8>> = std::env::vars_os()
            .filter_map(|(k, v)| {
                Some((
                    k.into_string().ok()?,
                    std::os::unix::ffi::OsStringExt::into_vec(v),
                ))
            })
            .collect();
        for (name, want) in &oracle {
            assert_eq!(value(&env, name).as_ref(), Some(want), "{name}");
        }
        assert_eq!(env.names().count(), oracle.len());
    }

    #[test]
    fn equal_by_content_whatever_the_order_and_debug_shows_no_value() {
        let a = ProcessEnv::from_pairs([("A", "1"), ("B", "canary-value")]);
        let b = ProcessEnv::from_pairs([("B", "stale"), ("A", "1"), ("B", "canary-value")]);
        assert_eq!(a, b);
        assert_ne!(a, ProcessEnv::from_pairs([("A", "1")]));
        assert_ne!(a, ProcessEnv::from_pairs([("A", "1"), ("B", "other")]));
        let shown = format!("{b:?}");
        assert!(
            shown.contains("\"B\"") && !shown.contains("canary"),
            "{shown}"
        );
    }
}
