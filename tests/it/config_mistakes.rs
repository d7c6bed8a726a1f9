//! Issue 47: a config with several mistakes reports every one of them,
//! each with its file, line, column and key and a fix, never the value;
//! `validate` and `plan` show the same list. And every config error that
//! an operator can fix says how: a missing `--config` file, a wrong type,
//! a harness binary not on PATH.

use crate::support::*;
use tempfile::TempDir;
use the_loop::desired::config::{self, ConfigError, ProblemKind};

/// Planted where the file is wrong; no output may contain it.
const CANARY: &str = "CANARY_m1stakes_5e7b";

fn write(dir: &TempDir, text: &str) -> std::path::PathBuf {
    let path = dir.path().join("cli-config.yaml");
    std::fs::write(&path, text).unwrap();
    set_mode(&path, 0o600);
    path
}

fn load(text: &str) -> (TempDir, ConfigError) {
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir, text);
    let error = config::load(&path).expect_err("the config should be refused");
    (dir, error)
}

/// (line, key, kind) of every mistake an error reports, in order.
fn mistakes(error: &ConfigError) -> Vec<(usize, String, ProblemKind)> {
    let one = |e: &ConfigError| match e {
        ConfigError::Invalid {
            line, key, kind, ..
        } => (*line, key.clone(), *kind),
        other => panic!("expected an Invalid error, got {other:?}"),
    };
    match error {
        ConfigError::Mistakes { mistakes, .. } => mistakes.iter().map(one).collect(),
        other => vec![one(other)],
    }
}

use crate::config::report;

fn assert_no_canary_in(error: &ConfigError) {
    for text in [error.to_string(), format!("{error:?}"), report(error)] {
        assert!(!text.contains(CANARY), "leaks the value: {text}");
    }
}

#[test]
fn two_semantic_mistakes_are_both_reported() {
    let (dir, error) = load(&format!(
        "env:\n  credentials:\n    - GOOD\n    - TOKEN={CANARY}\nrouting:\n  tmux:\n    resumeProbeSeconds: 900\n  webTerminal:\n    port: 0\n"
    ));
    assert_eq!(
        mistakes(&error),
        vec![
            (4, "env.credentials[1]".into(), ProblemKind::InvalidValue),
            (
                7,
                "routing.tmux.resumeProbeSeconds".into(),
                ProblemKind::InvalidValue
            ),
            (
                9,
                "routing.webTerminal.port".into(),
                ProblemKind::InvalidValue
            ),
        ]
    );
    assert_no_canary_in(&error);
    let shown = report(&error).replace(&dir.path().display().to_string(), "[DIR]");
    insta::assert_snapshot!("three_mistakes", shown);
}

#[test]
fn two_unknown_keys_in_separate_sections_are_both_reported() {
    let (_dir, error) =
        load("env:\n  file: .env\n  colour: blue\nrouting:\n  tmux:\n    resumeOnRespwan: true\n");
    assert_eq!(
        mistakes(&error),
        vec![
            (3, "env.colour".into(), ProblemKind::UnknownKey),
            (
                6,
                "routing.tmux.resumeOnRespwan".into(),
                ProblemKind::UnknownKey
            ),
        ]
    );
}

#[test]
fn a_type_error_and_a_semantic_mistake_elsewhere_are_both_reported() {
    let (_dir, error) = load(&format!(
        "routing:\n  tmux:\n    remainOnExit: \"{CANARY}\"\n    harnessKillGraceSeconds: -1\nenv:\n  deliver: [\"A={CANARY}\"]\n"
    ));
    assert_eq!(
        mistakes(&error),
        vec![
            (
                3,
                "routing.tmux.remainOnExit".into(),
                ProblemKind::WrongType
            ),
            (
                4,
                "routing.tmux.harnessKillGraceSeconds".into(),
                ProblemKind::InvalidValue
            ),
            (6, "env.deliver[0]".into(), ProblemKind::InvalidValue),
        ]
    );
    assert_no_canary_in(&error);
}

#[test]
fn two_type_errors_are_both_reported() {
    let (_dir, error) = load(&format!(
        "routing:\n  announce: {CANARY}\n  tmux:\n    resumeProbeSeconds: \"{CANARY}\"\nenv:\n  credentials: {CANARY}\n"
    ));
    let found: Vec<(usize, String)> = mistakes(&error)
        .into_iter()
        .map(|(line, key, _)| (line, key))
        .collect();
    assert_eq!(
        found,
        vec![
            (2, "routing.announce".into()),
            (4, "routing.tmux.resumeProbeSeconds".into()),
            (6, "env.credentials".into()),
        ]
    );
    assert_no_canary_in(&error);
}

#[test]
fn a_single_mistake_is_still_one_error() {
    let (_dir, error) = load("routing:\n  tmux:\n    resumeProbeSeconds: 900\n");
    assert!(matches!(error, ConfigError::Invalid { .. }), "{error:?}");
}

/// `validate` and `plan` print the same list, and `validate --json`
/// carries each mistake as its own error.
#[test]
fn validate_and_plan_show_the_same_list() {
    let w = World::new();
    w.write_env("UNRELATED=1\n");
    w.write_raw_config(&format!(
        "env:\n  file: .env\n  colour: {CANARY}\nrouting:\n  tmux:\n    resumeProbeSeconds: 900\n    remainOnExit: {CANARY}\n"
    ));
    let validate = w.the_loop(&["validate"]);
    let plan = w.the_loop(&["plan"]);
    for out in [&validate, &plan] {
        assert_eq!(code(out), Some(1), "{}", explain(out));
        assert_no_canary(&out.stderr, &[CANARY], "stderr");
        assert_no_canary(&out.stdout, &[CANARY], "stdout");
    }
    assert_eq!(stderr(&validate), stderr(&plan));
    let text = stderr(&validate);
    for key in [
        "env.colour",
        "routing.tmux.resumeProbeSeconds",
        "routing.tmux.remainOnExit",
    ] {
        assert!(text.contains(key), "{key} missing from:\n{text}");
    }
    let json = json(&w.the_loop(&["validate", "--json"]));
    let errors = json["errors"].as_array().unwrap();
    let lines: Vec<u64> = errors.iter().map(|e| e["line"].as_u64().unwrap()).collect();
    assert_eq!(lines, vec![3, 6, 7], "{json:#}");
    for error in errors {
        assert_eq!(error["file"], w.config_path.display().to_string());
        assert!(error["help"].is_string(), "{error:#}");
    }
    assert!(!json.to_string().contains(CANARY));
}

#[test]
fn a_missing_config_file_names_the_path_tried_and_how_to_create_one() {
    let w = World::new();
    let missing = w.root().join("nowhere/cli-config.yaml");
    for out in [
        w.the_loop_bare()
            .arg("--config")
            .arg(&missing)
            .arg("validate")
            .output()
            .unwrap(),
        w.the_loop_bare()
            .env("THE_LOOP_CLI_CONFIG", &missing)
            .arg("plan")
            .output()
            .unwrap(),
    ] {
        assert_eq!(code(&out), Some(1), "{}", explain(&out));
        let text = flat(&stderr(&out));
        assert!(
            text.contains(&flat(&missing.display().to_string())),
            "{text}"
        );
        assert!(text.contains(&flat("create the file")), "{text}");
        assert!(text.contains(&flat("examples/cli-config.yaml")), "{text}");
    }
}

#[test]
fn a_wrong_type_names_the_type_the_key_takes() {
    let (_dir, error) = load(&format!(
        "routing:\n  tmux:\n    remainOnExit: {CANARY}\n    resumeProbeSeconds: \"{CANARY}\"\n"
    ));
    let ConfigError::Mistakes { mistakes, .. } = &error else {
        panic!("expected two mistakes: {error:?}");
    };
    let helps: Vec<String> = mistakes
        .iter()
        .map(|m| match m {
            ConfigError::Invalid { help, .. } => help.clone().unwrap_or_default(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert!(
        helps[0].starts_with("routing.tmux.remainOnExit takes a boolean: write `true` or `false`"),
        "{helps:?}"
    );
    assert!(
        helps[1].starts_with("routing.tmux.resumeProbeSeconds takes a number"),
        "{helps:?}"
    );
    assert_no_canary_in(&error);
}

/// A harness binary not on PATH is a warning from `validate` (exit 0: a
/// host that only plans needs no harness), naming the binary and the key
/// that sets it; `plan` is not failed by it; `sessions start` refuses the
/// launch, naming the key too.
#[test]
fn a_harness_binary_not_on_path_is_named_with_the_key_that_sets_it() {
    let w = World::new();
    w.write_env("UNRELATED=1\n");
    w.write_config_with_routing("  harnessBinary:\n    claude: no-such-harness-9f1\n");
    let out = w.the_loop(&["validate"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let text = flat(&stdout(&out));
    assert!(text.contains("warning:"), "{text}");
    assert!(text.contains("`no-such-harness-9f1`"), "{text}");
    assert!(text.contains("routing.harnessBinary.claude"), "{text}");

    let json = json(&w.the_loop(&["validate", "--json"]));
    assert_eq!(json["valid"], true, "{json:#}");
    let warnings = json["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{json:#}");
    assert_eq!(warnings[0]["code"], "the_loop::config::harness_not_found");
    assert_eq!(warnings[0]["line"], 10, "{json:#}");

    let plan = w.the_loop(&["plan", "--detailed-exitcode"]);
    assert_eq!(code(&plan), Some(0), "{}", explain(&plan));

    let cwd = w.work.join("one");
    std::fs::create_dir_all(&cwd).unwrap();
    let start = w.the_loop(&[
        "sessions",
        "start",
        "github:octo/repo#1",
        "--cwd",
        cwd.to_str().unwrap(),
    ]);
    assert_ne!(code(&start), Some(0), "{}", explain(&start));
    let said = flat(&format!("{}{}", stdout(&start), stderr(&start)));
    assert!(said.contains("no-such-harness-9f1"), "{said}");
    assert!(said.contains("routing.harnessBinary.claude"), "{said}");
}

/// The default harness, not configured, missing from PATH: the warning
/// says which key would set it.
#[test]
fn a_default_harness_not_on_path_is_a_warning_too() {
    let w = World::new();
    w.write_env("UNRELATED=1\n");
    let out = w.the_loop_with(&["validate", "--json"], &[("PATH", "/nonexistent")]);
    let json = json(&out);
    assert_eq!(code(&out), Some(0), "{json:#}");
    let warnings = json["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{json:#}");
    let message = warnings[0]["message"].as_str().unwrap();
    assert!(message.contains("`claude`"), "{message}");
    assert!(
        message.contains("set routing.harnessBinary.claude"),
        "{message}"
    );
    assert!(warnings[0]["line"].is_null());
}
