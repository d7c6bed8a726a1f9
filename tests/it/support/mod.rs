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
pub mod delivery;
pub mod holders;
pub mod own_copy;
mod person;
pub mod real_setup;
pub mod watching;

use std::collections::BTreeMap;
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

    /// Starts the tmux server with `vars` in its own process environment
    /// (never in an argv), as a server started before a rotation would be.
    pub fn start_server_holding(&self, vars: &[(&str, &str)]) {
        let mut cmd = Command::new("tmux");
        self.apply_env(&mut cmd);
        for (k, v) in vars {
            cmd.env(k, v);
        }
        let out = cmd
            .args([
                "-f",
                "/dev/null",
                "new-session",
                "-d",
                "-s",
                "keepalive",
                "sleep",
                "100000",
            ])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "start tmux: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// A session as an older the-loop spawned it: the harness started by
    /// tmux straight from the server's environment, registered afterwards.
    pub fn legacy_session(&self, reference: &str, slug: &str) -> LegacySession {
        self.legacy_session_as(reference, slug, &format!("0000-{slug}"))
    }

    /// [`World::legacy_session`] with a conversation id of the caller's.
    pub fn legacy_session_as(
        &self,
        reference: &str,
        slug: &str,
        session_id: &str,
    ) -> LegacySession {
        self.legacy_session_with(reference, slug, session_id, &[])
    }

    /// [`World::legacy_session_as`], the session's environment also holding
    /// `env` (`new-session -e`).
    pub fn legacy_session_with(
        &self,
        reference: &str,
        slug: &str,
        session_id: &str,
        env: &[(&str, &str)],
    ) -> LegacySession {
        let session_id = session_id.to_owned();
        let cwd = self.work.join(slug);
        std::fs::create_dir_all(&cwd).unwrap();
        let name = format!("loop-{}", slug.replace(['.', ':'], "_"));
        let env: Vec<String> = env.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let mut args = vec![
            "new-session",
            "-d",
            "-s",
            &name,
            "-c",
            cwd.to_str().unwrap(),
        ];
        for pair in &env {
            args.extend(["-e", pair.as_str()]);
        }
        args.extend(["--", "claude", "--session-id", &session_id]);
        self.tmux_ok(&args);
        self.tmux_ok(&[
            "set-option",
            "-w",
            "-t",
            &format!("={name}:"),
            "remain-on-exit",
            "on",
        ]);
        let session = LegacySession {
            reference: reference.into(),
            slug: slug.into(),
            name,
            session_id,
            cwd,
        };
        self.write_record(&session, "active");
        // Ready, not only started: a test that compares the transcript
        // before and after a command would otherwise see the stand-in's own
        // `ready` line land in between (it did, under load).
        wait_for(
            || {
                std::fs::read_to_string(self.transcript(&session))
                    .is_ok_and(|t| t.contains("\"type\":\"ready\""))
            },
            "stand-in is ready",
        );
        session
    }

    /// A `loop-*` tmux session no record names (`plan` counts it as a
    /// `loop-*` without a record, and leaves it alone).
    pub fn unrecorded_loop_session(&self, name: &str) {
        self.tmux_ok(&["new-session", "-d", "-s", name, "sleep", "100000"]);
    }

    pub fn write_record(&self, s: &LegacySession, status: &str) {
        let r: Vec<&str> = s.reference.splitn(2, ':').collect();
        let (owner_repo, number) = r[1].rsplit_once('#').unwrap();
        let parts: Vec<&str> = owner_repo.rsplitn(3, '/').collect();
        let record = serde_json::json!({
            "workItem": {"ref": s.reference, "provider": r[0], "owner": parts[1], "repo": parts[0], "number": number.parse::<u64>().unwrap()},
            "harness": "claude",
            "harnessSessionId": s.session_id,
            "cwd": s.cwd,
            "status": status,
            "createdAt": "2026-11-01T00:00:00Z",
            "lastEventAt": null,
            "tmuxTarget": s.name,
            "recentDeliveries": [],
            "upstreamOnlyField": {"kept": true}
        });
        let path = self.state.join("local").join(format!("{}.json", s.slug));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, serde_json::to_string_pretty(&record).unwrap()).unwrap();
        set_mode(&path, 0o600);
    }

    pub fn transcript(&self, s: &LegacySession) -> PathBuf {
        let mangled: String = s
            .cwd
            .to_string_lossy()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        self.home
            .join(".claude/projects")
            .join(mangled)
            .join(format!("{}.jsonl", s.session_id))
    }

    pub fn transcript_text(&self, s: &LegacySession) -> String {
        std::fs::read_to_string(self.transcript(s)).unwrap_or_default()
    }

    /// (pane id, pid, window index, dead) of the session's first pane.
    pub fn pane(&self, session: &str) -> Option<Pane> {
        let out = self.tmux(&[
            "list-panes",
            "-s",
            "-t",
            &format!("={session}"),
            "-F",
            "#{pane_id}\t#{pane_pid}\t#{window_index}\t#{pane_dead}\t#{session_name}",
        ]);
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let line = text.lines().next()?;
        let cols: Vec<&str> = line.split('\t').collect();
        Some(Pane {
            id: cols[0].into(),
            pid: cols[1].parse().ok()?,
            window: cols[2].parse().ok()?,
            dead: cols[3] == "1",
            session: cols[4].into(),
        })
    }

    pub fn registry_files(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        let mut files = BTreeMap::new();
        collect_files(&self.state.join("local"), &mut files);
        files
    }

    /// Every file under the state root, for sweeps.
    pub fn state_files(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        let mut files = BTreeMap::new();
        collect_files(&self.state, &mut files);
        files
    }
}

/// Sets `path`'s permission bits, whatever the umask made them.
pub fn set_mode(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn collect_files(dir: &Path, into: &mut BTreeMap<PathBuf, Vec<u8>>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_files(&path, into);
        } else if let Ok(bytes) = std::fs::read(&path) {
            into.insert(path, bytes);
        }
    }
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

/// The environment a process really holds, from /proc.
pub fn environ(pid: i32) -> BTreeMap<String, String> {
    let bytes = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
    bytes
        .split(|b| *b == 0)
        .filter_map(|kv| {
            let text = String::from_utf8_lossy(kv);
            text.split_once('=')
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
        })
        .collect()
}

pub fn cmdline(pid: i32) -> Vec<String> {
    let bytes = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    bytes
        .split(|b| *b == 0)
        .filter(|s| !s.is_empty())
        .map(|s| String::from_utf8_lossy(s).into_owned())
        .collect()
}

/// How long [`wait_for`] waits before calling a wait a hang. It guards
/// against a hang and times nothing (speed lives in `scripts/bench.sh`):
/// the full suite runs many tmux servers and harnesses on two cores, and
/// once a harness that had been sent SIGTERM took its pane past a
/// 10-second deadline there while the same test passed alone every time.
pub const HANG_GUARD: Duration = Duration::from_secs(30);

pub fn wait_for(mut check: impl FnMut() -> bool, what: &str) {
    let deadline = Instant::now() + HANG_GUARD;
    while !check() {
        assert!(Instant::now() < deadline, "timed out waiting: {what}");
        std::thread::sleep(Duration::from_millis(25));
    }
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A command's exit code; `None` when a signal ended it.
pub fn code(out: &Output) -> Option<i32> {
    out.status.code()
}

/// Everything a failed assertion about a command should show.
pub fn explain(out: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        stdout(out),
        stderr(out)
    )
}

/// The command's stdout as JSON; a panic that shows both streams if it is not.
pub fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", explain(out)))
}

/// The command succeeded (exit 0); its output, for a chained read.
pub fn ok(out: Output) -> Output {
    assert_eq!(out.status.code(), Some(0), "{}", explain(&out));
    out
}

/// A JSON file, parsed; a panic that names the file if it cannot be read.
pub fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(
        &std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
    )
    .unwrap_or_else(|e| panic!("{}: not JSON ({e})", path.display()))
}

/// The entry for `reference` in a JSON document's `sessions` array (an
/// apply report, a plan, `status --json`).
pub fn session_in<'a>(doc: &'a serde_json::Value, reference: &str) -> &'a serde_json::Value {
    doc["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["ref"] == reference)
        .unwrap_or_else(|| panic!("{reference} not in {doc}"))
}

/// Text with its white space and table rules removed, so an assertion does
/// not depend on where a rendered report wraps.
pub fn flat(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_whitespace() && *c != '│')
        .collect()
}

/// Whether the process with this pid is still running: it exists and is
/// not a zombie. tmux 3.3a can miss a pane process's SIGCHLD (seen here:
/// a stand-in that exited on SIGTERM stayed a zombie until the server got
/// another SIGCHLD), so an ended harness may wait a long while to be
/// reaped; it has ended all the same, as the-loop's own check says
/// (`src/runner/signal.rs`, `has_exited`).
pub fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the command name's closing parenthesis.
        Ok(stat) => stat
            .rsplit_once(')')
            .is_none_or(|(_, rest)| !rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

/// A TCP port on 127.0.0.1 that was free a moment ago.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Fails if any canary (or its base64 or hex form) appears in `haystack`.
pub fn assert_no_canary(haystack: &[u8], canaries: &[&str], context: &str) {
    use base64::Engine;
    for canary in canaries {
        let forms = [
            canary.to_string(),
            base64::engine::general_purpose::STANDARD.encode(canary),
            canary
                .bytes()
                .map(|b| format!("{b:02x}"))
                .collect::<String>(),
        ];
        for form in forms {
            let found = haystack.windows(form.len()).any(|w| w == form.as_bytes());
            assert!(!found, "a canary value leaked into {context}");
        }
    }
}

/// Waits until the pane's launcher has exec'd the harness: until then the
/// pid still runs `the-loop exec … -- claude …` and holds the launcher's
/// environment, not the harness's.
pub fn wait_for_harness(pid: i32) {
    wait_for(
        || {
            let argv = cmdline(pid);
            !argv.is_empty() && argv.get(1).map(String::as_str) != Some("exec")
        },
        "the launcher exec'd the harness",
    );
}

// ---- Session lifecycle helpers (added with the lifecycle verbs) ----

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

/// Decodes the stand-in's `{"type": kind, "b64": …}` transcript lines.
fn decoded_lines(transcript: &str, kind: &str) -> Vec<String> {
    use base64::Engine;
    transcript
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["type"] == kind)
        .filter_map(|v| {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(v["b64"].as_str()?)
                .ok()?;
            Some(String::from_utf8_lossy(&bytes).into_owned())
        })
        .collect()
}

impl World {
    /// Starts a session with `the-loop sessions start` in `work/<slug>`.
    pub fn started_session(&self, reference: &str, slug: &str) -> LegacySession {
        let cwd = self.work.join(slug);
        std::fs::create_dir_all(&cwd).unwrap();
        self.started_session_in(reference, slug, &cwd)
    }

    /// `sessions start REF --cwd CWD --json`, which must succeed; its report.
    pub fn start_session(&self, reference: &str, cwd: &Path) -> serde_json::Value {
        let out = self.the_loop(&[
            "sessions",
            "start",
            reference,
            "--cwd",
            cwd.to_str().unwrap(),
            "--json",
        ]);
        assert!(
            out.status.success(),
            "sessions start: {}{}",
            stdout(&out),
            stderr(&out)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }

    /// The config and env file the real-CLI tests share: `EXTRA_TOKEN`
    /// delivered (holding `token`), `ANTHROPIC_API_KEY` withheld, and the
    /// harness binary at `claude`.
    pub fn configure_harness(&self, claude: &Path, token: &str) {
        self.write_config("  credentials: [ANTHROPIC_API_KEY]\n  deliver: [EXTRA_TOKEN]\n");
        self.write_raw_config(&format!(
            "{}  harnessBinary:\n    claude: {}\n",
            std::fs::read_to_string(&self.config_path).unwrap(),
            claude.display()
        ));
        self.write_env(&format!("EXTRA_TOKEN={token}\n"));
    }

    pub fn started_session_in(&self, reference: &str, slug: &str, cwd: &Path) -> LegacySession {
        let started = self.start_session(reference, cwd);
        let session = LegacySession {
            reference: reference.into(),
            slug: slug.into(),
            name: started["tmux_target"].as_str().unwrap().into(),
            session_id: started["harness_session_id"].as_str().unwrap().into(),
            cwd: cwd.canonicalize().unwrap(),
        };
        wait_for(
            || {
                self.transcript_text(&session)
                    .contains("\"type\":\"start\"")
            },
            "the harness started",
        );
        session
    }

    /// What was typed or pasted into the stand-in, line by line (raw bytes,
    /// paste brackets included).
    pub fn inputs(&self, s: &LegacySession) -> Vec<String> {
        decoded_lines(&self.transcript_text(s), "input")
    }

    /// First prompts the stand-in was started with.
    pub fn boot_prompts(&self, s: &LegacySession) -> Vec<String> {
        decoded_lines(&self.transcript_text(s), "prompt")
    }

    /// The same session under another conversation id (after a fresh start).
    pub fn with_session_id(&self, s: &LegacySession, id: &str) -> LegacySession {
        LegacySession {
            session_id: id.into(),
            ..s.clone()
        }
    }

    pub fn record_path(&self, slug: &str) -> PathBuf {
        self.state.join("local").join(format!("{slug}.json"))
    }

    pub fn record(&self, slug: &str) -> Option<serde_json::Value> {
        let bytes = std::fs::read(self.record_path(slug)).ok()?;
        Some(serde_json::from_slice(&bytes).unwrap())
    }

    /// Rewrites a record with `edit` applied.
    pub fn edit_record(&self, slug: &str, edit: impl FnOnce(&mut serde_json::Value)) {
        let mut record = self.record(slug).expect("record exists");
        edit(&mut record);
        std::fs::write(
            self.record_path(slug),
            serde_json::to_string_pretty(&record).unwrap(),
        )
        .unwrap();
    }

    /// Every event logged so far.
    pub fn events(&self) -> Vec<serde_json::Value> {
        std::fs::read_to_string(self.state.join("events.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    pub fn events_named(&self, name: &str) -> Vec<serde_json::Value> {
        self.events()
            .into_iter()
            .filter(|e| e["event"] == name)
            .collect()
    }

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

    /// The tmux server's pid.
    pub fn tmux_server_pid(&self) -> i32 {
        self.tmux_ok(&["display-message", "-p", "#{pid}"])
            .trim()
            .parse()
            .unwrap()
    }

    /// Every tmux session name on this world's server.
    pub fn tmux_sessions(&self) -> Vec<String> {
        stdout(&self.tmux(&["list-sessions", "-F", "#{session_name}"]))
            .lines()
            .map(String::from)
            .collect()
    }
}

/// The real tmux binary, found on PATH outside any test world.
pub fn real_tmux() -> PathBuf {
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .map(|dir| dir.join("tmux"))
        .find(|p| p.is_file() && !p.to_string_lossy().contains("the-loop-test-"))
        .expect("tmux on PATH")
}

/// Every pid below `pid` (children, grandchildren, ...), from /proc.
pub fn descendants(pid: i32) -> Vec<i32> {
    let mut found = Vec::new();
    let mut queue = vec![pid];
    while let Some(p) = queue.pop() {
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{p}/task")) else {
            continue;
        };
        for task in tasks.flatten() {
            let children =
                std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
            for child in children.split_whitespace().filter_map(|c| c.parse().ok()) {
                if !found.contains(&child) {
                    found.push(child);
                    queue.push(child);
                }
            }
        }
    }
    found
}

impl World {
    /// Where the tmux wrapper records every invocation's argv.
    pub fn tmux_argv_log(&self) -> PathBuf {
        self.root().join("tmux-argv.log")
    }

    /// Where the wrapper copies every line sent to a control-mode client
    /// (`tmux -C`, the roll's one client): the commands a roll sends.
    pub fn tmux_control_log(&self) -> PathBuf {
        self.root().join("tmux-control.log")
    }

    /// Puts a `tmux` on PATH, ahead of the real one, that appends its argv to
    /// [`World::tmux_argv_log`] and then execs the real tmux, so every tmux
    /// invocation (the one that starts the server included) is recorded. A
    /// control-mode client's stdin is copied to [`World::tmux_control_log`];
    /// tmux itself is still what the-loop started (`exec`), so a client
    /// the-loop ends never outlives it.
    pub fn install_tmux_wrapper(&self) -> PathBuf {
        let log = self.tmux_argv_log();
        let script = format!(
            "#!/bin/bash\n{{ for a in \"$@\"; do printf '%s\\037' \"$a\"; done; printf '\\036\\n'; }} >>'{log}'\n\
             if [ \"$1\" = -C ] || [ \"$3\" = -C ]; then exec '{real}' \"$@\" < <(exec tee -a '{control}'); fi\n\
             exec '{real}' \"$@\"\n",
            log = log.display(),
            control = self.tmux_control_log().display(),
            real = real_tmux().display()
        );
        let wrapper = self.bin_dir.join("tmux");
        std::fs::write(&wrapper, script).unwrap();
        std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
        // A child forked by another test thread while the script was open for
        // writing holds it until that child execs, and exec'ing it meanwhile
        // fails with ETXTBSY: run it once until it runs, then start the log afresh.
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            match Command::new(&wrapper).arg("-V").output() {
                Ok(_) => break,
                Err(e) if e.raw_os_error() == Some(26) && Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5))
                }
                Err(e) => panic!("cannot run the tmux wrapper: {e}"),
            }
        }
        let _ = std::fs::remove_file(&log);
        log
    }

    /// The argv of every recorded tmux invocation, in order.
    /// Every command sent to a control-mode client, as its words (each line
    /// of [`World::tmux_control_log`], unquoted as tmux's parser reads it).
    pub fn tmux_control_commands(&self) -> Vec<Vec<String>> {
        let text = std::fs::read_to_string(self.tmux_control_log()).unwrap_or_default();
        text.lines().map(tmux_words).collect()
    }

    pub fn tmux_invocations(&self) -> Vec<Vec<String>> {
        let text = std::fs::read(self.tmux_argv_log()).unwrap_or_default();
        text.split(|b| *b == 0x1e)
            .map(|rec| rec.strip_prefix(b"\n").unwrap_or(rec))
            .filter(|rec| !rec.is_empty())
            .map(|rec| {
                let words: Vec<String> = rec
                    .split(|b| *b == 0x1f)
                    .filter(|a| !a.is_empty())
                    .map(|a| String::from_utf8_lossy(a).into_owned())
                    .collect();
                // The server every call names (`-S SOCKET`) is not the call.
                match words.first().map(String::as_str) {
                    Some("-S") => words.into_iter().skip(2).collect(),
                    _ => words,
                }
            })
            .collect()
    }

    /// [`World::tmux_invocations`] but the plan's one batch of screen looks
    /// (`capture-pane`, [`the_loop::plan`]'s look at what each session a
    /// roll would take shows): the calls that read the fleet's state, whose
    /// count the tests hold constant. More than one batch of looks fails.
    pub fn tmux_reading_calls(&self) -> Vec<Vec<String>> {
        let (looks, reads): (Vec<_>, Vec<_>) = self
            .tmux_invocations()
            .into_iter()
            .partition(|call| call.first().is_some_and(|w| w == "capture-pane"));
        assert!(
            looks.len() <= 1,
            "one batch of screen looks at most: {looks:?}"
        );
        reads
    }

    /// The pid of this world's tmux server, if one runs.
    pub fn server_pid(&self) -> Option<i32> {
        let out = self.tmux(&["display-message", "-p", "#{pid}"]);
        String::from_utf8_lossy(&out.stdout).trim().parse().ok()
    }

    /// Runs tmux commands from a file (`source-file`), so values set in
    /// tmux's environments never pass through an argv.
    pub fn source_tmux(&self, commands: &str) {
        let file = self.root().join(format!(
            "commands-{}.tmux",
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        ));
        std::fs::write(&file, commands).unwrap();
        self.tmux_ok(&["source-file", file.to_str().unwrap()]);
        std::fs::remove_file(file).unwrap();
    }

    /// Every pane's pid on this world's server.
    pub fn all_pane_pids(&self) -> Vec<i32> {
        let out = self.tmux(&["list-panes", "-a", "-F", "#{pane_pid}"]);
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect()
    }
}

/// A value as a double-quoted string in a tmux `source-file` script:
/// `"`, `\`, `$`, `#` and `~` escaped, a newline written `\n`.
pub fn tmux_quote(value: &str) -> String {
    let mut out = String::from("\"");
    for c in value.chars() {
        match c {
            '"' | '\\' | '$' | '#' | '~' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A tmux socket that accepts connections and never answers, where tmux
/// looks for its server under `tmux_tmpdir`. Dropping it removes the socket
/// (so the world's own clean-up does not wait on it).
pub struct HungSocket {
    path: PathBuf,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl HungSocket {
    pub fn bind(tmux_tmpdir: &Path) -> HungSocket {
        let dir = tmux_tmpdir.join(format!("tmux-{}", nix::unistd::getuid().as_raw()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
        let path = dir.join("default");
        let listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
        listener.set_nonblocking(true).unwrap();
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut held = Vec::new();
            while !flag.load(std::sync::atomic::Ordering::SeqCst) {
                if let Ok((stream, _)) = listener.accept() {
                    held.push(stream);
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        });
        HungSocket {
            path,
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for HungSocket {
    fn drop(&mut self) {
        // Before the world's own clean-up asks this "server" to exit.
        let _ = std::fs::remove_file(&self.path);
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl World {
    /// A world whose roll probes after `probe_seconds` (a 3 s kill grace),
    /// holding [`World::rotated_fleet`]'s `n` sessions.
    pub fn rotated_with_probe(
        n: usize,
        probe_seconds: &str,
        retired: &str,
        rotated: &str,
    ) -> (World, Vec<LegacySession>) {
        let w = World::new();
        w.write_raw_config(&format!(
            "state:\n  root: {}\nenv:\n  file: .env\nrouting:\n  tmux:\n    resumeProbeSeconds: {probe_seconds}\n    harnessKillGraceSeconds: 3\n",
            w.state.display()
        ));
        let sessions = w.rotated_fleet(n, retired, rotated);
        (w, sessions)
    }

    /// Restarts the session's stand-in so that it ignores SIGTERM: a roll then
    /// sits in its grace period, a deterministic point after the signal and
    /// before the respawn.
    pub fn ignore_term(&self, s: &LegacySession) {
        std::fs::write(self.transcript(s), "{\"test\":\"ignore-term\"}\n").unwrap();
        let pane = self.pane(&s.name).unwrap();
        self.tmux_ok(&[
            "respawn-pane",
            "-k",
            "-t",
            &pane.id,
            "-c",
            s.cwd.to_str().unwrap(),
            "--",
            "claude",
            "--session-id",
            &s.session_id,
        ]);
        wait_for(
            || self.transcript_text(s).contains("\"type\":\"start\""),
            "the session restarted ignoring SIGTERM",
        );
    }

    /// The reporter's situation: a tmux server frozen on `retired`, `n`
    /// sessions (`github:octo/repo#1` to `#n`) born on it, then `rotated`
    /// written to the env file.
    pub fn rotated_fleet(&self, n: usize, retired: &str, rotated: &str) -> Vec<LegacySession> {
        self.write_env(&format!("SLACK_BOT_TOKEN={retired}\n"));
        self.start_server_holding(&[("SLACK_BOT_TOKEN", retired)]);
        let sessions = (1..=n)
            .map(|i| {
                self.legacy_session(
                    &format!("github:octo/repo#{i}"),
                    &format!("github-octo-repo-{i}"),
                )
            })
            .collect();
        self.write_env(&format!("SLACK_BOT_TOKEN={rotated}\n"));
        sessions
    }
}

/// Every subcommand path, e.g. `["sessions", "restart"]`, hidden ones excluded.
pub fn subcommand_paths() -> Vec<Vec<String>> {
    fn walk(cmd: &clap::Command, prefix: &[String], out: &mut Vec<Vec<String>>) {
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            let mut path = prefix.to_vec();
            path.push(sub.get_name().to_owned());
            out.push(path.clone());
            walk(sub, &path, out);
        }
    }
    let mut out = Vec::new();
    let root = <the_loop::cli::Cli as clap::CommandFactory>::command();
    walk(&root, &[], &mut out);
    out
}

/// The words of one tmux command line as the-loop quotes them: `'…'`
/// literally, `"…"` with `\\`, `\"` and `\$` escaped, anything else up to a space.
pub fn tmux_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut chars = line.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c == ' ' {
            chars.next();
            continue;
        }
        let mut word = String::new();
        match c {
            '\'' => {
                chars.next();
                word.extend(chars.by_ref().take_while(|&c| c != '\''));
            }
            '"' => {
                chars.next();
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => word.extend(chars.next()),
                        c => word.push(c),
                    }
                }
            }
            _ => {
                while let Some(&c) = chars.peek() {
                    if c == ' ' {
                        break;
                    }
                    word.push(c);
                    chars.next();
                }
            }
        }
        words.push(word);
    }
    words
}

/// Held by each test of `tests/heavy/` for its whole run: they load the
/// machine, so they run one at a time (a failed one's poison is ignored).
pub fn alone() -> std::sync::MutexGuard<'static, ()> {
    static HEAVY: std::sync::Mutex<()> = std::sync::Mutex::new(());
    HEAVY.lock().unwrap_or_else(|e| e.into_inner())
}

/// A tool a test needs, `found` or not: when it is missing the test says
/// SKIP loudly (`how` to get it) and its caller passes, unless
/// THE_LOOP_REQUIRE_TOOLS is set (CI sets it), when it fails.
pub fn required_tool(found: Option<PathBuf>, what: &str, how: &str) -> Option<PathBuf> {
    if found.is_none() {
        assert!(
            std::env::var_os("THE_LOOP_REQUIRE_TOOLS").is_none(),
            "{what} is not installed and THE_LOOP_REQUIRE_TOOLS is set (.ci/run installs it)"
        );
        // Straight to fd 2: libtest captures eprintln!, and a skip must be seen.
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr(),
            "\n*** SKIP: {what} is not installed ({how}) ***\n"
        );
    }
    found
}

/// A real CLI for the tiers that run one (`real_claude`, `real_codex`): at
/// `$<variable>`, else at `installed` (under the repository, where
/// `.ci/run` installs it); see [`required_tool`].
pub fn real_cli(what: &str, variable: &str, installed: &str) -> Option<PathBuf> {
    let installed = Path::new(env!("CARGO_MANIFEST_DIR")).join(installed);
    let found = std::env::var_os(variable)
        .map(PathBuf::from)
        .or(Some(installed))
        .filter(|p| p.is_file());
    required_tool(found, what, &format!("set {variable}, or run .ci/run"))
}
