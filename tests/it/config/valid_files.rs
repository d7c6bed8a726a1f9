//! What a valid file reads as: defaults, every key, paths, the example, foreign sections.

use super::*;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;
use the_loop::desired::config::{
    BypassPermissions, EnvSettings, HarnessPlugins, HarnessSettings, HarnessTrust, Host, Routing,
    TmuxSettings, TrustScope, WebTerminal,
};

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
