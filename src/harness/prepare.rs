//! Claude Code's preparation ([`super::Harness::prepare`]), run before every
//! spawn and respawn so a session opens straight into work: no trust dialog, no onboarding, no
//! bypass disclaimer (when bypass mode was asked for), and the-loop's plugin
//! enabled. Best-effort: a failure warns, emits `workspace.trust_failed`,
//! and the spawn proceeds.
//!
//! The decisions are pure ([`super::seed`]); this file gathers the inputs
//! (the-loop's environment, the real paths) and writes ([`super::user_files`]).

use super::ledger::{Format, Step};
use super::seed::{asks_for_bypass, seed_plugin_noted, seed_trust_noted, trust_seed, DirForms};
use super::seed::{Merged, PLUGIN};
use super::seed_holds::trust_holds;
use super::user_files::{already_holds, edit, HarnessHome};
use super::LaunchArgs;
use crate::desired::config::{BypassPermissions, Config, TrustScope};
use crate::events::{Event, EventLog};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Parallel respawns in one apply edit the same files: one at a time, so
/// none of their read-modify-writes is lost.
static IN_PROCESS: Mutex<()> = Mutex::new(());

/// Held while a harness's user files are edited: one edit at a time in
/// this process and across the-loops.
pub struct EditTurn {
    _in_process: std::sync::MutexGuard<'static, ()>,
    _across_processes: Option<crate::lockfile::LockFile>,
}

/// Waits for this process's and every other the-loop's turn to edit.
pub fn edit_turn(config: &Config) -> EditTurn {
    EditTurn {
        _in_process: IN_PROCESS.lock().unwrap_or_else(|e| e.into_inner()),
        // Another the-loop (a `sessions start` beside an apply) may be editing too.
        _across_processes: lock_file(&config.state_root),
    }
}

/// Prepares the harness's own config for a session about to start in `cwd`
/// with `args`.
pub(super) fn before_spawn(
    config: &Config,
    home: &HarnessHome,
    cwd: &Path,
    args: &LaunchArgs,
    events: &EventLog,
) {
    let trust = &config.routing.harness_trust;
    let plugins = &config.routing.harness_plugins;
    if !trust.enabled && !plugins.enabled {
        return;
    }
    let trust_seed = trust.enabled.then(|| {
        let accept_bypass = match trust.accept_bypass_permissions {
            BypassPermissions::Auto => asks_for_bypass(&args.harness_args),
            BypassPermissions::Always => true,
            BypassPermissions::Never => false,
        };
        let widen_to = match trust.scope {
            TrustScope::WorkspaceRoot => config.routing.workspace_root.as_deref().map(forms),
            TrustScope::Directory => None,
        };
        let home_forms = home.home.as_deref().map(forms);
        trust_seed(
            &forms(cwd),
            widen_to.as_ref(),
            home_forms.as_ref(),
            accept_bypass,
        )
    });
    let repo = plugins.marketplace_repo.as_str();
    if let Some(seed) = trust_seed {
        match (seed, home.user_config()) {
            (Ok(seed), Some(file)) => match noted_edit_unless(
                config,
                &file,
                Format::Json,
                |existing| existing.is_some_and(|text| trust_holds(text, &seed)),
                |existing| seed_trust_noted(existing, &seed),
            ) {
                Ok(true) => events.emit(Event::WorkspaceTrusted {
                    directories: Some(seed.directories()),
                    plugin: None,
                    marketplace_repo: None,
                    file,
                    bypass_accepted: Some(seed.accept_bypass),
                }),
                Ok(false) => {}
                Err(err) => failed(events, "trust", Some(&file), &err.to_string()),
            },
            (Err(why), file) => failed(events, "trust", file.as_deref(), &why),
            (_, None) => failed(events, "trust", None, NO_HOME),
        }
    }
    if plugins.enabled {
        match home.settings() {
            Some(file) => {
                let seed = |existing: Option<&[u8]>| seed_plugin_noted(existing, repo);
                match noted_edit(config, &file, Format::Json, seed) {
                    Ok(true) => events.emit(Event::WorkspaceTrusted {
                        directories: None,
                        plugin: Some(PLUGIN.into()),
                        marketplace_repo: Some(repo.into()),
                        file,
                        bypass_accepted: None,
                    }),
                    Ok(false) => {}
                    Err(err) => failed(events, "plugin", Some(&file), &err.to_string()),
                }
            }
            None => failed(events, "plugin", None, NO_HOME),
        }
    }
}

/// [`edit`], noting in the ledger ([`super::ledger`]) each key it set, so
/// `uninstall --harness-settings` can take exactly those back out. A
/// ledger that cannot be written warns: the key stays set, and the
/// uninstall will not know it.
///
/// Every spawn and respawn comes here, most with the file already holding
/// what `seed` wants (since the roll before): that is read without the
/// edit turn, so hundreds of parallel respawns do not queue for each
/// other's reads; only an edit that changes something waits for its turn.
/// Not to be called within a turn (it takes its own).
pub(super) fn noted_edit(
    config: &Config,
    file: &Path,
    format: Format,
    seed: impl Fn(Option<&[u8]>) -> (Merged, Vec<Step>),
) -> Result<bool, super::user_files::EditError> {
    let merge_holds = |existing: Option<&[u8]>| seed(existing).0 == Merged::Unchanged;
    noted_edit_unless(config, file, format, merge_holds, &seed)
}

/// [`noted_edit`], where `holds` first judges, without the turn, whether
/// the file already holds what `seed` would make of it: a quicker read than
/// the whole merge (a user config of hundreds of projects, read by each of
/// hundreds of respawns), which says yes only where the merge would write
/// nothing ([`super::seed_holds`]).
pub(super) fn noted_edit_unless(
    config: &Config,
    file: &Path,
    format: Format,
    holds: impl FnOnce(Option<&[u8]>) -> bool,
    seed: impl Fn(Option<&[u8]>) -> (Merged, Vec<Step>),
) -> Result<bool, super::user_files::EditError> {
    if already_holds(file, holds) {
        return Ok(false);
    }
    let _turn = edit_turn(config);
    let mut steps = Vec::new();
    let written = edit(file, |existing| {
        let (merged, noted) = seed(existing);
        steps = existing
            .is_none()
            .then(Step::created_file)
            .into_iter()
            .chain(noted)
            .collect();
        merged
    })?;
    if written {
        let ledger = config.state_root.join(super::ledger::LEDGER);
        let lines: String = steps
            .into_iter()
            .map(|step| super::ledger::line(file.to_owned(), format, step))
            .collect();
        let appended = crate::fsutil::open_append(&ledger, 0o600)
            .and_then(|mut f| std::io::Write::write_all(&mut f, lines.as_bytes()));
        if let Err(err) = appended {
            let kind = crate::fsutil::IoKind(err.kind());
            tracing::warn!(
                "{}: cannot note what was written into {} ({kind}); `the-loop uninstall --harness-settings` will not know it",
                ledger.display(),
                file.display()
            );
        }
    }
    Ok(written)
}

const NO_HOME: &str =
    "neither CLAUDE_CONFIG_DIR nor HOME is set, so the harness's config cannot be found";

pub(super) fn failed(events: &EventLog, step: &str, file: Option<&Path>, reason: &str) {
    tracing::warn!(
        "could not prepare the harness's config ({step}): {reason}; the session may open on a dialog"
    );
    events.emit(Event::WorkspaceTrustFailed {
        step: step.into(),
        file: file.map(Path::to_path_buf),
        reason: reason.into(),
    });
}

/// A directory as given (made absolute) and, when different, its real path.
/// A spelling with `..` in it is never a key: `a/../b` names `b`, and as
/// text it would be a junk trust entry no harness ever looks up.
fn forms(dir: &Path) -> DirForms {
    let absolute = std::path::absolute(dir).unwrap_or_else(|_| dir.to_owned());
    let real = std::fs::canonicalize(dir).ok();
    let lexical = !absolute
        .components()
        .any(|c| matches!(c, std::path::Component::ParentDir));
    match real {
        Some(real) if !lexical => DirForms {
            absolute: real,
            real: None,
        },
        real => DirForms {
            real: real.filter(|real| *real != absolute),
            absolute,
        },
    }
}

fn lock_file(state_root: &Path) -> Option<crate::lockfile::LockFile> {
    let path: PathBuf = state_root.join("harness-config.lock");
    match crate::lockfile::LockFile::exclusive(&path) {
        Ok(lock) => Some(lock),
        Err(_) => {
            tracing::debug!(path = %path.display(), "harness config lock unavailable");
            None
        }
    }
}
