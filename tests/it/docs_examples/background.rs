//! What a setup leaves running while a block runs: a the-loop command in
//! the background (an apply that holds the lock, a watch that serves
//! metrics), and steps timed to happen while the block's command runs
//! (`/idle` typed into a busy session, the env file rotated).

use crate::support::*;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread::JoinHandle;
use std::time::Duration;

/// A the-loop command started by `setup: background …`, killed when the
/// scene ends; what it printed is in `log`.
pub struct Background {
    child: Child,
    log: PathBuf,
}

impl Background {
    /// What it has printed so far.
    pub fn output(&self) -> String {
        String::from_utf8_lossy(&std::fs::read(&self.log).unwrap_or_default()).into_owned()
    }

    /// The address it serves metrics at, from its log's `serving Prometheus
    /// metrics at http://ADDR/metrics`.
    pub fn metrics_address(&self) -> Option<String> {
        let output = self.output();
        let (_, rest) = output.split_once("serving Prometheus metrics at http://")?;
        Some(rest.split_once("/metrics")?.0.to_owned())
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `the-loop ARGS` as the examples run it (the config named by
/// `THE_LOOP_CLI_CONFIG`, in HOME), stdout and stderr into one log.
pub fn start(w: &World, args: &[&str], n: usize) -> Result<Background, String> {
    let log = w.root().join(format!("docs-background-{n}.log"));
    let file = std::fs::File::create(&log).map_err(|e| e.to_string())?;
    let child = w
        .the_loop_bare()
        .args(args)
        .env("THE_LOOP_CLI_CONFIG", &w.config_path)
        .current_dir(&w.home)
        .stdin(Stdio::null())
        .stdout(file.try_clone().map_err(|e| e.to_string())?)
        .stderr(file)
        .spawn()
        .map_err(|e| e.to_string())?;
    Ok(Background { child, log })
}

/// Waits until some process holds the world's apply lock.
pub fn wait_locked(w: &World) {
    wait_for(
        || {
            lock_files(&w.state)
                .iter()
                .any(|p| the_loop::lockfile::LockFile::is_held(p))
        },
        "the apply lock is held",
    );
}

fn lock_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(lock_files(&path));
        } else if path.file_name().is_some_and(|n| n == "apply.lock") {
            found.push(path);
        }
    }
    found
}

/// `later SECONDS ACTION…`: `tmux ARGS` (on the world's server) or `env
/// LINE…` (the env file's new text), done that many seconds after the
/// setups, while the block's command runs.
pub fn later(w: &World, seconds: &str, action: &[&str]) -> Result<JoinHandle<()>, String> {
    let delay: f64 = seconds
        .parse()
        .map_err(|_| format!("later: `{seconds}` is not a number of seconds"))?;
    let delay = Duration::from_secs_f64(delay);
    let (first, rest) = action.split_first().ok_or("later SECONDS ACTION…")?;
    match *first {
        "tmux" => {
            let mut cmd = Command::new("tmux");
            w.configure_tmux(&mut cmd);
            cmd.args(rest).stdout(Stdio::null()).stderr(Stdio::null());
            Ok(std::thread::spawn(move || {
                std::thread::sleep(delay);
                let _ = cmd.status();
            }))
        }
        "env" => {
            let path = w.env_path.clone();
            let text: String = rest.iter().map(|l| format!("{l}\n")).collect();
            Ok(std::thread::spawn(move || {
                std::thread::sleep(delay);
                std::fs::write(path, text).unwrap();
            }))
        }
        other => Err(format!("later: no action `{other}` (tmux or env)")),
    }
}
