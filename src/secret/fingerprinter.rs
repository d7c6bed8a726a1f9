//! Naming values under the configured mode, and saying which mode a
//! plan's fingerprints were made under. The rules are in
//! [`super::fingerprint`]; this applies them, with the key when there is one.

use super::fingerprint::{guessable, Fingerprint, FingerprintMode, Seal, Shown};
use super::key::FingerprintKey;
use std::fmt;
use std::sync::Arc;

/// Which fingerprints a plan holds: the mode, and the id of the key it
/// used (keyed fingerprints, or sealing withheld values), so a plan made
/// under another mode or key is never compared with one made now.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
pub struct FingerprintLabel {
    pub mode: FingerprintMode,
    /// The key's id (an HMAC of a fixed label under it, never the key);
    /// null when no key was used.
    pub key_id: Option<Fingerprint>,
}

impl FingerprintLabel {
    /// Whether fingerprints made under `self` and under `other` can be
    /// compared: the same mode and, where a key was used on both sides,
    /// the same key. (A `sha256` plan uses the key only to seal withheld
    /// values; one side without a key then has none to seal.)
    pub fn comparable(&self, other: &FingerprintLabel) -> bool {
        self.mode == other.mode
            && match (self.key_id, other.key_id) {
                (Some(a), Some(b)) => a == b,
                _ => self.mode == FingerprintMode::Sha256,
            }
    }

    /// Whether the fingerprints a person sees differ from `previous`'s:
    /// another mode, or another key in `keyed` mode.
    pub fn shows_differently_from(&self, previous: &FingerprintLabel) -> bool {
        self.mode != previous.mode
            || (self.mode == FingerprintMode::Keyed && self.key_id != previous.key_id)
    }
}

/// `sha256`, or `keyed (key 1a2b3c4d)`.
impl fmt::Display for FingerprintLabel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.mode, self.key_id) {
            (FingerprintMode::Keyed, Some(id)) => write!(f, "keyed (key {id})"),
            (mode, _) => f.write_str(mode.as_str()),
        }
    }
}

/// Fingerprints values under the configured mode. Without the key, a
/// keyed fingerprint is withheld rather than computed some other way: no
/// path falls back to a plain hash.
#[derive(Clone, Default)]
pub struct Fingerprinter {
    mode: FingerprintMode,
    key: Option<Arc<FingerprintKey>>,
}

impl Fingerprinter {
    pub fn new(mode: FingerprintMode) -> Self {
        Fingerprinter { mode, key: None }
    }

    pub fn with_key(mut self, key: FingerprintKey) -> Self {
        self.key = Some(Arc::new(key));
        self
    }

    pub fn mode(&self) -> FingerprintMode {
        self.mode
    }

    pub fn label(&self) -> FingerprintLabel {
        FingerprintLabel {
            mode: self.mode,
            key_id: self.key.as_deref().map(FingerprintKey::id),
        }
    }

    /// Whether this value's fingerprint is withheld in this mode.
    pub fn withholds(&self, value: &[u8]) -> bool {
        self.mode == FingerprintMode::Sha256 && guessable(value)
    }

    /// What stands for a value that may be secret.
    pub fn show(&self, value: &[u8]) -> Shown {
        if self.withholds(value) {
            return Shown::Withheld;
        }
        self.show_public(value)
    }

    /// What stands for a value that is not secret and is shown elsewhere
    /// anyway (the-loop's own identifiers: a ref, the config's path, the
    /// instance's name): never withheld for being short, still keyed in
    /// `keyed` mode, so every fingerprint follows the one mode.
    pub fn show_public(&self, value: &[u8]) -> Shown {
        match (self.mode, &self.key) {
            (FingerprintMode::Sha256, _) => Shown::Fingerprint(Fingerprint::of(value)),
            (FingerprintMode::Keyed, Some(key)) => Shown::Fingerprint(key.fingerprint(value)),
            (FingerprintMode::Keyed, None) => Shown::Withheld,
        }
    }

    /// A keyed digest of `parts`, or `None` without the key.
    pub fn seal(&self, parts: &[&[u8]]) -> Option<Seal> {
        self.key.as_deref().map(|key| key.seal(parts))
    }
}

impl fmt::Debug for Fingerprinter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Fingerprinter")
            .field("mode", &self.mode)
            .field("key", &self.key.as_deref())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_mode_shows_sha256sum_s_fingerprint_of_a_long_value() {
        let plain = Fingerprinter::new(FingerprintMode::Sha256);
        assert_eq!(
            plain.show(b"xoxb-bot-a-the-new-one"),
            Shown::Fingerprint(Fingerprint::of(b"xoxb-bot-a-the-new-one"))
        );
    }

    #[test]
    fn sha256_mode_withholds_guessable_values_and_keyed_mode_shows_them() {
        let plain = Fingerprinter::new(FingerprintMode::Sha256);
        assert_eq!(plain.show(b"1234"), Shown::Withheld);
        assert_eq!(
            plain.show_public(b"1234"),
            Shown::Fingerprint(Fingerprint::of(b"1234"))
        );
        let key = FingerprintKey::from_bytes([3; 32]);
        let expected = key.fingerprint(b"1234");
        let keyed = Fingerprinter::new(FingerprintMode::Keyed).with_key(key);
        assert_eq!(keyed.show(b"1234"), Shown::Fingerprint(expected));
        assert_ne!(keyed.show(b"1234"), plain.show_public(b"1234"));
        // Without its key a keyed fingerprint is withheld, never plain.
        let keyless = Fingerprinter::new(FingerprintMode::Keyed);
        assert_eq!(keyless.show(b"a-long-random-token-1f3e"), Shown::Withheld);
    }

    #[test]
    fn labels_compare_by_mode_and_key() {
        let k1 = FingerprintKey::from_bytes([1; 32]).id();
        let k2 = FingerprintKey::from_bytes([2; 32]).id();
        let label = |mode, key_id| FingerprintLabel { mode, key_id };
        let sha = FingerprintMode::Sha256;
        let keyed = FingerprintMode::Keyed;
        assert!(label(sha, None).comparable(&label(sha, None)));
        assert!(label(sha, Some(k1)).comparable(&label(sha, None)));
        assert!(!label(sha, Some(k1)).comparable(&label(sha, Some(k2))));
        assert!(!label(sha, None).comparable(&label(keyed, Some(k1))));
        assert!(!label(keyed, Some(k1)).comparable(&label(keyed, Some(k2))));
        assert!(label(keyed, Some(k1)).comparable(&label(keyed, Some(k1))));
        assert!(!label(sha, Some(k1)).shows_differently_from(&label(sha, None)));
        assert!(label(keyed, Some(k1)).shows_differently_from(&label(keyed, Some(k2))));
        assert_eq!(
            label(keyed, Some(k1)).to_string(),
            format!("keyed (key {k1})")
        );
    }
}
