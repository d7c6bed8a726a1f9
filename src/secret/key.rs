//! The local fingerprint key: 32 random bytes that make a fingerprint
//! impossible to recompute without them.
//!
//! An unsalted SHA-256 of a value that can be guessed (a 4-digit PIN, a
//! region, `true`) gives the value back to anyone who tries the candidates.
//! HMAC-SHA-256 under a key that never leaves the state root does not: the
//! same search needs the key. Vault's audit log hashes with an HMAC under a
//! local key for the same reason.
//!
//! The key is a secret like any value: it has no `Display` and no
//! `Serialize`, its `Debug` prints a placeholder, and its bytes are zeroed
//! when it is dropped. What may be shown is its id ([`FingerprintKey::id`]),
//! an HMAC of a fixed label under it, which tells two keys apart and gives
//! nothing of either.

use super::fingerprint::{Fingerprint, Seal};
use hmac::{KeyInit, Mac};
use std::fmt;

type HmacSha256 = hmac::Hmac<sha2::Sha256>;

/// What the key id is the HMAC of: a label no value fingerprint is asked
/// for (values are HMACed bare, seals under their own label).
const KEY_ID_LABEL: &[u8] = b"the-loop/fingerprint-key-id/v1";
/// What every seal's input starts with, before its length-prefixed parts.
const SEAL_LABEL: &[u8] = b"the-loop/seal/v1";

pub struct FingerprintKey([u8; FingerprintKey::LEN]);

impl FingerprintKey {
    /// 32 bytes: HMAC-SHA-256's own block of strength.
    pub const LEN: usize = 32;

    pub fn from_bytes(bytes: [u8; Self::LEN]) -> Self {
        FingerprintKey(bytes)
    }

    /// A new key from the operating system's random source.
    pub fn generate() -> Result<Self, getrandom::Error> {
        let mut bytes = [0u8; Self::LEN];
        getrandom::fill(&mut bytes)?;
        Ok(FingerprintKey(bytes))
    }

    /// The raw bytes, to write the key file and nothing else.
    pub(super) fn expose_bytes(&self) -> &[u8; Self::LEN] {
        &self.0
    }

    fn mac(&self, parts: &[&[u8]]) -> [u8; 32] {
        let mut mac = <HmacSha256 as KeyInit>::new_from_slice(&self.0)
            .expect("HMAC takes a key of any length");
        for part in parts {
            mac.update(part);
        }
        mac.finalize().into_bytes().into()
    }

    /// The keyed fingerprint of `value`: the first 8 hex digits of
    /// HMAC-SHA-256(key, value), nothing added, so whoever holds the key
    /// can check one with `openssl dgst -sha256 -mac HMAC -macopt hexkey:…`.
    pub fn fingerprint(&self, value: &[u8]) -> Fingerprint {
        Fingerprint::from_digest(&self.mac(&[value]))
    }

    /// Names this key without giving it away: two plans made under
    /// different keys say so by their ids.
    pub fn id(&self) -> Fingerprint {
        Fingerprint::from_digest(&self.mac(&[KEY_ID_LABEL]))
    }

    /// A keyed digest of `parts` (each length-prefixed, so no two lists
    /// of parts run together into the same input): what stands in for
    /// withheld values where a change in them must still be noticed.
    pub fn seal(&self, parts: &[&[u8]]) -> Seal {
        let mut input: Vec<&[u8]> = vec![SEAL_LABEL];
        let lengths: Vec<[u8; 8]> = parts
            .iter()
            .map(|p| (p.len() as u64).to_le_bytes())
            .collect();
        for (part, length) in parts.iter().zip(&lengths) {
            input.push(length);
            input.push(part);
        }
        Seal::from_digest(&self.mac(&input))
    }
}

impl fmt::Debug for FingerprintKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FingerprintKey(<redacted>)")
    }
}

impl Drop for FingerprintKey {
    fn drop(&mut self) {
        self.0 = [0; Self::LEN];
        // Keeps the store from being optimised away as a dead write.
        std::hint::black_box(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 4231, test case 2: HMAC-SHA-256 with key "Jefe".
    #[test]
    fn keyed_fingerprints_are_hmac_sha256() {
        let mut mac = <HmacSha256 as KeyInit>::new_from_slice(b"Jefe").unwrap();
        mac.update(b"what do ya want for nothing?");
        let digest: [u8; 32] = mac.finalize().into_bytes().into();
        assert_eq!(Fingerprint::from_digest(&digest).as_str(), "5bdcc146");
        let key = FingerprintKey::from_bytes([7; 32]);
        assert_eq!(key.fingerprint(b"1234"), key.fingerprint(b"1234"));
        assert_ne!(key.fingerprint(b"1234"), key.fingerprint(b"1235"));
        assert_ne!(
            key.fingerprint(b"1234"),
            FingerprintKey::from_bytes([8; 32]).fingerprint(b"1234")
        );
    }

    #[test]
    fn the_id_and_the_debug_say_nothing_of_the_bytes() {
        let key = FingerprintKey::from_bytes([0xab; 32]);
        let hex = "ab".repeat(32);
        let shown = format!("{key:?} {}", key.id());
        assert!(!shown.contains(&hex[..8]), "{shown}");
        assert_ne!(key.id(), FingerprintKey::from_bytes([0xac; 32]).id());
    }

    #[test]
    fn seals_keep_their_parts_apart() {
        let key = FingerprintKey::from_bytes([1; 32]);
        assert_ne!(key.seal(&[b"ab", b"c"]), key.seal(&[b"a", b"bc"]));
        assert_eq!(key.seal(&[b"ab", b"c"]), key.seal(&[b"ab", b"c"]));
    }
}
