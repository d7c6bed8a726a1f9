//! From the parsed file to [`Config`]: defaults, paths, and the checks that
//! types alone cannot express.
//!
//! A failed check names the key path of the offending node, never its text;
//! the position is looked up afterwards (`locate`).
//!
//! Import circle: `resolve.rs` ↔ `resolve/paths.rs`. Resolving paths is one of
//! the checks here and reports through this file's `Finding`; it is a file
//! of its own only for size.

use super::de::{Names, Toggle};
use super::error::{Located, ProblemKind};
use super::locate::{dotted, locate, Step};
use super::model::{
    Config, EnvSettings, HarnessPlugins, HarnessSettings, HarnessTrust, Routing, TmuxSettings,
    WebTerminal,
};
use super::raw::{RawConfig, RawEnv, RawHarnessArgs, RawHarnessBinary, RawRouting, RawTmux};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

mod paths;

use paths::Paths;

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

/// `["routing", "tmux"]` as steps.
fn keys(path: &[&str]) -> Vec<Step> {
    path.iter().map(|key| Step::key(key)).collect()
}

fn item(path: &[&str], index: usize) -> Vec<Step> {
    let mut steps = keys(path);
    steps.push(Step::Index(index));
    steps
}

pub(super) fn resolve(raw: RawConfig, file: &Path, home: Option<&Path>) -> Result<Config, Finding> {
    let paths = Paths {
        dir: file.parent().unwrap_or(Path::new("/")),
        home,
    };
    let state_root = match raw.state.and_then(|state| state.root) {
        Some(root) => paths.resolve(&root, &["state", "root"])?,
        None => paths.dir.to_owned(),
    };
    if raw
        .instance
        .as_deref()
        .is_some_and(|name| name.trim().is_empty())
    {
        return Err(Finding::invalid(
            keys(&["instance"]),
            "expected a non-empty name",
        ));
    }
    Ok(Config {
        path: file.to_owned(),
        state_root,
        instance: raw.instance,
        env: env(raw.env, &paths)?,
        routing: routing(raw.routing.map(|shared| shared.0), &paths, file)?,
    })
}

fn env(raw: Option<RawEnv>, paths: &Paths) -> Result<EnvSettings, Finding> {
    let Some(raw) = raw else {
        return Ok(EnvSettings::default());
    };
    let credentials = env_names(raw.credentials, "credentials")?;
    let session_passthrough = env_names(raw.session_passthrough, "sessionPassthrough")?;
    if let Some(index) = session_passthrough
        .iter()
        .position(|n| credentials.contains(n))
    {
        return Err(Finding {
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
    Ok(EnvSettings {
        file: raw
            .file
            .map(|file| paths.resolve(&file, &["env", "file"]))
            .transpose()?,
        credentials,
        deliver: env_names(raw.deliver, "deliver")?,
        session_passthrough,
        auto_apply: raw.auto_apply.unwrap_or(false),
        fingerprint: raw.fingerprint.unwrap_or_default(),
        watch_enabled: raw.watch.and_then(|watch| watch.enabled).unwrap_or(false),
    })
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

fn routing(raw: Option<RawRouting>, paths: &Paths, file: &Path) -> Result<Routing, Finding> {
    let Some(raw) = raw else {
        return Ok(Routing::default());
    };
    if raw.runner.is_some() {
        tracing::warn!(
            config = %file.display(),
            "routing.runner is deprecated and ignored: tmux is the only runner"
        );
    }
    let defaults = Routing::default();
    Ok(Routing {
        default_harness: match raw.default_harness {
            Some(name) => name.name().into(),
            None => defaults.default_harness.clone(),
        },
        harnesses: harnesses(raw.harness_args, raw.harness_binary, paths)?,
        tmux: tmux(raw.tmux.map(|shared| shared.0))?,
        workspace_root: raw
            .workspace
            .and_then(|workspace| workspace.0.root)
            .map(|root| paths.resolve(&root, &["routing", "workspace", "root"]))
            .transpose()?,
        authorized_users: raw.authorized_users.unwrap_or_default(),
        announce: match raw.announce {
            None => defaults.announce,
            Some(Toggle::Switch(on)) => on,
            Some(Toggle::Detailed(announce)) => announce.enabled.unwrap_or(defaults.announce),
        },
        harness_trust: harness_trust(raw.harness_trust),
        harness_plugins: harness_plugins(raw.harness_plugins)?,
        web_terminal: web_terminal(raw.web_terminal)?,
        models: models(raw.models.unwrap_or_default())?,
        hosts: match raw.hosts {
            None => defaults.hosts,
            Some(hosts) if hosts.is_empty() => {
                return Err(
                    Finding::invalid(keys(&["routing", "hosts"]), "names no host").with_help(
                        "list where sessions live: `hosts: [tmux]`, or `[tmux, claude-background]`",
                    ),
                )
            }
            Some(hosts) => hosts.into_iter().collect(),
        },
    })
}

fn tmux(raw: Option<RawTmux>) -> Result<TmuxSettings, Finding> {
    let defaults = TmuxSettings::default();
    let Some(raw) = raw else {
        return Ok(defaults);
    };
    Ok(TmuxSettings {
        resume_on_respawn: raw.resume_on_respawn.unwrap_or(defaults.resume_on_respawn),
        resume_probe: seconds(
            raw.resume_probe_seconds,
            defaults.resume_probe,
            "resumeProbeSeconds",
            super::model::RESUME_PROBE_MAX,
        )?,
        remain_on_exit: raw.remain_on_exit.unwrap_or(defaults.remain_on_exit),
        harness_kill_grace: seconds(
            raw.harness_kill_grace_seconds,
            defaults.harness_kill_grace,
            "harnessKillGraceSeconds",
            super::model::KILL_GRACE_MAX,
        )?,
        keep_session_on_close: raw
            .keep_session_on_close
            .unwrap_or(defaults.keep_session_on_close),
        kill_harness_on_close: raw
            .kill_harness_on_close
            .unwrap_or(defaults.kill_harness_on_close),
    })
}

/// A duration under `routing.tmux`, written as a number of seconds: from 0
/// to `max`. A value past the top is an error, not a clamp: 1e20 once became
/// a grace of zero silently, and 1e19 overflowed the deadline after the
/// SIGTERM was sent. NaN and negative values fail the same range check.
fn seconds(
    value: Option<f64>,
    default: Duration,
    key: &str,
    max: Duration,
) -> Result<Duration, Finding> {
    let Some(value) = value else {
        return Ok(default);
    };
    Duration::try_from_secs_f64(value)
        .ok()
        .filter(|d| *d <= max)
        .ok_or_else(|| {
            Finding::invalid(
                keys(&["routing", "tmux", key]),
                &format!("expected a number of seconds from 0 to {}", max.as_secs()),
            )
        })
}

/// `routing.harnessArgs` and `routing.harnessBinary`, merged by harness name.
fn harnesses(
    args: Option<RawHarnessArgs>,
    binaries: Option<RawHarnessBinary>,
    paths: &Paths,
) -> Result<BTreeMap<String, HarnessSettings>, Finding> {
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
            let binary = paths.program(&binary, &["routing", "harnessBinary", name])?;
            harnesses.entry(name.into()).or_default().binary = Some(binary);
        }
    }
    Ok(harnesses)
}

fn harness_trust(raw: Option<Toggle<super::raw::RawHarnessTrust>>) -> HarnessTrust {
    let defaults = HarnessTrust::default();
    match raw {
        None => defaults,
        Some(Toggle::Switch(enabled)) => HarnessTrust {
            enabled,
            ..defaults
        },
        Some(Toggle::Detailed(raw)) => HarnessTrust {
            enabled: raw.enabled.unwrap_or(defaults.enabled),
            scope: raw.scope.unwrap_or(defaults.scope),
            accept_bypass_permissions: raw
                .accept_bypass_permissions
                .unwrap_or(defaults.accept_bypass_permissions),
        },
    }
}

fn harness_plugins(
    raw: Option<Toggle<super::raw::RawHarnessPlugins>>,
) -> Result<HarnessPlugins, Finding> {
    let defaults = HarnessPlugins::default();
    match raw {
        None => Ok(defaults),
        Some(Toggle::Switch(enabled)) => Ok(HarnessPlugins {
            enabled,
            ..defaults
        }),
        Some(Toggle::Detailed(raw)) => {
            let marketplace_repo = raw.marketplace_repo.unwrap_or(defaults.marketplace_repo);
            if !marketplace_repo.is_empty() && !is_owner_repo(&marketplace_repo) {
                let at = keys(&["routing", "harnessPlugins", "marketplaceRepo"]);
                return Err(Finding::invalid(at, "expected owner/repo"));
            }
            Ok(HarnessPlugins {
                enabled: raw.enabled.unwrap_or(defaults.enabled),
                marketplace_repo,
            })
        }
    }
}

/// GitHub's `owner/repo`: it ends up in the harness's settings file.
fn is_owner_repo(text: &str) -> bool {
    let word = |part: &str, extra: &str| {
        !part.is_empty()
            && !part.starts_with(['-', '.'])
            && part
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || extra.contains(c))
    };
    text.split_once('/')
        .is_some_and(|(owner, repo)| word(owner, "-") && word(repo, "-_."))
}

fn web_terminal(raw: Option<super::raw::RawWebTerminal>) -> Result<WebTerminal, Finding> {
    let defaults = WebTerminal::default();
    let Some(raw) = raw else {
        return Ok(defaults);
    };
    let host = raw.host.unwrap_or(defaults.host);
    if host.trim().is_empty() {
        let at = keys(&["routing", "webTerminal", "host"]);
        return Err(Finding::invalid(at, "expected a host name or address"));
    }
    let port = raw.port.unwrap_or(defaults.port);
    if port == 0 {
        let at = keys(&["routing", "webTerminal", "port"]);
        return Err(Finding::invalid(at, "expected a port from 1 to 65535"));
    }
    Ok(WebTerminal {
        enabled: raw.enabled.unwrap_or(defaults.enabled),
        host,
        port,
    })
}

/// Model names and effort levels become harness arguments (`--model M`), so
/// none may read as a flag or hold whitespace.
fn models(models: BTreeMap<String, Vec<String>>) -> Result<BTreeMap<String, Vec<String>>, Finding> {
    let is_word = |text: &str| {
        !text.is_empty()
            && !text.starts_with('-')
            && !text.chars().any(|c| c.is_whitespace() || c.is_control())
    };
    for (name, efforts) in &models {
        let at = || keys(&["routing", "models", name]);
        if !is_word(name) {
            return Err(Finding::invalid(at(), "not usable as a model name")
                .with_help("a model name is one word that does not start with '-'"));
        }
        if let Some(index) = efforts.iter().position(|effort| !is_word(effort)) {
            let mut at = at();
            at.push(Step::Index(index));
            return Err(Finding::invalid(at, "not usable as an effort level")
                .with_help("an effort level is one word that does not start with '-'"));
        }
    }
    Ok(models)
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

    #[test]
    fn owner_repo_is_two_github_words() {
        assert!(is_owner_repo("MadaraUchiha-314/the-loop"));
        assert!(is_owner_repo("o/r.js"));
        for bad in ["o", "/r", "o/", "o/r/x", "-o/r", "o/.r", "o /r"] {
            assert!(!is_owner_repo(bad), "{bad}");
        }
    }
}
