//! Errors that locate a mistake (file, line, column, key) without quoting the file.

use super::*;

#[test]
fn an_unknown_key_names_file_line_column_and_key_but_not_the_value() {
    let fixture = Fixture::new();
    let error = fixture.error(&format!(
        "routing:\n  tmux:\n    resumeOnRespawn: true\n    resumeOnRespwan: {CANARY}\n"
    ));
    assert_eq!(
        position(&error),
        (
            4,
            5,
            "routing.tmux.resumeOnRespwan",
            ProblemKind::UnknownKey
        )
    );
    assert_no_canary(&error);
    insta::assert_snapshot!("unknown_key", fixture.shown(&error));
}

#[test]
fn an_unknown_key_lists_the_keys_read_there_when_none_is_close() {
    let fixture = Fixture::new();
    let error = fixture.error("env:\n  colour: blue\n");
    assert_eq!(
        position(&error),
        (2, 3, "env.colour", ProblemKind::UnknownKey)
    );
    insta::assert_snapshot!("unknown_key_without_suggestion", fixture.shown(&error));
}

#[test]
fn an_unknown_top_level_section_is_an_error() {
    let fixture = Fixture::new();
    let error = fixture.error("routng:\n  announce: true\n");
    assert_eq!(position(&error), (1, 1, "routng", ProblemKind::UnknownKey));
    assert!(report(&error).contains("did you mean `routing`?"));
}

#[test]
fn a_snake_case_key_suggests_its_camel_case_spelling() {
    let error = Fixture::new().error("env:\n  session_passthrough: [LANG]\n");
    assert!(report(&error).contains("did you mean `sessionPassthrough`?"));
}

#[test]
fn a_key_that_may_be_a_secret_is_not_shown() {
    let fixture = Fixture::new();
    let error = fixture.error(&format!("env:\n  \"TOKEN={CANARY}\": 1\n"));
    assert_eq!(position(&error), (2, 3, "env.?", ProblemKind::UnknownKey));
    assert_no_canary(&error);
}

#[test]
fn a_wrong_type_error_never_shows_the_value() {
    let fixture = Fixture::new();
    let cases = [
        (
            "routing:\n  announce: VALUE\n",
            "routing.announce",
            "expected a boolean or a mapping",
        ),
        (
            "routing:\n  tmux:\n    remainOnExit: VALUE\n",
            "routing.tmux.remainOnExit",
            "expected a boolean",
        ),
        (
            "routing:\n  tmux:\n    resumeProbeSeconds: VALUE\n",
            "routing.tmux.resumeProbeSeconds",
            "expected a number",
        ),
        (
            "env:\n  credentials: VALUE\n",
            "env.credentials",
            "expected a list of names",
        ),
        (
            "env:\n  deliver: [[VALUE]]\n",
            "env.deliver[0]",
            "expected a string",
        ),
        ("env:\n  watch: VALUE\n", "env.watch", "expected a mapping"),
        (
            "routing:\n  tmux: VALUE\n",
            "routing.tmux",
            "expected a mapping",
        ),
        (
            "routing:\n  defaultHarness: VALUE\n",
            "routing.defaultHarness",
            "expected one of `claude`, `codex`, `cursor`, `cursor-agent`",
        ),
        (
            "routing:\n  harnessTrust:\n    scope: VALUE\n",
            "routing.harnessTrust.scope",
            "expected `workspace-root` or `directory`",
        ),
        (
            "routing:\n  webTerminal:\n    port: VALUE\n",
            "routing.webTerminal.port",
            "expected a port from 1 to 65535",
        ),
        (
            "routing:\n  authorizedUsers: VALUE\n",
            "routing.authorizedUsers",
            "expected a list",
        ),
        (
            "routing:\n  models:\n    opus: VALUE\n",
            "routing.models.opus",
            "expected a list",
        ),
        ("instance: [VALUE]\n", "instance", "expected a string"),
        ("VALUE\n", "(top level)", "expected a mapping"),
    ];
    for (text, key, problem) in cases {
        let error = fixture.error(&text.replace("VALUE", CANARY));
        assert_no_canary(&error);
        let shown = error.to_string();
        assert!(shown.ends_with(&format!(": {key}: {problem}")), "{shown}");
    }
}

#[test]
fn a_wrong_type_error_reads_well() {
    let fixture = Fixture::new();
    let error = fixture.error(&format!(
        "routing:\n  tmux:\n    resumeProbeSeconds: \"{CANARY}, expected\"\n"
    ));
    assert_eq!(
        position(&error),
        (
            3,
            25,
            "routing.tmux.resumeProbeSeconds",
            ProblemKind::WrongType
        )
    );
    assert_no_canary(&error);
    insta::assert_snapshot!("wrong_type", fixture.shown(&error));
}

#[test]
fn a_yaml_syntax_error_never_shows_the_text() {
    let fixture = Fixture::new();
    let error = fixture.error(&format!("instance: \"{CANARY}\nenv: {{\n"));
    assert_eq!(position(&error).3, ProblemKind::Syntax);
    assert_no_canary(&error);
}

#[test]
fn a_key_given_twice_is_an_error() {
    let fixture = Fixture::new();
    let error = fixture.error("routing:\n  announce: true\n  announce: false\n");
    let (line, _, key, kind) = position(&error);
    assert_eq!((key, kind), ("routing.announce", ProblemKind::DuplicateKey));
    assert!(line >= 2, "{error}");
}

#[test]
fn a_malformed_variable_name_is_located_but_not_shown() {
    let fixture = Fixture::new();
    let error = fixture.error(&format!(
        "env:\n  credentials:\n    - GOOD\n    - GITHUB_TOKEN={CANARY}\n"
    ));
    assert_eq!(
        position(&error),
        (4, 7, "env.credentials[1]", ProblemKind::InvalidValue)
    );
    assert_no_canary(&error);
}

#[test]
fn a_credential_cannot_pass_through() {
    let fixture = Fixture::new();
    let error = fixture.error(
        "env:\n  credentials: [GH_TOKEN, NPM_TOKEN]\n  deliver: [GH_TOKEN]\n  sessionPassthrough:\n    - LANG\n    - NPM_TOKEN\n",
    );
    assert_eq!(
        position(&error),
        (6, 7, "env.sessionPassthrough[1]", ProblemKind::Conflict)
    );
    assert!(!error.to_string().contains("NPM_TOKEN"));
    insta::assert_snapshot!("passthrough_credential", fixture.shown(&error));
}

#[test]
fn a_delivered_credential_is_fine() {
    let config = Fixture::new()
        .load("env:\n  credentials: [GH_TOKEN]\n  deliver: [GH_TOKEN]\n")
        .unwrap();
    assert_eq!(config.env.deliver, ["GH_TOKEN"]);
}

#[test]
fn values_out_of_range_are_located() {
    let fixture = Fixture::new();
    let cases = [
        (
            "routing:\n  tmux:\n    harnessKillGraceSeconds: -1\n",
            (3, 30),
            "routing.tmux.harnessKillGraceSeconds",
        ),
        (
            "routing:\n  tmux:\n    resumeProbeSeconds: .inf\n",
            (3, 25),
            "routing.tmux.resumeProbeSeconds",
        ),
        (
            "routing:\n  webTerminal:\n    port: 0\n",
            (3, 11),
            "routing.webTerminal.port",
        ),
        (
            "routing:\n  webTerminal:\n    host: ''\n",
            (3, 11),
            "routing.webTerminal.host",
        ),
        (
            "routing:\n  harnessPlugins:\n    marketplaceRepo: not a repo\n",
            (3, 22),
            "routing.harnessPlugins.marketplaceRepo",
        ),
        (
            "routing:\n  models:\n    opus: [high, --yolo]\n",
            (3, 18),
            "routing.models.opus[1]",
        ),
        ("state:\n  root: ''\n", (2, 9), "state.root"),
        ("instance: ''\n", (1, 11), "instance"),
    ];
    for (text, (line, column), key) in cases {
        let error = fixture.error(text);
        assert_eq!(
            position(&error),
            (line, column, key, ProblemKind::InvalidValue),
            "{text}"
        );
    }
}

#[test]
fn a_missing_or_unreadable_file_is_a_read_error() {
    let fixture = Fixture::new();
    let missing = fixture.path("absent.yaml");
    assert!(matches!(
        config::load(&missing),
        Err(ConfigError::Read { kind: std::io::ErrorKind::NotFound, path }) if path == missing
    ));
    // A directory is refused without being read, and said to be one.
    assert!(matches!(
        config::load(fixture.dir.path()),
        Err(ConfigError::Refused { reason, .. }) if reason.contains("a directory")
    ));
}
