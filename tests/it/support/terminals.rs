//! A the-loop run in a pseudo-terminal of its own
//! (`tests/it/support/in-pty`), and the tmux clients attached to a world's
//! server.

use super::{stdout, World};
use std::path::PathBuf;
use std::process::Command;

/// A process running in a pseudo-terminal of its own (tests/it/support/in-pty),
/// killed when dropped.
pub struct PtyProcess {
    pub child: std::process::Child,
    pub log: PathBuf,
}

impl PtyProcess {
    /// Types `text` into the terminal.
    pub fn type_text(&mut self, text: &str) {
        use std::io::Write;
        let stdin = self.child.stdin.as_mut().expect("piped stdin");
        stdin.write_all(text.as_bytes()).unwrap();
        stdin.flush().unwrap();
    }

    /// Everything written to the terminal so far.
    pub fn screen(&self) -> String {
        String::from_utf8_lossy(&std::fs::read(&self.log).unwrap_or_default()).into_owned()
    }
}

impl Drop for PtyProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A tmux client attached to this world's server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Client {
    pub session: String,
    pub read_only: bool,
}

impl World {
    /// Runs `the-loop <args>` in a pseudo-terminal of its own.
    pub fn the_loop_in_pty(&self, args: &[&str]) -> PtyProcess {
        let log = self.dir.path().join(format!(
            "pty-{}.log",
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        ));
        let helper = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/it/support/in-pty");
        let mut cmd = Command::new("python3");
        self.apply_env(&mut cmd);
        cmd.env("TERM", "xterm")
            .arg(helper)
            .arg(&log)
            .arg("--")
            .arg(assert_cmd::cargo::cargo_bin("the-loop"))
            .arg("--config")
            .arg(&self.config_path)
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        PtyProcess {
            child: cmd.spawn().expect("python3 runs tests/it/support/in-pty"),
            log,
        }
    }

    /// The clients attached to this world's tmux server.
    pub fn clients(&self) -> Vec<Client> {
        let out = self.tmux(&[
            "list-clients",
            "-F",
            "#{client_session}\t#{client_readonly}",
        ]);
        stdout(&out)
            .lines()
            .filter_map(|l| l.split_once('\t'))
            .map(|(s, ro)| Client {
                session: s.into(),
                read_only: ro == "1",
            })
            .collect()
    }
}
