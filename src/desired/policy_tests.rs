//! Unit tests of `policy.rs`: what is withheld, sealed and fingerprinted.

use super::*;
use crate::desired::envfile::{parse, EnvFile};

fn policy(mode: &str, env: &[u8]) -> Policy {
    let mut config = crate::desired::config::Config {
        path: "/srv/loop/cli-config.yaml".into(),
        state_root: "/srv/loop".into(),
        instance: Some("prod".into()),
        env: Default::default(),
        routing: crate::desired::config::Routing::default(),
    };
    config.env.fingerprint = match mode {
        "keyed" => FingerprintMode::Keyed,
        _ => FingerprintMode::Sha256,
    };
    let file = EnvFile {
        path: "/srv/loop/.env".into(),
        entries: parse(env).unwrap(),
    };
    let mut policy = Policy::new(&config, Some(file)).unwrap();
    if policy.needs_key() {
        policy.attach_key(FingerprintKey::from_bytes([4; 32]));
    }
    policy
}

const LONG: &str = "xoxb-bot-a-the-new-one";

#[test]
fn a_guessable_value_is_withheld_and_sealed_in_sha256_mode() {
    let p = policy("sha256", format!("TOKEN={LONG}\nDB_PIN=1234\n").as_bytes());
    let shown = p.file_fingerprints();
    assert_eq!(
        shown["TOKEN"],
        Shown::Fingerprint(crate::secret::Fingerprint::of(LONG.as_bytes()))
    );
    assert_eq!(shown["DB_PIN"], Shown::Withheld);
    let seal = p.withheld_seal().expect("a withheld value is sealed");
    let other = policy("sha256", format!("TOKEN={LONG}\nDB_PIN=1235\n").as_bytes());
    assert_ne!(Some(seal), other.withheld_seal(), "its change is noticed");
    assert_eq!(
        other.file_fingerprints(),
        shown,
        "though nothing shown differs"
    );
    // The-loop's own identifiers are public: never withheld.
    assert!(!p.show(VAR_INSTANCE, b"prod").is_withheld());
    assert!(p.show("DEBUG", b"prod").is_withheld());
}

#[test]
fn nothing_is_withheld_or_sealed_in_keyed_mode_or_without_a_guessable_value() {
    let keyed = policy("keyed", b"DB_PIN=1234\n");
    assert!(!keyed.file_fingerprints()["DB_PIN"].is_withheld());
    assert_eq!(keyed.withheld_seal(), None);
    let strong = policy("sha256", format!("TOKEN={LONG}\n").as_bytes());
    assert!(!strong.needs_key());
    assert_eq!(strong.withheld_seal(), None);
}

#[test]
fn the_file_state_follows_values_not_the_mode() {
    let env = format!("TOKEN={LONG}\nDB_PIN=1234\n");
    let sha = policy("sha256", env.as_bytes());
    let keyed = policy("keyed", env.as_bytes());
    assert_eq!(sha.file_state(), keyed.file_state());
    let rotated = policy("keyed", format!("TOKEN={LONG}\nDB_PIN=4321\n").as_bytes());
    assert_ne!(keyed.file_state(), rotated.file_state());
    // A long value's part is its plain fingerprint, as before the modes.
    assert_eq!(
        sha.file_state()["TOKEN"],
        crate::secret::Fingerprint::of(LONG.as_bytes()).to_string()
    );
    // A guessable one's is sealed, never its plain fingerprint.
    let plain = crate::secret::Fingerprint::of(b"1234").to_string();
    assert!(!sha.file_state().values().any(|v| v.contains(&plain)));
    assert_eq!(sha.file_state()["DB_PIN"], "withheld");
}
