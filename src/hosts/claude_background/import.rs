//! `the-loop import ID REF --host claude-background`: brings one of Claude
//! Code's background sessions (its short id, as `claude --bg` and `claude
//! agents` print it) under management, so that `plan` plans it and `apply`
//! rolls it. The host must list the session; one already managed under
//! another ref, or a ref already given to another background session, is
//! refused. Nothing is signalled or restarted.

use crate::desired::config::Config;
use crate::host_kind::Host;
use crate::hosts::commands::{canonical_ref, ImportedOnHost};
use crate::registry::background::{self, BackgroundRecord};
use miette::miette;
use std::path::PathBuf;

pub fn import(
    config: &Config,
    id: &str,
    reference: &str,
    dry_run: bool,
) -> miette::Result<ImportedOnHost> {
    if !background::is_short_id(id) {
        return Err(miette!(
            code = "the_loop::import::not_a_short_id",
            help =
                "a background session's short id is eight hex digits, as `claude agents` lists it",
            "{id:?} is not a background session's short id"
        ));
    }
    let reference = canonical_ref(reference)?;
    let config_dir = config_dir()?;
    let claude = super::observe::claude_binary(config);
    let seen = super::observe::observe(&claude, &config_dir);
    if let Some(why) = &seen.failed {
        return Err(miette!(
            code = "the_loop::import::host_unreadable",
            help = "`claude agents --json --all` must run for this config dir; docs/hosts.md says which versions are read",
            "Claude Code's background host could not be read: {why}"
        ));
    }
    let Some(session) = seen.sessions.iter().find(|s| s.listed.id == id) else {
        return Err(miette!(
            code = "the_loop::import::no_such_background_session",
            help = format!(
                "`claude agents --all` lists the background sessions of {}",
                config_dir.display()
            ),
            "no background session {id} under the config dir {}",
            config_dir.display()
        ));
    };
    let (records, _) = background::load_all(&config.state_root);
    if let Some(other) = records
        .iter()
        .find(|r| r.id == id && r.reference != reference)
    {
        return Err(miette!(
            code = "the_loop::import::already_managed",
            help = "`the-loop plan` lists it under that ref",
            "background session {id} is already managed as {}",
            other.reference
        ));
    }
    if let Some(other) = records
        .iter()
        .find(|r| r.reference == reference && r.id != id)
    {
        return Err(miette!(
            code = "the_loop::import::ref_taken",
            help = "one ref names one session: choose another ref",
            "{reference} already names background session {}",
            other.id
        ));
    }
    let record = BackgroundRecord {
        id: id.to_owned(),
        reference: reference.clone(),
        session_id: session.listed.session_id.clone(),
        config_dir: config_dir.clone(),
        managed_since_ms: crate::clock::now_ms(),
    };
    let path = background::dir(&config.state_root).join(format!("{id}.json"));
    if !dry_run {
        background::save(&config.state_root, &record).map_err(|e| {
            miette!(
                code = "the_loop::import::write",
                "cannot write {}: {}",
                path.display(),
                crate::fsutil::describe(&e)
            )
        })?;
    }
    Ok(ImportedOnHost {
        format_version: "1",
        host: Host::ClaudeBackground,
        id: id.to_owned(),
        reference,
        conversation: session.listed.session_id.clone(),
        cwd: session.listed.cwd.clone(),
        activity: super::plan::activity(session.listed.status),
        location: config_dir,
        record: path,
        dry_run,
    })
}

/// The Claude config dir the-loop manages, else an error saying how to
/// name one.
pub(super) fn config_dir() -> miette::Result<PathBuf> {
    super::observe::config_dir().ok_or_else(|| {
        miette!(
            code = "the_loop::host::no_config_dir",
            help = "set CLAUDE_CONFIG_DIR, or HOME so that ~/.claude is found",
            "no Claude config dir: neither CLAUDE_CONFIG_DIR nor HOME is set"
        )
    })
}
