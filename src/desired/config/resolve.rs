//! From the parsed file to [`Config`]: defaults, paths, and the checks that
//! types alone cannot express.
//!
//! A failed check names the key path of the offending node, never its text;
//! the position is looked up afterwards (`locate`).
//!
//! Import circle: `resolve.rs` ↔ `resolve/paths.rs` and `resolve/routing.rs`.
//! Resolving paths and routing's own keys are checks here and report
//! through this file's `Finding`; each is a file of its own only for size.

use super::de::{Names, Toggle};
use super::error::{Located, ProblemKind};
use super::locate::{dotted, locate, Step};
use super::model::{Config, EnvSettings, HarnessPlugins, HarnessSettings, Routing};
use super::raw::{RawConfig, RawEnv, RawHarnessArgs, RawHarnessBinary, RawRouting};
use std::collections::BTreeMap;
use std::path::Path;

mod paths;
mod routing;

use paths::Paths;
use routing::{harness_plugins, harness_trust, models, tmux, web_terminal};

/// A failed check, at a key path.
#[derive(Debug)]
pub(super) struct Finding {
    at: Vec<Step>,
    kind: ProblemKind,
    problem: String,
    help: Option<String>,
}

impl Finding {
    fn invalid(at: Vec<Step>, problem: &str) -> Finding {
        Finding {
            at,
            kind: ProblemKind::InvalidValue,
            problem: problem.into(),
            help: None,
        }
    }

    fn with_help(mut self, help: &str) -> Finding {
        self.help = Some(help.into());
        self
    }

    /// Attaches the line and column of the node the finding is about.
    pub fn locate(self, text: &str) -> Located {
        let (line, column) = locate(text, &self.at).unwrap_or((1, 1));
        Located {
            line,
            column,
            key: dotted(&self.at),
            kind: self.kind,
            problem: self.problem,
            help: self.help,
        }
    }
}

/// The findings of one resolve: a failed check records its finding and
/// leaves the key's default in place, so the checks after it still run and
/// every mistake is reported at once.
#[derive(Default)]
struct Found(Vec<Finding>);

impl Found {
    /// The checked value, or `fallback` with the finding kept.
    fn or<T>(&mut self, checked: Result<T, Finding>, fallback: impl FnOnce() -> T) -> T {
        checked.unwrap_or_else(|finding| {
            self.0.push(finding);
            fallback()
        })
    }
}

/// `["routing", "tmux"]` as steps.
fn keys(path: &[&str]) -> Vec<Step> {
    path.iter().map(|key| Step::key(key)).collect()
}

fn item(path: &[&str], index: usize) -> Vec<Step> {
    let mut steps = keys(path);
    steps.push(Step::Index(index));
    steps
}

/// The config, or every check that failed (each at its key path).
pub(super) fn resolve(
    raw: RawConfig,
    file: &Path,
    home: Option<&Path>,
) -> Result<Config, Vec<Finding>> {
    let paths = Paths {
        dir: file.parent().unwrap_or(Path::new("/")),
        home,
    };
    let mut found = Found::default();
    let state_root = match raw.state.and_then(|state| state.root) {
        Some(root) => found.or(paths.resolve(&root, &["state", "root"]), || {
            paths.dir.to_owned()
        }),
        None => paths.dir.to_owned(),
    };
    if raw
        .instance
        .as_deref()
        .is_some_and(|name| name.trim().is_empty())
    {
        found.0.push(Finding::invalid(
            keys(&["instance"]),
            "expected a non-empty name",
        ));
    }
    let config = Config {
        path: file.to_owned(),
        state_root,
        instance: raw.instance,
        env: env(raw.env, &paths, &mut found),
        routing: routing(raw.routing.map(|shared| shared.0), &paths, file, &mut found),
    };
    match found.0.is_empty() {
        true => Ok(config),
        false => Err(found.0),
    }
}

fn env(raw: Option<RawEnv>, paths: &Paths, found: &mut Found) -> EnvSettings {
    let Some(raw) = raw else {
        return EnvSettings::default();
    };
    let credentials = found.or(env_names(raw.credentials, "credentials"), Vec::new);
    let session_passthrough = found.or(
        env_names(raw.session_passthrough, "sessionPassthrough"),
        Vec::new,
    );
    if let Some(index) = session_passthrough
        .iter()
        .position(|n| credentials.contains(n))
    {
        found.0.push(Finding {
            at: item(&["env", "sessionPassthrough"], index),
            kind: ProblemKind::Conflict,
            problem: "also listed in env.credentials".into(),
            help: Some(
                "a credential never reaches a session, so it cannot pass through: \
                 remove the name from one of the two lists"
                    .into(),
            ),
        });
    }
    let file = raw
        .file
        .map(|file| paths.resolve(&file, &["env", "file"]))
        .transpose();
    EnvSettings {
        file: found.or(file, || None),
        credentials,
        deliver: found.or(env_names(raw.deliver, "deliver"), Vec::new),
        session_passthrough,
        auto_apply: raw.auto_apply.unwrap_or(false),
        fingerprint: raw.fingerprint.unwrap_or_default(),
        watch_enabled: raw.watch.and_then(|watch| watch.enabled).unwrap_or(false),
    }
}

/// The names in `env.<key>`, each a valid variable name.
fn env_names(list: Option<Names>, key: &str) -> Result<Vec<String>, Finding> {
    let names = list.map(|names| names.0).unwrap_or_default();
    match names.iter().position(|name| !is_env_name(name)) {
        None => Ok(names),
        Some(index) => Err(Finding::invalid(
            item(&["env", key], index),
            "not a valid environment variable name",
        )
        .with_help(
            "a name matches [A-Za-z_][A-Za-z0-9_]*; values belong in env.file, never in this file",
        )),
    }
}

fn is_env_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn routing(raw: Option<RawRouting>, paths: &Paths, file: &Path, found: &mut Found) -> Routing {
    let Some(raw) = raw else {
        return Routing::default();
    };
    if raw.runner.is_some() {
        tracing::warn!(
            config = %file.display(),
            "routing.runner is deprecated and ignored: tmux is the only runner"
        );
    }
    let defaults = Routing::default();
    let workspace_root = raw
        .workspace
        .and_then(|workspace| workspace.0.root)
        .map(|root| paths.resolve(&root, &["routing", "workspace", "root"]))
        .transpose();
    let hosts = match raw.hosts {
        None => defaults.hosts.clone(),
        Some(hosts) if hosts.is_empty() => {
            found.0.push(
                Finding::invalid(keys(&["routing", "hosts"]), "names no host").with_help(
                    "list where sessions live: `hosts: [tmux]`, or `[tmux, claude-background]`",
                ),
            );
            defaults.hosts.clone()
        }
        Some(hosts) => hosts.into_iter().collect(),
    };
    Routing {
        default_harness: match raw.default_harness {
            Some(name) => name.name().into(),
            None => defaults.default_harness.clone(),
        },
        harnesses: harnesses(raw.harness_args, raw.harness_binary, paths, found),
        tmux: tmux(raw.tmux.map(|shared| shared.0), found),
        workspace_root: found.or(workspace_root, || None),
        authorized_users: raw.authorized_users.unwrap_or_default(),
        announce: match raw.announce {
            None => defaults.announce,
            Some(Toggle::Switch(on)) => on,
            Some(Toggle::Detailed(announce)) => announce.enabled.unwrap_or(defaults.announce),
        },
        harness_trust: harness_trust(raw.harness_trust),
        harness_plugins: found.or(
            harness_plugins(raw.harness_plugins),
            HarnessPlugins::default,
        ),
        web_terminal: web_terminal(raw.web_terminal, found),
        models: models(raw.models.unwrap_or_default(), found),
        hosts,
    }
}

/// `routing.harnessArgs` and `routing.harnessBinary`, merged by harness name.
fn harnesses(
    args: Option<RawHarnessArgs>,
    binaries: Option<RawHarnessBinary>,
    paths: &Paths,
    found: &mut Found,
) -> BTreeMap<String, HarnessSettings> {
    let mut harnesses: BTreeMap<String, HarnessSettings> = BTreeMap::new();
    for (name, args) in args.map(RawHarnessArgs::by_harness).into_iter().flatten() {
        if let Some(args) = args {
            harnesses.entry(name.into()).or_default().args = args;
        }
    }
    for (name, binary) in binaries
        .map(RawHarnessBinary::by_harness)
        .into_iter()
        .flatten()
    {
        if let Some(binary) = binary {
            let binary = paths.program(&binary, &["routing", "harnessBinary", name]);
            if let Some(binary) = found.or(binary.map(Some), || None) {
                harnesses.entry(name.into()).or_default().binary = Some(binary);
            }
        }
    }
    harnesses
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_names_follow_the_posix_shape() {
        for good in ["A", "_", "GITHUB_TOKEN", "a1_b2"] {
            assert!(is_env_name(good), "{good}");
        }
        for bad in ["", "1A", "A-B", "A=B", "Ä", "A B"] {
            assert!(!is_env_name(bad), "{bad}");
        }
    }
}
