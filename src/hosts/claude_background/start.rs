//! `sessions start REF --cwd DIR --host claude-background`: a new
//! background session of Claude Code's, started under a daemon that holds
//! the policy's environment (the-loop's own, replacing one that does not,
//! workers kept), and managed from its first moment: the record names its
//! short id, so `plan` plans it and `apply` rolls it (`docs/hosts.md`).

use super::client::{ensure_daemon, HostClient};
use super::import::config_dir;
use crate::desired::config::Config;
use crate::events::host::LayerOutcome;
use crate::host_kind::Host;
use crate::hosts::commands::{canonical_ref, StartedOnHost};
use crate::registry::background::{self, BackgroundRecord};
use miette::miette;
use std::path::Path;
use std::time::Duration;

/// How long `claude --bg` may take.
const START_TIMEOUT: Duration = Duration::from_secs(60);

pub fn start(
    config: &Config,
    reference: &str,
    cwd: &Path,
    prompt: Option<&str>,
) -> miette::Result<StartedOnHost> {
    let reference = canonical_ref(reference)?;
    let cwd = cwd.canonicalize().map_err(|e| {
        miette!(
            code = "the_loop::start::cwd",
            help = "--cwd names the directory the session works in; create it first",
            "--cwd {}: {}",
            cwd.display(),
            crate::fsutil::describe(&e)
        )
    })?;
    let config_dir = config_dir()?;
    let (records, _) = background::load_all(&config.state_root);
    if let Some(other) = records.iter().find(|r| r.reference == reference) {
        return Err(miette!(
            code = "the_loop::start::ref_taken",
            help = "`the-loop plan` lists it; one ref names one session",
            "{reference} already names background session {}",
            other.id
        ));
    }
    let policy = crate::desired::load_policy_with_key(config)?;
    let (host, _) = super::look::look_in(config, &policy, &config_dir);
    if let Some(why) = &host.observation_failed {
        return Err(miette!(
            code = "the_loop::host::unreadable",
            help = "docs/hosts.md says which versions are read",
            "Claude Code's background host could not be read: {why}"
        ));
    }
    let claude = super::observe::claude_binary(config);
    let client = HostClient::new(config, &claude, &policy);
    let daemon = ensure_daemon(&client, &config_dir, &host);
    if daemon.outcome == LayerOutcome::Refused {
        return Err(miette!(
            code = "the_loop::start::daemon",
            help = "nothing was started; docs/hosts.md says what the daemon must hold",
            "the background daemon does not hold the env file's values: {}",
            daemon.detail.as_deref().unwrap_or("")
        ));
    }
    let mut args = vec!["--bg"];
    args.extend(prompt);
    let said =
        super::observe::run_claude_as(&claude, &config_dir, &args, START_TIMEOUT, &mut |command| {
            client.environment(command);
            command.current_dir(&cwd);
        })
        .map_err(|why| miette!(code = "the_loop::start::background", "{why}"))?;
    let id = String::from_utf8_lossy(&said)
        .split_whitespace()
        .find(|word| background::is_short_id(word))
        .map(str::to_owned)
        .ok_or_else(|| {
            miette!(
                code = "the_loop::start::background",
                help = "docs/hosts.md says which versions are read",
                "`claude --bg` named no short id this version reads"
            )
        })?;
    let seen = super::observe::observe(&claude, &config_dir);
    let conversation = seen
        .sessions
        .iter()
        .find(|s| s.listed.id == id)
        .and_then(|s| s.listed.session_id.clone());
    let record = BackgroundRecord {
        id: id.clone(),
        reference: reference.clone(),
        session_id: conversation.clone(),
        config_dir,
        managed_since_ms: crate::clock::now_ms(),
    };
    let path = background::save(&config.state_root, &record).map_err(|e| {
        miette!(
            code = "the_loop::start::write",
            "background session {id} started, but its record could not be written ({}); `the-loop import {id} {reference} --host claude-background` manages it",
            crate::fsutil::describe(&e)
        )
    })?;
    let open_with = super::plan::open_with(&id);
    Ok(StartedOnHost {
        format_version: "1",
        host: Host::ClaudeBackground,
        reference,
        id,
        conversation,
        cwd,
        layer: daemon,
        record: path,
        open_with,
    })
}
