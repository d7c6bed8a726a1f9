//! Values that must never be shown, and the fingerprints that stand in for them.
//!
//! [`SecretValue`] deliberately implements neither `Display` nor `Serialize`,
//! and its `Debug` prints a fixed placeholder, so no formatting path, log
//! field, JSON document or panic message can carry the bytes it holds. The
//! only way to the bytes is [`SecretValue::expose_bytes`], whose name makes
//! every use easy to audit with grep.

use sha2::{Digest, Sha256};
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

    pub fn fingerprint(&self) -> Fingerprint {
        Fingerprint::of(&self.0)
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

    pub fn fingerprint(&self) -> Fingerprint {
        Fingerprint::of(self.0)
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

/// The first 8 lowercase hex digits of SHA-256 over a value's bytes.
///
/// Anyone can check one with `printf %s "$V" | sha256sum | cut -c1-8`.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Fingerprint([u8; 8]);

impl Fingerprint {
    pub fn of(bytes: &[u8]) -> Self {
        let digest = Sha256::digest(bytes);
        let mut hex = [0u8; 64];
        let encoded = base16ct::lower::encode(&digest, &mut hex).expect("64 bytes hold a sha256");
        let mut short = [0u8; 8];
        short.copy_from_slice(&encoded[..8]);
        Fingerprint(short)
    }

    /// Parses an 8-digit lowercase hex fingerprint, as stored in a saved plan.
    pub fn parse(text: &str) -> Option<Self> {
        let bytes = text.as_bytes();
        if bytes.len() != 8
            || !bytes
                .iter()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b))
        {
            return None;
        }
        let mut short = [0u8; 8];
        short.copy_from_slice(bytes);
        Some(Fingerprint(short))
    }

    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.0).expect("hex digits are ascii")
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Fingerprint({})", self.as_str())
    }
}

impl serde::Serialize for Fingerprint {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for Fingerprint {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Fingerprint::parse(&text)
            .ok_or_else(|| serde::de::Error::custom("not an 8-digit lowercase hex fingerprint"))
    }
}

impl schemars::JsonSchema for Fingerprint {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Fingerprint".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "pattern": "^[0-9a-f]{8}$",
            "description": "First 8 lowercase hex digits of SHA-256 over the value's bytes"
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprint_matches_sha256sum_prefix() {
        // printf %s 'xoxb-bot-a-the-new-one' | sha256sum | cut -c1-8
        assert_eq!(Fingerprint::of(b"").as_str(), "e3b0c442");
        assert_eq!(Fingerprint::of(b"abc").as_str(), "ba7816bf");
    }

    #[test]
    fn debug_never_shows_the_value() {
        let value = SecretValue::new("hunter2-canary");
        let shown = format!("{value:?} {:?} {:?}", vec![value.clone()], value.borrowed());
        assert!(!shown.contains("hunter2"), "{shown}");
    }

    #[test]
    fn a_borrowed_value_equals_its_owner_and_fingerprints_alike() {
        let value = SecretValue::new("hunter2-canary");
        let borrowed = SecretRef::new(b"hunter2-canary");
        assert!(borrowed == value);
        assert!(value == borrowed);
        assert!(SecretRef::new(b"other") != value);
        assert_eq!(borrowed.fingerprint(), value.fingerprint());
        assert_eq!(borrowed.to_value(), value);
    }

    #[test]
    fn fingerprint_parse_rejects_non_hex() {
        assert!(Fingerprint::parse("ba7816bf").is_some());
        assert!(Fingerprint::parse("BA7816BF").is_none());
        assert!(Fingerprint::parse("ba7816b").is_none());
        assert!(Fingerprint::parse("zz7816bf").is_none());
    }
}
