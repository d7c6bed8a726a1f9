//! The pane's command line: the-loop's own launcher, which builds the
//! desired environment and `execvp`s the harness. Its argv holds names,
//! refs and paths only; the values are read by the launcher from the env file.

use crate::harness::{Harness, Launch, LaunchArgs};
use crate::registry::SessionKey as Identity;
use std::ffi::OsString;
use std::path::PathBuf;

/// Everything needed to start (or restart) one harness in a pane.
#[derive(Debug, Clone)]
pub struct LaunchSpec {
    /// Builds the argv after the binary.
    pub harness: &'static dyn Harness,
    pub identity: Identity,
    pub cwd: PathBuf,
    pub launch: Launch,
    pub args: LaunchArgs,
    /// Absolute path of the config the launcher will read.
    pub config_path: PathBuf,
    /// The harness's own binary, or the configured override.
    pub harness_binary: OsString,
}

pub use crate::harness::LAUNCHER_SUBCOMMAND;

impl LaunchSpec {
    /// `<the-loop> exec --config <path> --work-item <ref> --harness <name> --
    /// <binary> <args…>`: the launcher adds the harness's own hook settings,
    /// so it is told which harness it starts.
    pub fn pane_argv(&self, launcher: &std::path::Path) -> Vec<OsString> {
        let mut argv: Vec<OsString> = vec![
            launcher.into(),
            LAUNCHER_SUBCOMMAND.into(),
            "--config".into(),
            self.config_path.clone().into(),
        ];
        match &self.identity {
            Identity::WorkItem(r) => argv.extend(["--work-item".into(), r.to_string().into()]),
            Identity::Standing(n) => argv.extend(["--standing".into(), n.into()]),
        }
        argv.extend(["--harness".into(), self.harness.name().into()]);
        argv.push("--".into());
        argv.push(self.harness_binary.clone());
        argv.extend(self.harness.argv(&self.launch, &self.args));
        argv
    }

    pub fn session_id(&self) -> &str {
        match &self.launch {
            Launch::Fresh { session_id, .. } | Launch::Resume { session_id } => session_id,
        }
    }
}

/// The path of the running the-loop binary, which panes run as the launcher.
pub fn launcher_path() -> std::io::Result<PathBuf> {
    std::env::current_exe()
}
