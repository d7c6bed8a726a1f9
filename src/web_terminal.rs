//! The web terminal: a ttyd child serving a shared `the-loop-hub` tmux
//! session on `routing.webTerminal.host:port` (127.0.0.1:7681 by default).
//!
//! the-loop implements no authentication: whoever can reach the port gets a
//! shell in the hub. Access control is environmental (loopback, a VPN, the
//! hosting provider's network), which is why the default binds to loopback.
//!
//! `the-loop web-terminal` runs it in the foreground and records its own pid
//! in `<state root>/web-terminal.pid`; `status` reads that file.

use crate::desired::config::WebTerminal;
use std::path::{Path, PathBuf};

/// The tmux session every browser client shares.
pub const HUB_SESSION: &str = "the-loop-hub";
/// The service's name in `status`.
pub const SERVICE_NAME: &str = "web-terminal";
/// The subcommand, also how a pidfile's pid is recognised as ours.
pub const SUBCOMMAND: &str = "web-terminal";

pub fn pidfile(state_root: &Path) -> PathBuf {
    state_root.join("web-terminal.pid")
}

pub fn url(settings: &WebTerminal) -> String {
    if settings.host.contains(':') {
        format!("http://[{}]:{}/", settings.host, settings.port)
    } else {
        format!("http://{}:{}/", settings.host, settings.port)
    }
}

/// ttyd's arguments: bind to the configured address, accept input, and run
/// a tmux client that attaches to the hub (creating it when it is gone).
pub fn ttyd_args(settings: &WebTerminal) -> Vec<String> {
    [
        "--interface",
        &settings.host,
        "--port",
        &settings.port.to_string(),
        "--writable",
        "tmux",
        "new-session",
        "-A",
        "-s",
        HUB_SESSION,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// The pid in the pidfile, when that process is alive and is a the-loop
/// web terminal (a pid reused by something else does not count).
pub fn running_pid(state_root: &Path) -> Option<i32> {
    let text =
        crate::bounded_read::read_string(&pidfile(state_root), &crate::bounded_read::STATE_TEXT)
            .ok()?;
    let pid: i32 = text.trim().parse().ok().filter(|p| *p > 0)?;
    let cmdline = crate::proc_env::cmdline(pid).ok()?;
    let ours = cmdline.iter().any(|w| w == SUBCOMMAND);
    let zombie = crate::proc_env::ProcStat::read(std::path::Path::new("/proc"), pid)
        .is_some_and(|stat| stat.is_zombie());
    (ours && !zombie).then_some(pid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ttyd_attaches_a_tmux_client_to_the_hub() {
        let settings = WebTerminal {
            enabled: true,
            host: "127.0.0.1".into(),
            port: 7681,
        };
        insta::assert_debug_snapshot!(ttyd_args(&settings));
        assert_eq!(url(&settings), "http://127.0.0.1:7681/");
        let v6 = WebTerminal {
            host: "::1".into(),
            ..settings
        };
        assert_eq!(url(&v6), "http://[::1]:7681/");
    }

    #[test]
    fn a_stale_or_foreign_pidfile_is_not_running() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(running_pid(dir.path()), None, "no pidfile");
        std::fs::write(pidfile(dir.path()), "garbage").unwrap();
        assert_eq!(running_pid(dir.path()), None);
        // This test process is alive but is not a web terminal.
        std::fs::write(pidfile(dir.path()), std::process::id().to_string()).unwrap();
        assert_eq!(running_pid(dir.path()), None);
    }
}
