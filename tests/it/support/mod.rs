//! A private world for each integration test: its own tmux server (a
//! private `TMUX_TMPDIR`), HOME, state root, config and env file, and the
//! stand-in harness on PATH as `claude`. tmux and /proc are always real.

// Said once, here: the `it` and `heavy` binaries each use their own part
// (an allowance where they declare `mod support` as well is a duplicated
// attribute to clippy 1.95).
#![allow(
    dead_code,
    reason = "each test module uses its own part of the support"
)]

pub mod api;
mod command_output;
pub mod delivery;
pub mod holders;
mod legacy_sessions;
pub mod own_copy;
mod person;
mod processes;
pub mod real_setup;
mod started_sessions;
mod terminals;
mod tmux_server;
pub mod watching;

// Re-exported so every `crate::support::X` names its item wherever it
// lives; a binary that uses nothing of one of them (`heavy` of some) would
// otherwise call that re-export an unused import.
#[allow(
    unused_imports,
    reason = "each test binary uses its own part of the support"
)]
pub use {command_output::*, processes::*, terminals::*, tmux_server::*};

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

pub const STAND_IN: &str = include_str!("stand-in-claude");

pub struct World {
    pub dir: tempfile::TempDir,
    pub home: PathBuf,
    pub tmux_tmpdir: PathBuf,
    pub state: PathBuf,
    pub config_path: PathBuf,
    pub env_path: PathBuf,
    pub bin_dir: PathBuf,
    pub work: PathBuf,
}

/// sha256(value)[..8], computed independently of the crate under test.
pub fn fp(value: &str) -> String {
    let out = Command::new("sha256sum")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(value.as_bytes())?;
            c.wait_with_output()
        });
    String::from_utf8(out.expect("sha256sum").stdout).unwrap()[..8].to_owned()
}

impl World {
    pub fn new() -> World {
        let dir = tempfile::Builder::new()
            .prefix("the-loop-test-")
            .tempdir()
            .expect("tempdir");
        let root = dir.path().canonicalize().unwrap();
        let home = root.join("home");
        let tmux_tmpdir = root.join("tmux");
        let state = root.join("state");
        let bin_dir = root.join("bin");
        let work = root.join("work");
        for d in [&home, &tmux_tmpdir, &state, &bin_dir, &work] {
            std::fs::create_dir_all(d).unwrap();
        }
        // the-loop refuses a state root, config, env file or record its
        // group or others can write: set, so a umask of 002 changes nothing.
        set_mode(&state, 0o700);
        let stand_in = bin_dir.join("claude");
        std::fs::write(&stand_in, STAND_IN).unwrap();
        std::fs::set_permissions(&stand_in, std::fs::Permissions::from_mode(0o755)).unwrap();
        let world = World {
            config_path: root.join("cli-config.yaml"),
            env_path: root.join(".env"),
            dir,
            home,
            tmux_tmpdir,
            state,
            bin_dir,
            work,
        };
        world.write_config("");
        world
    }

    pub fn root(&self) -> PathBuf {
        self.config_path.parent().unwrap().to_path_buf()
    }

    /// A config with an env file, fast probes, and `extra` appended (YAML).
    pub fn write_config(&self, extra_env: &str) {
        self.write_raw_config(&format!(
            "state:\n  root: {}\nenv:\n  file: .env\n{extra_env}routing:\n  tmux:\n    resumeProbeSeconds: 0.5\n    harnessKillGraceSeconds: 3\n",
            self.state.display()
        ));
    }

    /// Like [`World::write_config`], with `routing_extra` (YAML lines
    /// indented by two spaces) added under `routing:`.
    pub fn write_config_with_routing(&self, routing_extra: &str) {
        self.write_raw_config(&format!(
            "state:\n  root: {}\nenv:\n  file: .env\nrouting:\n  tmux:\n    resumeProbeSeconds: 0.5\n    harnessKillGraceSeconds: 3\n{routing_extra}",
            self.state.display()
        ));
    }

    /// Installs an executable script in this world's bin directory (on PATH).
    pub fn install_bin(&self, name: &str, script: &str) -> PathBuf {
        let path = self.bin_dir.join(name);
        std::fs::write(&path, script).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    /// [`World::install_bin`] for a script run at once by others: a child
    /// forked by another test thread while the script was open for writing
    /// holds it until that child execs, and exec'ing it meanwhile fails with
    /// ETXTBSY. Runs it with `probe_arg` until it runs.
    pub fn install_bin_settled(&self, name: &str, script: &str, probe_arg: &str) -> PathBuf {
        let path = self.install_bin(name, script);
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            match Command::new(&path).arg(probe_arg).output() {
                Ok(_) => return path,
                Err(e) if e.raw_os_error() == Some(26) && Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5))
                }
                Err(e) => panic!("cannot run {name}: {e}"),
            }
        }
    }

    /// A PATH holding this world's bin directory and only `tools` from the
    /// system (linked into a directory of their own), for tests that need a
    /// program to be missing whatever the machine has installed.
    pub fn restricted_path(&self, tools: &[&str]) -> String {
        let dir = self.root().join("system-bin");
        std::fs::create_dir_all(&dir).unwrap();
        let system = std::env::var("PATH").unwrap_or_default();
        for tool in tools {
            let found = std::env::split_paths(&system)
                .map(|d| d.join(tool))
                .find(|p| p.is_file())
                .unwrap_or_else(|| panic!("{tool} is not installed"));
            let link = dir.join(tool);
            if !link.exists() {
                std::os::unix::fs::symlink(found, link).unwrap();
            }
        }
        format!("{}:{}", self.bin_dir.display(), dir.display())
    }

    pub fn write_raw_config(&self, text: &str) {
        std::fs::write(&self.config_path, text).unwrap();
        set_mode(&self.config_path, 0o600);
    }

    pub fn write_env(&self, text: &str) {
        std::fs::write(&self.env_path, text).unwrap();
        set_mode(&self.env_path, 0o600);
    }

    fn path_var(&self) -> String {
        format!(
            "{}:{}",
            self.bin_dir.display(),
            std::env::var("PATH").unwrap_or_default()
        )
    }

    /// The environment every process of this world starts from.
    fn apply_env(&self, cmd: &mut Command) {
        cmd.env_remove("TMUX")
            .env_remove("TMUX_PANE")
            .env_remove("THE_LOOP_CLI_CONFIG")
            .env_remove("CLAUDE_CONFIG_DIR")
            .env("TMUX_TMPDIR", &self.tmux_tmpdir)
            .env("HOME", &self.home)
            .env("PATH", self.path_var())
            .env("NO_COLOR", "1");
    }

    /// Runs the-loop with `--config` pointing at this world.
    pub fn the_loop(&self, args: &[&str]) -> Output {
        self.the_loop_with(args, &[])
    }

    pub fn the_loop_with(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut cmd = self.the_loop_command(args);
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.output().expect("run the-loop")
    }

    pub fn the_loop_command(&self, args: &[&str]) -> Command {
        let mut cmd = self.the_loop_bare();
        cmd.arg("--config").arg(&self.config_path).args(args);
        cmd
    }

    /// The-loop in this world's environment, with no argument yet.
    pub fn the_loop_bare(&self) -> Command {
        let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("the-loop"));
        self.apply_env(&mut cmd);
        cmd
    }

    /// Runs the-loop with exactly `args`, no `--config` put first: as a
    /// pane runs the launcher (`the-loop exec --config … --`).
    pub fn the_loop_as_given(&self, args: &[&str]) -> Output {
        self.the_loop_bare()
            .args(args)
            .output()
            .expect("run the-loop")
    }

    /// Points `cmd` (a tmux) at this world's private server.
    pub fn configure_tmux(&self, cmd: &mut Command) {
        self.apply_env(cmd);
        cmd.args(["-f", "/dev/null"]);
    }

    /// Runs tmux against this world's private server.
    pub fn tmux(&self, args: &[&str]) -> Output {
        let mut cmd = Command::new("tmux");
        self.apply_env(&mut cmd);
        cmd.args(["-f", "/dev/null"])
            .args(args)
            .output()
            .expect("run tmux")
    }

    /// `tmux source-file -` with `script` on its stdin: what the
    /// observation sends past the 16 KiB command line.
    pub fn tmux_script(&self, script: &str) -> Output {
        use std::io::Write;
        let mut cmd = Command::new("tmux");
        self.configure_tmux(&mut cmd);
        let mut child = cmd
            .args(the_loop::observed::script::SOURCE_STDIN)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("run tmux");
        let mut stdin = child.stdin.take().expect("piped");
        stdin
            .write_all(script.as_bytes())
            .expect("write the script");
        drop(stdin);
        child.wait_with_output().expect("tmux ends")
    }

    pub fn tmux_ok(&self, args: &[&str]) -> String {
        let out = self.tmux(args);
        assert!(
            out.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

/// Sets `path`'s permission bits, whatever the umask made them.
pub fn set_mode(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

impl Drop for World {
    fn drop(&mut self) {
        let _ = self.tmux(&["kill-server"]);
    }
}

#[derive(Debug, Clone)]
pub struct LegacySession {
    pub reference: String,
    pub slug: String,
    pub name: String,
    pub session_id: String,
    pub cwd: PathBuf,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pane {
    pub id: String,
    pub pid: i32,
    pub window: u32,
    pub dead: bool,
    pub session: String,
}
