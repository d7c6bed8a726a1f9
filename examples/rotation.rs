//! The rotation story, end to end, on a private tmux server:
//!
//! 1. a tmux server starts holding a Slack token that is about to be retired;
//! 2. three agent sessions are born on it (as an older spawner left them);
//! 3. the token is rotated in the env file;
//! 4. `the-loop plan` shows the drift, by fingerprint only;
//! 5. `the-loop apply --auto-approve --scrub-tmux-env` respawns each pane in
//!    place, resuming its conversation, verifies the new processes, and
//!    unsets the retired name from tmux's global environment;
//! 6. `the-loop plan` is clean.
//!
//! Run it with `cargo run --example rotation`. It needs tmux and bash, and
//! touches nothing outside a temporary directory: the tmux server is private
//! (its own TMUX_TMPDIR) and is killed at the end, and the directory is
//! removed once every process the server started has ended
//! (`tests/it/rotation_example.rs` checks that nothing is left). The harness is a small
//! stand-in for Claude Code that keeps transcripts the same way.
//!
//! This binary doubles as the-loop itself (the pane launcher re-executes it),
//! so the story runs the real CLI code without a separate install.

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a demo that tells its reader what happens, step by step"
)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};
use the_loop::observed::detached::parents;
use the_loop::proc_env::ProcStat;

const AS_CLI: &str = "THE_LOOP_EXAMPLE_AS_CLI";
const STAND_IN: &str = include_str!("../tests/it/support/stand-in-claude");
// Fabricated demo values; the-loop never prints them, only their fingerprints.
const RETIRED: &str = "xoxb-demo-bot-b-retired";
const ROTATED: &str = "xoxb-demo-bot-a-rotated";

fn main() -> ExitCode {
    if std::env::var_os(AS_CLI).is_some() {
        return the_loop::cli::run();
    }
    match story() {
        Ok(code) => code,
        Err(err) => {
            eprintln!("rotation example failed: {err}");
            ExitCode::FAILURE
        }
    }
}

struct Stage {
    root: PathBuf,
    exe: PathBuf,
}

impl Stage {
    fn env(&self, cmd: &mut Command) {
        let path = format!(
            "{}:{}",
            self.root.join("bin").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        // A private HOME and no CLAUDE_CONFIG_DIR: spawns seed the harness's
        // config, which must be this stage's, never the operator's.
        cmd.env_remove("TMUX")
            .env_remove("THE_LOOP_CLI_CONFIG")
            .env_remove("CLAUDE_CONFIG_DIR")
            .env("TMUX_TMPDIR", self.root.join("tmux"))
            .env("HOME", self.root.join("home"))
            .env("PATH", path)
            .env(AS_CLI, "1");
    }

    fn tmux(&self, args: &[&str], extra_env: &[(&str, &str)]) -> Result<String, String> {
        let mut cmd = Command::new("tmux");
        self.env(&mut cmd);
        cmd.envs(extra_env.iter().copied())
            .args(["-f", "/dev/null"])
            .args(args);
        let out = cmd
            .output()
            .map_err(|e| format!("cannot run tmux ({e}); install it first"))?;
        if !out.status.success() {
            return Err(format!(
                "tmux {}: {}",
                args[0],
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    fn the_loop(&self, args: &[&str]) -> Result<i32, String> {
        println!("\n$ the-loop {}", args.join(" "));
        let mut cmd = Command::new(&self.exe);
        self.env(&mut cmd);
        cmd.env("NO_COLOR", "1")
            .arg("--config")
            .arg(self.root.join("cli-config.yaml"))
            .args(args);
        let status = cmd.status().map_err(|e| e.to_string())?;
        let code = status.code().unwrap_or(-1);
        println!("[exit code {code}]");
        Ok(code)
    }
}

/// Writes a file of this user's alone (0600), whatever the umask: the-loop
/// refuses a config or env file its group or others can write.
fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::create_dir_all(path.parent().unwrap()).map_err(|e| e.to_string())?;
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
        .map_err(|e| e.to_string())
}

/// Ends the stage when the story ends, however it ends (an early `?`
/// too): its tmux server, every process that server started, then its
/// directory.
struct TearDown<'a>(&'a Stage);

impl Drop for TearDown<'_> {
    fn drop(&mut self) {
        let stage = self.0;
        let started = stage.server_processes();
        let _ = stage.tmux(&["kill-server"], &[]);
        // Killing the server hangs up each harness, which then runs its
        // SessionEnd hook: this binary, as the-loop, writing
        // `state/activity/PID.jsonl`. A directory removed before that hook
        // ended came back holding that one file, so the processes the
        // server started (the harness waits for its hook) are waited for.
        let deadline = Instant::now() + Duration::from_secs(10);
        while started.iter().any(|p| p.runs()) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = std::fs::remove_dir_all(&stage.root);
    }
}

/// A process, by its pid and its start time (a pid can be reused).
struct Process {
    pid: i32,
    start: u64,
}

impl Process {
    fn runs(&self) -> bool {
        ProcStat::read(Path::new("/proc"), self.pid)
            .is_some_and(|stat| stat.start == self.start && !stat.is_zombie())
    }
}

impl Stage {
    /// The tmux server and every process beneath it; none when it does not run.
    fn server_processes(&self) -> Vec<Process> {
        let Some(server) = self
            .tmux(&["display-message", "-p", "#{pid}"], &[])
            .ok()
            .and_then(|pid| pid.trim().parse::<i32>().ok())
        else {
            return Vec::new();
        };
        let children = the_loop::observed::unmanaged::children(&parents());
        let (mut found, mut next) = (Vec::new(), vec![server]);
        while let Some(pid) = next.pop() {
            if let Some(stat) = ProcStat::read(Path::new("/proc"), pid) {
                found.push(Process {
                    pid,
                    start: stat.start,
                });
            }
            next.extend(children.get(&pid).into_iter().flatten());
        }
        found
    }
}

fn story() -> Result<ExitCode, String> {
    let dir = tempfile_dir()?;
    let stage = Stage {
        root: dir.clone(),
        exe: std::env::current_exe().map_err(|e| e.to_string())?,
    };
    let tear_down = TearDown(&stage);
    for sub in ["tmux", "home", "state", "bin", "work"] {
        std::fs::create_dir_all(dir.join(sub)).map_err(|e| e.to_string())?;
    }
    // The state root too is refused when its group or others can write it.
    std::fs::set_permissions(dir.join("state"), std::fs::Permissions::from_mode(0o700))
        .map_err(|e| e.to_string())?;
    let stand_in = dir.join("bin/claude");
    write(&stand_in, STAND_IN)?;
    std::fs::set_permissions(&stand_in, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| e.to_string())?;
    write(
        &dir.join("cli-config.yaml"),
        "state:\n  root: state\nenv:\n  file: .env\nrouting:\n  tmux:\n    resumeProbeSeconds: 1\n    harnessKillGraceSeconds: 3\n",
    )?;
    write(&dir.join(".env"), &format!("SLACK_BOT_TOKEN={RETIRED}\n"))?;

    println!("== 1. a tmux server starts holding the token that is about to be retired");
    stage.tmux(
        &["new-session", "-d", "-s", "hub", "sleep", "1000000"],
        &[("SLACK_BOT_TOKEN", RETIRED)],
    )?;
    println!(
        "   fingerprint of the retired token: {}",
        the_loop::secret::Fingerprint::of(RETIRED.as_bytes())
    );

    println!("== 2. three agent sessions are born on it");
    for n in [15, 16, 17] {
        let slug = format!("github-octo-repo-{n}");
        let cwd = dir.join("work").join(&slug);
        std::fs::create_dir_all(&cwd).map_err(|e| e.to_string())?;
        let id = format!("7c0de000-0000-4000-8000-0000000000{n}");
        let name = format!("loop-{slug}");
        stage.tmux(
            &[
                "new-session",
                "-d",
                "-s",
                &name,
                "-c",
                cwd.to_str().unwrap(),
                "--",
                "claude",
                "--session-id",
                &id,
            ],
            &[],
        )?;
        stage.tmux(
            &[
                "set-option",
                "-w",
                "-t",
                &format!("={name}:"),
                "remain-on-exit",
                "on",
            ],
            &[],
        )?;
        let record = serde_json::json!({
            "workItem": {"ref": format!("github:octo/repo#{n}"), "provider": "github", "owner": "octo", "repo": "repo", "number": n},
            "harness": "claude", "harnessSessionId": id, "cwd": cwd, "status": "active",
            "createdAt": "2026-11-27T09:00:00Z", "lastEventAt": null, "tmuxTarget": name, "recentDeliveries": []
        });
        write(
            &dir.join("state/local").join(format!("{slug}.json")),
            &serde_json::to_string_pretty(&record).unwrap(),
        )?;
        println!("   {name}: conversation {id}");
    }
    std::thread::sleep(Duration::from_millis(500));

    println!("== 3. the operator rotates the token in the env file");
    write(&dir.join(".env"), &format!("SLACK_BOT_TOKEN={ROTATED}\n"))?;
    println!(
        "   fingerprint of the new token: {}",
        the_loop::secret::Fingerprint::of(ROTATED.as_bytes())
    );

    println!("== 4. plan shows the drift");
    let drift = stage.the_loop(&["plan", "--detailed-exitcode"])?;
    println!("== 5. apply rolls the sessions in place");
    let applied = stage.the_loop(&["apply", "--auto-approve", "--scrub-tmux-env"])?;
    println!("== 6. plan is clean");
    let clean = stage.the_loop(&["plan", "--detailed-exitcode"])?;

    drop(tear_down);
    let ok = drift == 2 && applied == 0 && clean == 0;
    println!(
        "\n{}",
        if ok {
            "The story holds: drift shown (2), rolled (0), clean (0)."
        } else {
            "The story did NOT hold; see above."
        }
    );
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn tempfile_dir() -> Result<PathBuf, String> {
    let dir = std::env::temp_dir().join(format!("the-loop-rotation-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    dir.canonicalize().map_err(|e| e.to_string())
}
