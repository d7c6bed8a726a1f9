//! The residue comparison and its text, on a policy and layers made here.

use super::*;
use crate::desired::envfile::EnvFile;
use crate::observed::residue::TmuxLayers;
use std::collections::BTreeMap;

fn with_global_residue() -> Residue {
    Residue {
        state: ResidueState::Observed,
        reason: None,
        server_pid: Some(7),
        entries: vec![ResidueEntry {
            layer: Layer::TmuxGlobal,
            session: None,
            name: "TOKEN".into(),
            fingerprint: Shown::Fingerprint(crate::secret::Fingerprint::of(b"retired")),
            case: ChangeCase::Stale,
            scrubbable: true,
        }],
        unobserved: Vec::new(),
        detached: Vec::new(),
        say_plans_get_cheaper: false,
    }
}

#[test]
fn the_cheaper_plans_line_is_said_only_when_asked_and_keyed_on_fingerprints() {
    let mut residue = with_global_residue();
    assert!(!render(&residue, Style::PLAIN).contains(CHEAPER_AFTER_SCRUB));
    residue.say_plans_get_cheaper = true;
    assert!(render(&residue, Style::PLAIN).contains(CHEAPER_AFTER_SCRUB));
    let key = residue.scrub_key().unwrap();
    assert_eq!(key.len(), 16);
    assert_eq!(with_global_residue().scrub_key(), Some(key.clone()));
    residue.entries[0].fingerprint = Shown::Fingerprint(crate::secret::Fingerprint::of(b"other"));
    assert_ne!(residue.scrub_key(), Some(key));
    residue.entries[0].scrubbable = false;
    assert_eq!(residue.scrub_key(), None);
}

fn policy() -> Policy {
    let dir = tempfile::tempdir().unwrap();
    let env = dir.path().join(".env");
    std::fs::write(
        &env,
        "TOKEN=current-token-value\nOTHER=o-current-value\nDELIVERED=d-value-1234\n",
    )
    .unwrap();
    let config_path = dir.path().join("cli-config.yaml");
    std::fs::write(
        &config_path,
        "env:\n  file: .env\n  deliver: [DELIVERED]\n  credentials: [EXTRA]\n",
    )
    .unwrap();
    let config = crate::desired::config::load(&config_path).unwrap();
    Policy::new(&config, Some(EnvFile::load(&env).unwrap())).unwrap()
}

fn env(pairs: &[(&str, &str)]) -> ProcessEnv {
    ProcessEnv::from_pairs(pairs.iter().map(|(k, v)| (*k, v.as_bytes().to_vec())))
}

#[test]
fn every_layer_is_compared_with_the_withheld_names() {
    let layers = TmuxLayers {
        server_pid: Some(77),
        tmux_version: None,
        global: Some(env(&[
            ("TOKEN", "retired-token-value"),
            ("DELIVERED", "old"),
            ("PATH", "/bin"),
        ])),
        sessions: BTreeMap::from([
            ("loop-a".to_owned(), env(&[("OTHER", "o-current-value")])),
            ("loop-b".to_owned(), env(&[])),
        ]),
        unobserved_sessions: vec!["loop-c".into()],
        server_environ: EnvRead::Read(env(&[("EXTRA", "x"), ("TOKEN", "retired-token-value")])),
        server_argv: Ok(vec![
            SecretValue::new("tmux"),
            SecretValue::new("new-session"),
            SecretValue::new("-e"),
            SecretValue::new("TOKEN=argv-value"),
            SecretValue::new("-eEXTRA=glued"),
            SecretValue::new("sh -c 'echo current-token-value'"),
            SecretValue::new("DELIVERED=not-withheld"),
        ]),
    };
    let residue = compare(&policy(), &ResidueView::Observed(layers));
    insta::assert_json_snapshot!(residue);
    let text = render(&residue, Style::PLAIN);
    insta::assert_snapshot!(text);
    for value in [
        "retired-token-value",
        "current-token-value",
        "argv-value",
        "glued",
    ] {
        assert!(!text.contains(value));
        assert!(!serde_json::to_string(&residue).unwrap().contains(value));
    }
}

#[test]
fn nothing_to_say_when_no_server_or_clean() {
    let residue = compare(&policy(), &ResidueView::NoServer);
    assert_eq!(residue.state, ResidueState::NoServer);
    assert_eq!(render(&residue, Style::PLAIN), "");
    let clean = TmuxLayers {
        server_pid: Some(1),
        tmux_version: None,
        global: Some(env(&[("PATH", "/bin")])),
        sessions: BTreeMap::new(),
        unobserved_sessions: vec![],
        server_environ: EnvRead::Read(env(&[])),
        server_argv: Ok(vec![SecretValue::new("tmux")]),
    };
    let residue = compare(&policy(), &ResidueView::Observed(clean));
    assert!(residue.entries.is_empty());
    assert_eq!(render(&residue, Style::PLAIN), "");
}

#[test]
fn unanswered_is_said_never_read_as_clean() {
    let residue = compare(
        &policy(),
        &ResidueView::Unanswered("tmux did not answer within 5s".into()),
    );
    assert_eq!(residue.state, ResidueState::Unanswered);
    assert!(render(&residue, Style::PLAIN).contains("not checked"));
}
