//! Fingerprints: how a value is named without being shown.
//!
//! Two modes, chosen by `env.fingerprint`:
//!
//! - `sha256` (the default): the first 8 hex digits of SHA-256 over the
//!   value's bytes, which anyone can check by hand
//!   (`printf %s "$V" | sha256sum | cut -c1-8`). It is an unsalted hash, so
//!   a value that can be guessed comes back from it by trying candidates:
//!   such a value ([`guessable`]) is never shown by fingerprint in this
//!   mode ([`Shown::Withheld`]). Its drift is still found, since plans
//!   compare values, never fingerprints.
//! - `keyed`: the first 8 hex digits of HMAC-SHA-256 under the local key
//!   ([`super::key`]), which nobody without the key file can recompute, so
//!   every value is shown; `the-loop fingerprint NAME` checks one by hand.
//!
//! [`Fingerprint::of`] itself is a plain digest, for things that are not
//! values (a registry record, watch's state). A value goes through a
//! [`super::Fingerprinter`], which applies the mode.

use sha2::{Digest, Sha256};
use std::fmt;

/// `env.fingerprint`: how values are named in plans, reports and events.
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
#[serde(rename_all = "lowercase")]
pub enum FingerprintMode {
    /// The first 8 hex digits of SHA-256: checkable by hand, and withheld
    /// for a value that can be guessed.
    #[default]
    Sha256,
    /// The first 8 hex digits of HMAC-SHA-256 under a key the-loop keeps
    /// under its state root: shown for every value, checkable with
    /// `the-loop fingerprint NAME`.
    Keyed,
}

impl FingerprintMode {
    pub fn as_str(self) -> &'static str {
        match self {
            FingerprintMode::Sha256 => "sha256",
            FingerprintMode::Keyed => "keyed",
        }
    }
}

/// What a withheld fingerprint is written as, in JSON and in text: a word
/// that no 8-digit hex fingerprint can be, and that `null` (absent) is not.
pub const WITHHELD: &str = "withheld";

/// What the text says beside a withheld fingerprint.
pub const WITHHELD_NOTE: &str =
    "(guessable value: fingerprint withheld, use env.fingerprint: keyed)";

/// What a text line that shows fingerprints ends with: [`WITHHELD_NOTE`]
/// after a space when one of them is withheld, else nothing.
pub fn note_if_withheld(shown: &[Option<Shown>]) -> String {
    if shown.iter().flatten().any(Shown::is_withheld) {
        format!(" {WITHHELD_NOTE}")
    } else {
        String::new()
    }
}

/// Shorter than this, a value is guessable whatever it holds.
pub const MIN_UNGUESSABLE_LEN: usize = 16;
/// Fewer distinct bytes than this is a run or a short pattern repeated.
pub const MIN_DISTINCT_BYTES: usize = 8;
/// An estimate below this many bits is guessable (see [`estimated_bits`]).
pub const MIN_ESTIMATED_BITS: f64 = 80.0;

/// Whether a value can be recovered from its plain SHA-256 by trying
/// candidates. A rule of thumb, deliberately wide, since withholding a
/// fingerprint costs only the hand check: a value is guessable when it is
///
/// - shorter than [`MIN_UNGUESSABLE_LEN`] (16) bytes: every PIN, port,
///   flag, region and short password;
/// - made of fewer than [`MIN_DISTINCT_BYTES`] (8) distinct bytes:
///   `0000000000000000`, `abababababababab`;
/// - or below [`MIN_ESTIMATED_BITS`] (80) by [`estimated_bits`]: 16 to 24
///   digits, 16 or 17 lowercase letters.
///
/// A value a person chose from a dictionary can pass all three
/// (`correct-horse-battery`); `env.fingerprint: keyed` is the answer for
/// an env file that holds such values.
pub fn guessable(value: &[u8]) -> bool {
    if value.len() < MIN_UNGUESSABLE_LEN {
        return true;
    }
    let mut seen = [false; 256];
    for b in value {
        seen[usize::from(*b)] = true;
    }
    let distinct = seen.iter().filter(|s| **s).count();
    distinct < MIN_DISTINCT_BYTES || estimated_bits(value) < MIN_ESTIMATED_BITS
}

/// Length × log2 of the size of the character classes the value uses:
/// digits (10), lowercase (26), uppercase (26), other printable ASCII
/// (33), and any other byte (128). What a search that knows the classes
/// (not the value) has to try.
pub fn estimated_bits(value: &[u8]) -> f64 {
    /// A character class: whether a byte is in it, and its size.
    type Class = (fn(&u8) -> bool, u32);
    let classes: [Class; 5] = [
        (u8::is_ascii_digit, 10),
        (u8::is_ascii_lowercase, 26),
        (u8::is_ascii_uppercase, 26),
        (
            |b| (b.is_ascii_graphic() && !b.is_ascii_alphanumeric()) || *b == b' ',
            33,
        ),
        (|b| !b.is_ascii_graphic() && *b != b' ', 128),
    ];
    let pool: u32 = classes
        .iter()
        .filter(|(class, _)| value.iter().any(class))
        .map(|(_, size)| size)
        .sum();
    f64::from(pool.max(1)).log2() * value.len() as f64
}

/// The first 8 lowercase hex digits of a digest: of a value (SHA-256 or
/// HMAC-SHA-256, see [`super::Fingerprinter`]), or of state (a record, watch's
/// desired state) through [`Fingerprint::of`].
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Fingerprint([u8; 8]);

impl Fingerprint {
    /// SHA-256 of `bytes`, cut to 8 hex digits. For a value, use a
    /// [`super::Fingerprinter`]: this does not know whether the value may be shown.
    pub fn of(bytes: &[u8]) -> Self {
        Self::from_digest(&Sha256::digest(bytes).into())
    }

    pub(super) fn from_digest(digest: &[u8; 32]) -> Self {
        let mut short = [0u8; 8];
        base16ct::lower::encode(&digest[..4], &mut short).expect("8 bytes hold 4 in hex");
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
            "description": "First 8 lowercase hex digits of a SHA-256 digest"
        })
    }
}

/// What stands for one value in a plan, a report or an event: its
/// fingerprint, or the word `withheld` when the mode may not show one.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Shown {
    Fingerprint(Fingerprint),
    /// A guessable value in `sha256` mode (or, defensively, a keyed
    /// fingerprint asked for without the key): never shown.
    Withheld,
}

impl Shown {
    pub fn as_str(&self) -> &str {
        match self {
            Shown::Fingerprint(fp) => fp.as_str(),
            Shown::Withheld => WITHHELD,
        }
    }

    pub fn is_withheld(&self) -> bool {
        matches!(self, Shown::Withheld)
    }
}

impl fmt::Display for Shown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Shown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Shown::Fingerprint(fp) => fmt::Debug::fmt(fp, f),
            Shown::Withheld => f.write_str("Withheld"),
        }
    }
}

impl serde::Serialize for Shown {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for Shown {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        if text == WITHHELD {
            return Ok(Shown::Withheld);
        }
        Fingerprint::parse(&text)
            .map(Shown::Fingerprint)
            .ok_or_else(|| serde::de::Error::custom("not a fingerprint, nor \"withheld\""))
    }
}

impl schemars::JsonSchema for Shown {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ValueFingerprint".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "pattern": "^([0-9a-f]{8}|withheld)$",
            "description": "A value's fingerprint (first 8 lowercase hex digits of its SHA-256, or of HMAC-SHA-256 under the local key with env.fingerprint: keyed), or \"withheld\": a guessable value whose sha256 fingerprint is never shown"
        })
    }
}

/// A keyed digest (16 hex digits of HMAC-SHA-256 under the local key) of
/// values whose fingerprints are withheld: changes with any of them, and
/// gives none of them back.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Seal([u8; 16]);

impl Seal {
    pub(super) fn from_digest(digest: &[u8; 32]) -> Self {
        let mut short = [0u8; 16];
        base16ct::lower::encode(&digest[..8], &mut short).expect("16 bytes hold 8 in hex");
        Seal(short)
    }

    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.0).expect("hex digits are ascii")
    }
}

impl fmt::Display for Seal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Seal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Seal({})", self.as_str())
    }
}

impl serde::Serialize for Seal {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for Seal {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        let bytes = text.as_bytes();
        if bytes.len() != 16 || !bytes.iter().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
            return Err(serde::de::Error::custom(
                "not a 16-digit lowercase hex seal",
            ));
        }
        let mut short = [0u8; 16];
        short.copy_from_slice(bytes);
        Ok(Seal(short))
    }
}

impl schemars::JsonSchema for Seal {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Seal".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "pattern": "^[0-9a-f]{16}$",
            "description": "16 hex digits of HMAC-SHA-256 under the local key"
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_fingerprints_match_sha256sum() {
        // printf %s abc | sha256sum | cut -c1-8
        assert_eq!(Fingerprint::of(b"").as_str(), "e3b0c442");
        assert_eq!(Fingerprint::of(b"abc").as_str(), "ba7816bf");
    }

    #[test]
    fn fingerprint_parse_rejects_non_hex() {
        assert!(Fingerprint::parse("ba7816bf").is_some());
        assert!(Fingerprint::parse("BA7816BF").is_none());
        assert!(Fingerprint::parse("ba7816b").is_none());
        assert!(Fingerprint::parse("zz7816bf").is_none());
        assert!(Fingerprint::parse(WITHHELD).is_none());
    }

    #[test]
    fn the_guessable_rule() {
        for weak in [
            "",
            "0000",
            "true",
            "eu-west-1",
            "0000000000000000",         // 1 distinct byte
            "abababababababababababab", // 2 distinct bytes
            "1234567890123456789012",   // 22 digits: 73 bits
            "abcdefghijklmnop",         // 16 lowercase letters: 75 bits
        ] {
            assert!(guessable(weak.as_bytes()), "{weak:?}");
        }
        // The rule's limit, as documented: a long dictionary-like value
        // passes it (lowercase, digits and '-': 98 bits by the estimate).
        assert!(!guessable(b"hunter2-password"));
        for strong in [
            "xoxb-bot-a-the-new-one",
            "xoxb-RETIRED-nc-1",
            "0f3b9c2e-8d41-4a57-b6e0-3c9d2f7a1b88",
            "AKIAIOSFODNN7EXAMPLE",
            "a1b2c3d4e5f6a7b8",
        ] {
            assert!(!guessable(strong.as_bytes()), "{strong:?}");
        }
    }

    #[test]
    fn withheld_reads_back_as_withheld_and_never_as_absent() {
        let json = serde_json::to_string(&[Some(Shown::Withheld), None]).unwrap();
        assert_eq!(json, r#"["withheld",null]"#);
        let back: Vec<Option<Shown>> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, vec![Some(Shown::Withheld), None]);
        assert!(serde_json::from_str::<Shown>(r#""nothex!!""#).is_err());
    }
}
