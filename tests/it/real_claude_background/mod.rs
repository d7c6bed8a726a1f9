//! Claude Code's own background sessions (`claude --bg`) as a second host,
//! on the real CLI (the pinned release, `.ci/run`), offline against the
//! Messages API stand-in. Every background session holds the environment
//! of the config dir's one daemon, never its caller's: three sessions
//! started on a key, the key rotated, `plan` names the three and the
//! daemon, and `apply` replaces the daemon (workers kept) and respawns
//! each at its safe point, each then holding the new key in `/proc` and
//! its own conversation. A busy one is held until its turn ends; a daemon
//! another client starts in the moment the old one is stopped is caught,
//! and nothing is respawned onto it.

mod daemons_started_by_others;
mod held_sessions;

use crate::real_claude::{real_claude, wait_long};
use crate::support::api::StandInApi;
use crate::support::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

const OLD: &str = "sk-ant-api03-background-host-OLD-0000000001";
const NEW: &str = "sk-ant-api03-background-host-NEW-0000000002";

/// A world whose config turns the background host on, with the real
/// claude and its config dir (`$HOME/.claude`, as the-loop finds it).
struct Host {
    w: World,
    claude: PathBuf,
    config_dir: PathBuf,
    base_url: String,
    _api: StandInApi,
}

impl Host {
    fn new(claude_binary: &Path, dirs: &[&str]) -> Host {
        let w = World::new();
        let api = StandInApi::start("messages-api", &w.root());
        let base_url = format!("http://127.0.0.1:{}", api.port);
        let config_dir = w.home.join(".claude");
        std::fs::create_dir_all(&config_dir).unwrap();
        let projects: serde_json::Map<String, serde_json::Value> = dirs
            .iter()
            .map(|dir| {
                let path = w.work.join(dir);
                std::fs::create_dir_all(&path).unwrap();
                (
                    path.canonicalize().unwrap().display().to_string(),
                    serde_json::json!({"hasTrustDialogAccepted": true}),
                )
            })
            .collect();
        std::fs::write(
            config_dir.join(".claude.json"),
            // Both keys approved, as a person answers the CLI's "use this
            // API key?" once (it keeps the last 20 characters).
            serde_json::json!({
                "hasCompletedOnboarding": true,
                "projects": projects,
                "customApiKeyResponses": {
                    "approved": [&OLD[OLD.len() - 20..], &NEW[NEW.len() - 20..]],
                    "rejected": []
                }
            })
            .to_string(),
        )
        .unwrap();
        w.write_raw_config(&format!(
            "state:\n  root: {}\nenv:\n  file: .env\n  deliver: [ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL]\n  sessionPassthrough: [DISABLE_AUTOUPDATER]\nrouting:\n  hosts: [tmux, claude-background]\n  harnessBinary:\n    claude: {}\n",
            w.state.display(),
            claude_binary.display()
        ));
        let host = Host {
            w,
            claude: claude_binary.to_path_buf(),
            config_dir,
            base_url,
            _api: api,
        };
        host.key(OLD);
        host
    }

    /// The env file declares the gateway and `key`.
    fn key(&self, key: &str) {
        self.w.write_env(&format!(
            "ANTHROPIC_API_KEY={key}\nANTHROPIC_BASE_URL={}\n",
            self.base_url
        ));
    }

    /// `claude ARGS` as a person runs it, in `work/<dir>`, from a shell
    /// holding `key`.
    fn claude(&self, dir: &str, key: &str, args: &[&str]) -> Output {
        Command::new(&self.claude)
            .args(args)
            .current_dir(self.w.work.join(dir))
            .env("HOME", &self.w.home)
            .env("CLAUDE_CONFIG_DIR", &self.config_dir)
            .env("DISABLE_AUTOUPDATER", "1")
            .env("ANTHROPIC_BASE_URL", &self.base_url)
            .env("ANTHROPIC_API_KEY", key)
            .stdin(Stdio::null())
            .output()
            .expect("run claude")
    }

    /// `claude --bg PROMPT`: its short id.
    fn start(&self, dir: &str, prompt: &str) -> String {
        self.start_with(dir, &[prompt])
    }

    /// `claude --bg ARGS…`: its short id.
    fn start_with(&self, dir: &str, args: &[&str]) -> String {
        let mut argv = vec!["--bg"];
        argv.extend_from_slice(args);
        let out = self.claude(dir, OLD, &argv);
        let said = String::from_utf8_lossy(&out.stdout).into_owned();
        said.split_whitespace()
            .find(|w| w.len() == 8 && w.bytes().all(|b| b.is_ascii_hexdigit()))
            .unwrap_or_else(|| panic!("no short id in: {said}"))
            .to_owned()
    }

    /// `claude agents --json --all`'s entry for `id`.
    fn agent(&self, id: &str) -> serde_json::Value {
        let out = self.claude(".", OLD, &["agents", "--json", "--all"]);
        let all: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
        all.as_array()
            .into_iter()
            .flatten()
            .find(|a| a["id"] == id)
            .cloned()
            .unwrap_or_default()
    }

    fn pid(&self, id: &str) -> Option<i32> {
        self.agent(id)["pid"].as_i64().map(|p| p as i32)
    }

    fn idle(&self, id: &str) {
        wait_long(|| self.agent(id)["status"] == "idle", &format!("{id} idle"));
    }

    fn import(&self, id: &str, reference: &str) {
        let out = self
            .w
            .the_loop(&["import", id, reference, "--host", "claude-background"]);
        assert_eq!(code(&out), Some(0), "{}", explain(&out));
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        // The daemon and every session under it end with the test.
        let _ = self.claude(".", OLD, &["daemon", "stop", "--any"]);
    }
}

/// The key a process holds.
fn key_of(pid: i32) -> Option<String> {
    environ(pid).get("ANTHROPIC_API_KEY").cloned()
}

#[test]
fn three_background_sessions_and_their_daemon_are_rolled_onto_a_rotated_key() {
    let _alone = alone();
    let Some(claude) = real_claude() else {
        return;
    };
    let host = Host::new(&claude, &["one", "two", "three"]);
    let mut ids = Vec::new();
    for (n, dir) in ["one", "two", "three"].iter().enumerate() {
        let id = host.start(dir, &format!("remember the word zebra{n}"));
        host.idle(&id);
        host.import(&id, &format!("github:octo/repo#{}", n + 1));
        ids.push(id);
    }
    let conversations: Vec<serde_json::Value> = ids
        .iter()
        .map(|id| host.agent(id)["sessionId"].clone())
        .collect();
    let old_pids: Vec<i32> = ids.iter().map(|id| host.pid(id).unwrap()).collect();
    for pid in &old_pids {
        assert_eq!(key_of(*pid).as_deref(), Some(OLD));
    }

    host.key(NEW);
    let out = host.w.the_loop(&["plan", "--detailed-exitcode"]);
    assert_eq!(code(&out), Some(2), "{}", explain(&out));
    let text = stdout(&out);
    assert!(text.contains("daemon"), "{text}");
    for n in 1..=3 {
        assert!(
            text.contains(&format!("github:octo/repo#{n}  (background")),
            "{text}"
        );
    }
    let plan = json(&host.w.the_loop(&["plan", "--json"]));
    let host_plan = &plan["hosts"][0];
    assert!(
        host_plan["layer"]["changes"]
            .as_array()
            .is_some_and(|c| !c.is_empty()),
        "{plan:#}"
    );
    assert_eq!(
        host_plan["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["action"] == "respawn")
            .count(),
        3,
        "{plan:#}"
    );
    let status = json(&host.w.the_loop(&["status", "--json"]));
    assert_eq!(status["hosts"][0]["stale"], 3, "{status:#}");
    assert_eq!(status["hosts"][0]["layer_stale"], true, "{status:#}");

    // Run from a shell holding a name of its own: the daemon does not get it.
    let out = host.w.the_loop_with(
        &["apply", "--auto-approve", "--json"],
        &[("CALLERS_OWN_TOKEN", "caller-value-not-for-the-daemon")],
    );
    assert_no_canary(&out.stdout, &[OLD, NEW], "apply stdout");
    assert_no_canary(&out.stderr, &[OLD, NEW], "apply stderr");
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let report = json(&out);
    assert_eq!(
        report["hosts"][0]["layer"]["outcome"], "replaced",
        "{report:#}"
    );
    let daemon = report["hosts"][0]["layer"]["new_pid"].as_i64().unwrap() as i32;
    assert_eq!(key_of(daemon).as_deref(), Some(NEW));
    assert_eq!(
        environ(daemon).get("CALLERS_OWN_TOKEN"),
        None,
        "the caller's name leaked"
    );
    for (n, id) in ids.iter().enumerate() {
        let row = report["hosts"][0]["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["id"] == id.as_str())
            .unwrap_or_else(|| panic!("{id} not in {report:#}"));
        assert_eq!(row["outcome"], "restarted", "{report:#}");
        let pid = host.pid(id).unwrap();
        assert_ne!(pid, old_pids[n], "not respawned");
        assert_eq!(key_of(pid).as_deref(), Some(NEW), "{id}");
        assert_eq!(
            host.agent(id)["sessionId"],
            conversations[n],
            "another conversation"
        );
        // The resumed session shows its earlier prompt.
        wait_long(
            || {
                let logs = host.claude(".", OLD, &["logs", id]);
                String::from_utf8_lossy(&logs.stdout).contains(&format!("zebra{n}"))
            },
            "the earlier prompt in `claude logs`",
        );
    }
    // On the wire: a person attaches to one (`claude attach`, in a tmux
    // pane) and sends a prompt; the stand-in sees the new key.
    let pane = format!(
        "env CLAUDE_CONFIG_DIR={} DISABLE_AUTOUPDATER=1 {} attach {}",
        host.config_dir.display(),
        host.claude.display(),
        ids[0]
    );
    host.w.tmux_ok(&[
        "new-session",
        "-d",
        "-s",
        "person",
        "-x",
        "200",
        "-y",
        "50",
        &pane,
    ]);
    std::thread::sleep(Duration::from_secs(2));
    host.w.tmux_ok(&[
        "send-keys",
        "-t",
        "=person:",
        "-l",
        "a prompt after the rotation",
    ]);
    std::thread::sleep(Duration::from_millis(400));
    host.w.tmux_ok(&["send-keys", "-t", "=person:", "Enter"]);
    let on_the_wire = |key: &str| {
        use sha2::Digest;
        let digest = sha2::Sha256::digest(key.as_bytes());
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        format!("key={}", &hex[..12])
    };
    wait_long(
        || {
            std::fs::read_to_string(host.w.root().join("api.log"))
                .is_ok_and(|log| log.contains(&on_the_wire(NEW)))
        },
        "a request with the new key at the stand-in",
    );
    let out = host.w.the_loop(&["plan", "--detailed-exitcode"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let status = json(&host.w.the_loop(&["status", "--json"]));
    assert_eq!(status["hosts"][0]["stale"], 0, "{status:#}");
    assert_eq!(status["hosts"][0]["layer_stale"], false, "{status:#}");
    // The roll is in history: the daemon replaced, three restarted.
    let history = json(&host.w.the_loop(&["history", "--json"]));
    let roll = &history["rolls"][0]["hosts"][0];
    assert_eq!(roll["layer"]["outcome"], "replaced", "{history:#}");
    let restarted = roll["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["outcome"] == "restarted")
        .count();
    assert_eq!(restarted, 3, "{history:#}");
    for (path, bytes) in host.w.state_files() {
        assert_no_canary(&bytes, &[OLD, NEW], &path.display().to_string());
    }
}
