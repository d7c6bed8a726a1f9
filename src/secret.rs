//! Values that must never be shown, and the fingerprints that stand in for them.
//!
//! [`SecretValue`] deliberately implements neither `Display` nor `Serialize`,
//! and its `Debug` prints a fixed placeholder, so no formatting path, log
//! field, JSON document or panic message can carry the bytes it holds. The
//! only way to the bytes is [`SecretValue::expose_bytes`], whose name makes
//! every use easy to audit with grep.
//!
//! A value is named by its fingerprint instead, and only through a
//! [`Fingerprinter`], which knows the configured mode (`env.fingerprint`):
//! neither value type has a way to fingerprint itself, so no code can show
//! a plain hash of a value that the mode says must be keyed or withheld.

pub mod fingerprint;
pub mod fingerprinter;
pub mod key;
pub mod store;

pub use fingerprint::{guessable, Fingerprint, FingerprintMode, Seal, Shown};
pub use fingerprinter::{FingerprintLabel, Fingerprinter};
pub use key::FingerprintKey;
use std::fmt;

/// A value read from the env file or from a process environment.
#[derive(Clone, PartialEq, Eq)]
pub struct SecretValue(Vec<u8>);

impl SecretValue {
    pub fn new(bytes: impl Into<Vec<u8>>) -> Self {
        Self(bytes.into())
    }

    /// The raw bytes. Call this only to hand the value to a process
    /// environment or to compare it; never to format it.
    pub fn expose_bytes(&self) -> &[u8] {
        &self.0
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for SecretValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SecretValue(<redacted>)")
    }
}

impl SecretValue {
    /// The same value, borrowed: what a [`SecretRef`] is compared with.
    pub fn borrowed(&self) -> SecretRef<'_> {
        SecretRef(&self.0)
    }
}

/// A value held in someone else's buffer (a process environment read
/// whole), with [`SecretValue`]'s guarantees: no `Display`, no `Serialize`,
/// and a `Debug` that prints the same placeholder. It exists so a plan can
/// look at hundreds of environments without copying each value out.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct SecretRef<'a>(&'a [u8]);

impl<'a> SecretRef<'a> {
    /// Wraps bytes that hold a value. Only readers of a whole buffer (a
    /// process environment) make one.
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        SecretRef(bytes)
    }

    /// The raw bytes. As with [`SecretValue::expose_bytes`]: only to hand
    /// the value on or to compare it, never to format it.
    pub fn expose_bytes(&self) -> &'a [u8] {
        self.0
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// An owned copy, for a value that must outlive the buffer.
    pub fn to_value(&self) -> SecretValue {
        SecretValue(self.0.to_vec())
    }
}

impl fmt::Debug for SecretRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SecretValue(<redacted>)")
    }
}

impl PartialEq<SecretValue> for SecretRef<'_> {
    fn eq(&self, other: &SecretValue) -> bool {
        self.0 == other.0.as_slice()
    }
}

impl PartialEq<SecretRef<'_>> for SecretValue {
    fn eq(&self, other: &SecretRef<'_>) -> bool {
        self.0.as_slice() == other.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_shows_the_value() {
        let value = SecretValue::new("hunter2-canary");
        let shown = format!("{value:?} {:?} {:?}", vec![value.clone()], value.borrowed());
        assert!(!shown.contains("hunter2"), "{shown}");
    }

    #[test]
    fn a_borrowed_value_equals_its_owner() {
        let value = SecretValue::new("hunter2-canary");
        let borrowed = SecretRef::new(b"hunter2-canary");
        assert!(borrowed == value);
        assert!(value == borrowed);
        assert!(SecretRef::new(b"other") != value);
        assert_eq!(borrowed.to_value(), value);
    }
}
