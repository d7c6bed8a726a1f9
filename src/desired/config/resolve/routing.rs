//! The checks of `routing.*` past the harness map: tmux's durations, the
//! harness's trust and plugin settings, the web terminal and the models.
//! A file of its own only for size; each check records its finding in
//! [`Found`] and leaves the key's default in place.

use super::super::de::Toggle;
use super::super::model::{HarnessPlugins, HarnessTrust, TmuxSettings, WebTerminal};
use super::super::raw::RawTmux;
use super::{keys, Finding, Found, Step};
use std::collections::BTreeMap;
use std::time::Duration;

pub(super) fn tmux(raw: Option<RawTmux>, found: &mut Found) -> TmuxSettings {
    let defaults = TmuxSettings::default();
    let Some(raw) = raw else {
        return defaults;
    };
    let resume_probe = seconds(
        raw.resume_probe_seconds,
        defaults.resume_probe,
        "resumeProbeSeconds",
        super::super::model::RESUME_PROBE_MAX,
    );
    let harness_kill_grace = seconds(
        raw.harness_kill_grace_seconds,
        defaults.harness_kill_grace,
        "harnessKillGraceSeconds",
        super::super::model::KILL_GRACE_MAX,
    );
    TmuxSettings {
        resume_on_respawn: raw.resume_on_respawn.unwrap_or(defaults.resume_on_respawn),
        resume_probe: found.or(resume_probe, || defaults.resume_probe),
        remain_on_exit: raw.remain_on_exit.unwrap_or(defaults.remain_on_exit),
        harness_kill_grace: found.or(harness_kill_grace, || defaults.harness_kill_grace),
        keep_session_on_close: raw
            .keep_session_on_close
            .unwrap_or(defaults.keep_session_on_close),
        kill_harness_on_close: raw
            .kill_harness_on_close
            .unwrap_or(defaults.kill_harness_on_close),
    }
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

pub(super) fn harness_trust(
    raw: Option<Toggle<super::super::raw::RawHarnessTrust>>,
) -> HarnessTrust {
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

pub(super) fn harness_plugins(
    raw: Option<Toggle<super::super::raw::RawHarnessPlugins>>,
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

pub(super) fn web_terminal(
    raw: Option<super::super::raw::RawWebTerminal>,
    found: &mut Found,
) -> WebTerminal {
    let defaults = WebTerminal::default();
    let Some(raw) = raw else {
        return defaults;
    };
    let mut host = raw.host.unwrap_or_else(|| defaults.host.clone());
    if host.trim().is_empty() {
        let at = keys(&["routing", "webTerminal", "host"]);
        found
            .0
            .push(Finding::invalid(at, "expected a host name or address"));
        host = defaults.host.clone();
    }
    let mut port = raw.port.unwrap_or(defaults.port);
    if port == 0 {
        let at = keys(&["routing", "webTerminal", "port"]);
        found
            .0
            .push(Finding::invalid(at, "expected a port from 1 to 65535"));
        port = defaults.port;
    }
    WebTerminal {
        enabled: raw.enabled.unwrap_or(defaults.enabled),
        host,
        port,
    }
}

/// Model names and effort levels become harness arguments (`--model M`), so
/// none may read as a flag or hold whitespace.
pub(super) fn models(
    models: BTreeMap<String, Vec<String>>,
    found: &mut Found,
) -> BTreeMap<String, Vec<String>> {
    let is_word = |text: &str| {
        !text.is_empty()
            && !text.starts_with('-')
            && !text.chars().any(|c| c.is_whitespace() || c.is_control())
    };
    for (name, efforts) in &models {
        let at = || keys(&["routing", "models", name]);
        if !is_word(name) {
            found.0.push(
                Finding::invalid(at(), "not usable as a model name")
                    .with_help("a model name is one word that does not start with '-'"),
            );
        }
        if let Some(index) = efforts.iter().position(|effort| !is_word(effort)) {
            let mut at = at();
            at.push(Step::Index(index));
            found.0.push(
                Finding::invalid(at, "not usable as an effort level")
                    .with_help("an effort level is one word that does not start with '-'"),
            );
        }
    }
    models
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owner_repo_is_two_github_words() {
        assert!(is_owner_repo("MadaraUchiha-314/the-loop"));
        assert!(is_owner_repo("o/r.js"));
        for bad in ["o", "/r", "o/", "o/r/x", "-o/r", "o/.r", "o /r"] {
            assert!(!is_owner_repo(bad), "{bad}");
        }
    }
}
