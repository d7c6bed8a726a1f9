//! The local stand-ins of the model APIs (`support/messages-api` for
//! Claude Code, `support/responses-api` for Codex), so the real CLIs run
//! real turns offline. Each binds 127.0.0.1 on a free port and writes it to
//! a file; the stand-in is killed when its guard drops.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running stand-in, ended on drop.
pub struct StandInApi {
    child: Child,
    pub port: u16,
}

impl Drop for StandInApi {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl StandInApi {
    /// Starts `tests/it/support/<script>` with its port file and log in
    /// `dir`, and waits (up to a minute) for its port.
    pub fn start(script: &str, dir: &Path) -> StandInApi {
        let port_file = dir.join("api.port");
        let child = Command::new("python3")
            .arg(
                Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("tests/it/support")
                    .join(script),
            )
            .arg(&port_file)
            .arg(dir.join("api.log"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("python3 runs tests/it/support/{script}: {e}"));
        let mut api = StandInApi { child, port: 0 };
        let deadline = Instant::now() + Duration::from_secs(60);
        while Instant::now() < deadline {
            if let Some(port) = std::fs::read_to_string(&port_file)
                .ok()
                .and_then(|p| p.trim().parse().ok())
            {
                api.port = port;
                return api;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("timed out waiting: the {script} stand-in listens");
    }
}
