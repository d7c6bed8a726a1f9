//! What `import … --host H` and `sessions start … --host H` say, for every
//! host beside tmux alike (the `--json` documents), and the checks they
//! share: the host is turned on, and the ref is one the registry writes.

use crate::desired::config::Config;
use crate::events::host::LayerReport;
use crate::host_kind::Host;
use crate::plan::host::HostActivity;
use miette::miette;
use serde::Serialize;
use std::path::PathBuf;

/// A session of a host brought under management (`import --json`).
#[derive(Debug, Serialize)]
pub struct ImportedOnHost {
    pub format_version: &'static str,
    pub host: Host,
    /// The host's id for it (Claude Code's short id).
    pub id: String,
    #[serde(rename = "ref")]
    pub reference: String,
    pub conversation: Option<String>,
    pub cwd: Option<String>,
    /// As the host listed it.
    pub activity: HostActivity,
    /// Where the host is (the Claude config dir).
    pub location: PathBuf,
    /// Where the record was (or would be) written.
    pub record: PathBuf,
    pub dry_run: bool,
}

/// A session the-loop started on a host (`sessions start --json`).
#[derive(Debug, Serialize)]
pub struct StartedOnHost {
    pub format_version: &'static str,
    pub host: Host,
    #[serde(rename = "ref")]
    pub reference: String,
    pub id: String,
    pub conversation: Option<String>,
    pub cwd: PathBuf,
    /// What became of the host's layer before the start (kept, or
    /// replaced by one that holds the env file's values).
    pub layer: LayerReport,
    pub record: PathBuf,
    /// How a person opens it (`claude attach <id>`).
    pub open_with: String,
}

/// The config turns `host` on, else an error saying where to.
pub fn require(config: &Config, host: Host) -> miette::Result<()> {
    if config.routing.hosts.contains(&host) {
        return Ok(());
    }
    Err(miette!(
        code = "the_loop::host::off",
        help = format!(
            "add `hosts: [tmux, {}]` under `routing:` in {}",
            host.name(),
            config.path.display()
        ),
        "the {} host is not turned on in this config",
        host.name()
    ))
}

/// A work-item ref as the registry writes it, or a standing session's name.
pub fn canonical_ref(text: &str) -> miette::Result<String> {
    if let Ok(reference) = text.parse::<crate::registry::WorkItemRef>() {
        return Ok(reference.to_string());
    }
    crate::registry::SessionKey::standing(text)
        .map(|_| text.to_owned())
        .map_err(|e| {
            miette!(
                code = "the_loop::ref::invalid",
                help = "a work-item ref looks like github:octo/repo#15; a standing name is lowercase letters, digits and '-'",
                "{e}"
            )
        })
}
