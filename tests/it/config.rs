//! `cli-config.yaml`: defaults, every key, paths, discovery, tolerated
//! sections, and errors that locate a mistake without quoting the file.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::Duration;
use tempfile::TempDir;
use the_loop::desired::config::{
    self, BypassPermissions, Config, ConfigError, EnvSettings, HarnessPlugins, HarnessSettings,
    HarnessTrust, Host, ProblemKind, Routing, TmuxSettings, TrustScope, WebTerminal,
};

/// A value planted where the file is wrong; no error output may contain it.
const CANARY: &str = "CANARY_s3cr3t_91f2";

/// A temporary directory holding `cli-config.yaml`.
struct Fixture {
    dir: TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        Fixture {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.dir.path().join(relative)
    }

    fn write(&self, relative: &str, text: &str) -> PathBuf {
        let path = self.path(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    fn load(&self, text: &str) -> Result<Config, ConfigError> {
        config::load(&self.write("cli-config.yaml", text))
    }

    fn error(&self, text: &str) -> ConfigError {
        self.load(text).expect_err("the config should be refused")
    }

    /// Output with the temporary directory written as `[DIR]`.
    fn scrub(&self, text: &str) -> String {
        text.replace(&self.dir.path().display().to_string(), "[DIR]")
    }

    /// The error as a user sees it: message, then the miette report.
    fn shown(&self, error: &ConfigError) -> String {
        self.scrub(&format!("{error}\n---\n{}", report(error)))
    }
}

/// How miette shows `error` to a person (no colour, wide).
pub(crate) fn report(error: &ConfigError) -> String {
    let mut out = String::new();
    miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
        .with_width(400)
        .render_report(&mut out, error)
        .unwrap();
    out
}

/// Asserts that nothing a user or a log could see contains the canary.
fn assert_no_canary(error: &ConfigError) {
    for (what, text) in [
        ("Display", error.to_string()),
        ("Debug", format!("{error:?}")),
        ("report", report(error)),
    ] {
        assert!(!text.contains(CANARY), "{what} leaks the value: {text}");
        assert!(
            !text.contains("s3cr3t"),
            "{what} leaks part of the value: {text}"
        );
    }
}

/// (line, column, key, kind) of an `Invalid` error.
fn position(error: &ConfigError) -> (usize, usize, &str, ProblemKind) {
    match error {
        ConfigError::Invalid {
            line,
            column,
            key,
            kind,
            ..
        } => (*line, *column, key.as_str(), *kind),
        other => panic!("expected an Invalid error, got {other:?}"),
    }
}

#[test]
fn an_empty_file_means_every_default() {
    let fixture = Fixture::new();
    for text in [
        "",
        "# nothing here\n",
        "env:\nrouting:\n  tmux:\n  webTerminal:\n",
    ] {
        let config = fixture.load(text).unwrap();
        assert_eq!(config.path, fixture.path("cli-config.yaml"));
        assert_eq!(config.state_root, fixture.dir.path());
        assert_eq!(config.instance, None);
        assert_eq!(config.env, EnvSettings::default());
        assert_eq!(config.routing, Routing::default());
    }
}

#[test]
fn the_defaults_are_the_documented_ones() {
    let routing = Routing::default();
    assert_eq!(routing.default_harness, "claude");
    // No harness args, and the harness's own binary on PATH.
    assert_eq!(routing.harness("claude"), &HarnessSettings::default());
    assert!(routing.announce);
    assert_eq!(
        routing.tmux,
        TmuxSettings {
            resume_on_respawn: true,
            resume_probe: Duration::from_secs(2),
            remain_on_exit: true,
            harness_kill_grace: Duration::from_secs(5),
            keep_session_on_close: true,
            kill_harness_on_close: true,
        }
    );
    assert_eq!(
        routing.harness_trust,
        HarnessTrust {
            enabled: true,
            scope: TrustScope::WorkspaceRoot,
            accept_bypass_permissions: BypassPermissions::Auto,
        }
    );
    assert_eq!(
        routing.harness_plugins,
        HarnessPlugins {
            enabled: true,
            marketplace_repo: "MadaraUchiha-314/the-loop".into(),
        }
    );
    assert_eq!(
        routing.web_terminal,
        WebTerminal {
            enabled: false,
            host: "127.0.0.1".into(),
            port: 7681,
        }
    );
    let env = EnvSettings::default();
    assert!(!env.auto_apply && !env.watch_enabled && env.file.is_none());
}

const EVERY_KEY: &str = r#"
state:
  root: /srv/loop-state
instance: ci-runner
env:
  file: /etc/loop/.env
  credentials: [EXTRA_SECRET]
  deliver: [ANTHROPIC_API_KEY, EXTRA_SECRET]
  sessionPassthrough: [LANG]
  autoApply: true
  fingerprint: keyed
  watch:
    enabled: true
routing:
  defaultHarness: cursor-agent
  harnessArgs:
    claude: ["--permission-mode", "acceptEdits"]
  harnessBinary:
    claude: /opt/claude/bin/claude
  tmux:
    resumeOnRespawn: false
    resumeProbeSeconds: 0.5
    remainOnExit: false
    harnessKillGraceSeconds: 0
    keepSessionOnClose: false
    killHarnessOnClose: false
  workspace:
    root: /srv/workspace
    keepCheckoutOnClose: true
  authorizedUsers: [octocat, hubot]
  announce: false
  harnessTrust:
    enabled: false
    scope: directory
    acceptBypassPermissions: never
  harnessPlugins:
    enabled: false
    marketplaceRepo: me/fork
  webTerminal:
    enabled: true
    host: 0.0.0.0
    port: 9000
  models:
    opus: [low, high]
    haiku: []
  hosts: [tmux, claude-background]
"#;

#[test]
fn every_key_is_read() {
    let config = Fixture::new().load(EVERY_KEY).unwrap();
    assert_eq!(config.state_root, Path::new("/srv/loop-state"));
    assert_eq!(config.instance.as_deref(), Some("ci-runner"));
    assert_eq!(
        config.env,
        EnvSettings {
            file: Some("/etc/loop/.env".into()),
            credentials: vec!["EXTRA_SECRET".into()],
            deliver: vec!["ANTHROPIC_API_KEY".into(), "EXTRA_SECRET".into()],
            session_passthrough: vec!["LANG".into()],
            auto_apply: true,
            fingerprint: the_loop::secret::FingerprintMode::Keyed,
            watch_enabled: true,
        }
    );
    let models = BTreeMap::from([
        ("haiku".to_owned(), vec![]),
        ("opus".to_owned(), vec!["low".to_owned(), "high".to_owned()]),
    ]);
    assert_eq!(
        config.routing,
        Routing {
            default_harness: "cursor-agent".into(),
            harnesses: BTreeMap::from([(
                "claude".to_owned(),
                HarnessSettings {
                    args: vec!["--permission-mode".into(), "acceptEdits".into()],
                    binary: Some("/opt/claude/bin/claude".into()),
                }
            )]),
            tmux: TmuxSettings {
                resume_on_respawn: false,
                resume_probe: Duration::from_millis(500),
                remain_on_exit: false,
                harness_kill_grace: Duration::ZERO,
                keep_session_on_close: false,
                kill_harness_on_close: false,
            },
            workspace_root: Some("/srv/workspace".into()),
            authorized_users: vec!["octocat".into(), "hubot".into()],
            announce: false,
            harness_trust: HarnessTrust {
                enabled: false,
                scope: TrustScope::Directory,
                accept_bypass_permissions: BypassPermissions::Never,
            },
            harness_plugins: HarnessPlugins {
                enabled: false,
                marketplace_repo: "me/fork".into(),
            },
            web_terminal: WebTerminal {
                enabled: true,
                host: "0.0.0.0".into(),
                port: 9000,
            },
            models,
            hosts: [Host::Tmux, Host::ClaudeBackground].into(),
        }
    );
}

#[test]
fn hosts_name_at_least_one_known_host() {
    let fixture = Fixture::new();
    let config = fixture.load("routing:\n  announce: true\n").unwrap();
    assert_eq!(config.routing.hosts, [Host::Tmux].into());
    let err = fixture
        .load("routing:\n  hosts: []\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("routing.hosts"), "{err}");
    assert!(fixture.load("routing:\n  hosts: [screen]\n").is_err());
}

#[test]
fn toggles_take_a_boolean_or_a_mapping() {
    let fixture = Fixture::new();
    let config = fixture
        .load("routing:\n  announce: {enabled: false}\n  harnessTrust: false\n  harnessPlugins: false\n")
        .unwrap();
    assert!(!config.routing.announce);
    assert!(!config.routing.harness_trust.enabled);
    assert_eq!(
        config.routing.harness_trust.scope,
        TrustScope::WorkspaceRoot
    );
    assert!(!config.routing.harness_plugins.enabled);

    let config = fixture
        .load("routing:\n  harnessTrust: {scope: directory}\n  harnessPlugins: {marketplaceRepo: ''}\n")
        .unwrap();
    assert!(config.routing.harness_trust.enabled);
    assert_eq!(config.routing.harness_trust.scope, TrustScope::Directory);
    assert_eq!(config.routing.harness_plugins.marketplace_repo, "");
}

#[test]
fn the_older_harness_name_cursor_reads_as_cursor_agent() {
    let fixture = Fixture::new();
    let config = fixture
        .load("routing:\n  defaultHarness: cursor\n  harnessArgs:\n    cursor: [--x]\n")
        .unwrap();
    assert_eq!(config.routing.default_harness, "cursor-agent");
}

#[test]
fn relative_paths_resolve_against_the_config_directory() {
    let fixture = Fixture::new();
    let path = fixture.write(
        "etc/cli-config.yaml",
        "state:\n  root: ./state\nenv:\n  file: ../secrets/loop.env\n\
         routing:\n  harnessBinary:\n    claude: bin/claude\n  workspace:\n    root: ws\n",
    );
    let config = config::load(&path).unwrap();
    let etc = fixture.path("etc");
    assert_eq!(config.state_root, etc.join("state"));
    assert_eq!(config.env.file, Some(etc.join("../secrets/loop.env")));
    assert_eq!(
        config.routing.harness("claude"),
        &HarnessSettings {
            args: vec![],
            binary: Some(etc.join("bin/claude")),
        }
    );
    assert_eq!(config.routing.workspace_root, Some(etc.join("ws")));
}

#[test]
fn a_bare_binary_name_is_left_for_a_path_lookup() {
    let config = Fixture::new()
        .load("routing:\n  harnessBinary:\n    claude: claude-nightly\n")
        .unwrap();
    assert_eq!(
        config.routing.harness("claude").binary,
        Some(PathBuf::from("claude-nightly"))
    );
}

#[test]
fn the_example_file_loads_and_shows_every_key() {
    // A copy, this process's own: the-loop refuses a config another user
    // owns, and CI checks the repository out as another user.
    let copy = crate::support::own_copy::own_copy(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/cli-config.yaml"),
    );
    let example = copy.to_path_buf();
    let config = config::load(&example).unwrap();
    assert_eq!(config.path, example);
    assert_eq!(config.state_root, example.parent().unwrap().join("state"));
    assert_eq!(config.routing.default_harness, "claude");
    assert_eq!(config.env.deliver, ["ANTHROPIC_API_KEY"]);

    let text = std::fs::read_to_string(&example).unwrap();
    let document: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
    let schema = config::json_schema();
    let keys = schema_keys(&schema, &schema, "");
    assert!(
        keys.contains(&"routing.harnessTrust.scope".to_owned()),
        "{keys:?}"
    );
    let mut missing = Vec::new();
    for key in keys {
        let mut node = Some(&document);
        for part in key.split('.') {
            node = node.and_then(|n| n.get(part));
        }
        if node.is_none() {
            missing.push(key);
        }
    }
    assert!(missing.is_empty(), "the example omits {missing:?}");
}

/// Dotted keys the schema describes (foreign and deprecated keys left out).
fn schema_keys(root: &serde_json::Value, node: &serde_json::Value, prefix: &str) -> Vec<String> {
    let node = match node.get("$ref").and_then(|r| r.as_str()) {
        Some(reference) => root.pointer(reference.trim_start_matches('#')).unwrap(),
        None => node,
    };
    let mut keys = Vec::new();
    // Alternatives (an optional section, a toggle's mapping form) describe
    // the same place.
    for combinator in ["anyOf", "oneOf"] {
        for option in node
            .get(combinator)
            .and_then(|o| o.as_array())
            .into_iter()
            .flatten()
        {
            keys.extend(schema_keys(root, option, prefix));
        }
    }
    for (name, property) in node
        .get("properties")
        .and_then(|p| p.as_object())
        .into_iter()
        .flatten()
    {
        let deprecated = property.get("deprecated") == Some(&true.into());
        if property.as_bool() == Some(true) || deprecated || name == "cursor" {
            continue;
        }
        let key = format!("{prefix}{name}");
        keys.extend(schema_keys(root, property, &format!("{key}.")));
        keys.push(key);
    }
    keys
}

#[test]
fn sections_owned_by_the_rest_of_the_loop_are_tolerated() {
    let text = r#"
version: "0.1.0"
webhooks: {ghWebhook: {enabled: true, port: 8787}}
polling: {enabled: true, sources: [{provider: github, repos: [o/r]}]}
channels: {slack: {enabled: false}}
github: anything
poll: 1
poller: [1, 2]
slack: ~
graph: {hooks: true}
mcp: {}
daemon: {}
critic: {harness: cursor}
receiver: {}
checks: []
labels: {}
phases: []
workflows: {}
eventLog: {path: x}
standingSessions: {enabled: false}
integrations: {}
service: {}
selfDiagnosis: {}
routing:
  runner: process
  enabled: true
  sessionPerPr: always
  spawnOnUnmatched: labeled
  control: {keywords: {start: go}}
  reactions: {enabled: true}
  tmux:
    sessionPerPr: cross-repository
    resumeProbeSeconds: 3
  workspace:
    strategy: clone
    gitBinary: git
"#;
    let config = Fixture::new().load(text).unwrap();
    assert_eq!(config.routing.tmux.resume_probe, Duration::from_secs(3));
}

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

mod discovery {
    use super::*;

    /// A working directory and a home directory, each with or without a config.
    struct Places {
        fixture: Fixture,
    }

    impl Places {
        fn new(local: bool, home: bool) -> Places {
            let fixture = Fixture::new();
            std::fs::create_dir_all(fixture.path("cwd")).unwrap();
            std::fs::create_dir_all(fixture.path("home")).unwrap();
            if local {
                fixture.write("cwd/.the-loop/cli-config.yaml", "");
            }
            if home {
                fixture.write("home/.the-loop/cli-config.yaml", "");
            }
            Places { fixture }
        }

        fn discover(
            &self,
            explicit: Option<&Path>,
            from_env: Option<&str>,
        ) -> Result<PathBuf, ConfigError> {
            let cwd = self.fixture.path("cwd");
            let home = self.fixture.path("home");
            config::discover_in(explicit, from_env.map(OsStr::new), &cwd, Some(&home))
        }

        fn path(&self, relative: &str) -> PathBuf {
            self.fixture.path(relative)
        }
    }

    #[test]
    fn the_flag_comes_first() {
        let places = Places::new(true, true);
        let flagged = places.fixture.write("flag.yaml", "");
        let from_env = places.fixture.write("env.yaml", "");
        let found = places.discover(Some(&flagged), from_env.to_str());
        assert_eq!(found.unwrap(), flagged);
    }

    #[test]
    fn then_the_environment_variable() {
        let places = Places::new(true, true);
        let from_env = places.fixture.write("env.yaml", "");
        assert_eq!(places.discover(None, from_env.to_str()).unwrap(), from_env);
    }

    #[test]
    fn an_empty_environment_variable_counts_as_unset() {
        let places = Places::new(true, true);
        let found = places.discover(None, Some("")).unwrap();
        assert_eq!(found, places.path("cwd/.the-loop/cli-config.yaml"));
    }

    #[test]
    fn then_the_working_directory_then_home() {
        let places = Places::new(true, true);
        let found = places.discover(None, None).unwrap();
        assert_eq!(found, places.path("cwd/.the-loop/cli-config.yaml"));

        let places = Places::new(false, true);
        let found = places.discover(None, None).unwrap();
        assert_eq!(found, places.path("home/.the-loop/cli-config.yaml"));
    }

    #[test]
    fn relative_names_are_made_absolute_against_the_working_directory() {
        let places = Places::new(false, false);
        places.fixture.write("cwd/conf/my.yaml", "");
        let found = places
            .discover(Some(Path::new("./conf/my.yaml")), None)
            .unwrap();
        assert_eq!(found, places.path("cwd/conf/my.yaml"));
        assert!(found.is_absolute());
    }

    #[test]
    fn links_and_dot_dots_are_resolved_to_the_file() {
        let places = Places::new(false, false);
        let real = places.fixture.write("cwd/conf/my.yaml", "");
        let real = real.canonicalize().unwrap();
        let link = places.path("cwd/link.yaml");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        for named in ["link.yaml", "./conf/../conf/my.yaml", "conf/./my.yaml"] {
            let found = places.discover(Some(Path::new(named)), None).unwrap();
            assert_eq!(found, real, "{named}");
        }
        let found = places.discover(None, link.to_str()).unwrap();
        assert_eq!(found, real);
        // And a config loaded through the link is the file, whose relative
        // paths resolve beside it.
        let loaded = config::load(&link).unwrap();
        assert_eq!(loaded.path, real);
        assert_eq!(loaded.state_root, real.parent().unwrap());
    }

    #[test]
    fn a_named_file_must_exist() {
        let places = Places::new(true, true);
        let missing = places.path("missing.yaml");
        for (flag, from_env) in [(Some(missing.as_path()), None), (None, missing.to_str())] {
            match places.discover(flag, from_env) {
                Err(ConfigError::Read { path, kind }) => {
                    assert_eq!(path, missing);
                    assert_eq!(kind, std::io::ErrorKind::NotFound);
                }
                other => panic!("expected a read error, got {other:?}"),
            }
        }
    }

    #[test]
    fn nothing_found_says_where_it_looked() {
        let places = Places::new(false, false);
        let error = places.discover(None, None).unwrap_err();
        assert!(matches!(error, ConfigError::NotFound { .. }));
        insta::assert_snapshot!("not_found", places.fixture.shown(&error));
    }
}
