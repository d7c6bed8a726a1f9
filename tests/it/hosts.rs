//! The background host (`routing.hosts`, `docs/hosts.md`) against a stand-in
//! of Claude Code's listing (`claude agents --json --all`) over a real
//! process, on a real `/proc`: a fleet of panes sees no change (no host is
//! looked at, the plan's JSON is as it was), and with the host on, `plan`,
//! `status` and `import` read the worker, prove it through its
//! `sessions/<pid>.json`, and say its drift by fingerprint, never a value.
//! The real CLI's story is `real_claude_background`.

use crate::support::*;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

const OLD: &str = "sk-ant-RETIRED-hosts-stand-in-41c9";
const NEW: &str = "sk-ant-ROTATED-hosts-stand-in-7d02";
pub(crate) const ID: &str = "0123abcd";
const REF: &str = "github:octo/repo#3";

struct Fake {
    w: World,
    worker: Worker,
    calls: PathBuf,
}

/// A stand-in background worker: killed when dropped.
pub(crate) struct Worker(pub Child);

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Plants Claude Code's background host in `w`: a worker (a `sleep`
/// holding `env`) listed as background session [`ID`], its
/// `sessions/<pid>.json`, and a `claude` that lists it, records each call
/// in the returned file, fails every other host command, and hands
/// anything else to the stand-in harness (so panes still run). The config
/// gets it as `routing.harnessBinary.claude`, and the host turned on when
/// `host_on`.
pub(crate) fn plant(w: &World, env: &[(&str, &str)], host_on: bool) -> (Worker, PathBuf) {
    let config_dir = w.home.join(".claude");
    std::fs::create_dir_all(config_dir.join("sessions")).unwrap();
    let worker = Command::new("sleep")
        .arg("600")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let pid = worker.id();
    let worker = Worker(worker);
    let start = the_loop::proc_env::ProcStat::read(std::path::Path::new("/proc"), pid as i32)
        .unwrap()
        .start;
    std::fs::write(
        config_dir.join(format!("sessions/{pid}.json")),
        format!(r#"{{"pid":{pid},"sessionId":"{ID}-0000","procStart":"{start}","kind":"bg","jobId":"{ID}"}}"#),
    )
    .unwrap();
    let calls = w.root().join("claude-calls");
    let claude = w.install_bin(
        "claude-host",
        &format!(
            "#!/bin/sh\ncase \"$1\" in\n  agents)\n    echo \"$*\" >> '{calls}'\n    printf '%s' '[{{\"pid\": {pid}, \"id\": \"{ID}\", \"kind\": \"background\", \"sessionId\": \"{ID}-0000\", \"cwd\": \"/w\", \"status\": \"idle\", \"state\": \"blocked\"}}]'\n    exit 0 ;;\n  daemon|respawn|--bg|stop) echo \"$*\" >> '{calls}'; exit 1 ;;\nesac\nexec claude \"$@\"\n",
            calls = calls.display()
        ),
    );
    let hosts = if host_on {
        "  hosts: [tmux, claude-background]\n"
    } else {
        ""
    };
    let config = std::fs::read_to_string(&w.config_path).unwrap();
    let routing = format!(
        "routing:\n{hosts}  harnessBinary:\n    claude: {}\n",
        claude.display()
    );
    let config = if config.contains("routing:\n") {
        config.replacen("routing:\n", &routing, 1)
    } else {
        format!("{config}{routing}")
    };
    w.write_raw_config(&config);
    (worker, calls)
}

/// A world with the host planted over a worker holding OLD; the env file
/// delivers NEW.
fn fake(host_on: bool) -> Fake {
    let w = World::new();
    w.write_raw_config(&format!(
        "state:\n  root: {}\nenv:\n  file: .env\n  deliver: [ANTHROPIC_API_KEY]\n",
        w.state.display()
    ));
    w.write_env(&format!("ANTHROPIC_API_KEY={NEW}\n"));
    let (worker, calls) = plant(&w, &[("ANTHROPIC_API_KEY", OLD)], host_on);
    Fake { w, worker, calls }
}

fn no_canary(out: &std::process::Output, what: &str) {
    assert_no_canary(&out.stdout, &[OLD, NEW], what);
    assert_no_canary(&out.stderr, &[OLD, NEW], what);
}

#[test]
fn a_fleet_of_panes_sees_no_host_and_no_change() {
    let f = fake(false);
    let out = f.w.the_loop(&["plan", "--json"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    assert!(json(&out).get("hosts").is_none(), "{}", stdout(&out));
    let text = stdout(&f.w.the_loop(&["plan"]));
    assert!(!text.contains("background"), "{text}");
    let status = json(&f.w.the_loop(&["status", "--json"]));
    assert!(status.get("hosts").is_none(), "{status:#}");
    assert!(!f.calls.exists(), "claude was run for a host that is off");
    let out =
        f.w.the_loop(&["import", ID, REF, "--host", "claude-background"]);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    assert!(
        stderr(&out).contains("hosts: [tmux, claude-background]"),
        "{}",
        explain(&out)
    );
}

#[test]
fn a_background_session_is_read_planned_imported_and_counted() {
    let f = fake(true);
    // Not managed yet: listed, its drift said, not counted.
    let out = f.w.the_loop(&["plan", "--detailed-exitcode"]);
    no_canary(&out, "plan");
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let text = stdout(&out);
    assert!(
        text.contains(&format!(
            "the-loop import {ID} REF --host claude-background"
        )),
        "{text}"
    );
    let out =
        f.w.the_loop(&["plan", "--detailed-exitcode", "--include-unmanaged"]);
    assert_eq!(code(&out), Some(2), "{}", explain(&out));

    // Refusals name what is wrong, never a value.
    for (id, says) in [
        ("not-an-id", "is not a background session's short id"),
        ("fedcba98", "no background session fedcba98"),
    ] {
        let out =
            f.w.the_loop(&["import", id, REF, "--host", "claude-background"]);
        no_canary(&out, "import");
        assert_eq!(code(&out), Some(1), "{}", explain(&out));
        assert!(stderr(&out).contains(says), "{}", explain(&out));
    }
    let out =
        f.w.the_loop(&["import", ID, REF, "--host", "claude-background", "--json"]);
    no_canary(&out, "import");
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let imported = json(&out);
    assert_eq!(imported["ref"], REF, "{imported:#}");
    assert_eq!(
        imported["conversation"],
        format!("{ID}-0000"),
        "{imported:#}"
    );
    let out = f.w.the_loop(&[
        "import",
        ID,
        "github:octo/repo#4",
        "--host",
        "claude-background",
    ]);
    assert!(
        stderr(&out).contains(&format!("already managed as {REF}")),
        "{}",
        explain(&out)
    );

    // Managed: its drift is the plan's, by fingerprint.
    let out = f.w.the_loop(&["plan", "--json", "--detailed-exitcode"]);
    no_canary(&out, "plan --json");
    assert_eq!(code(&out), Some(2), "{}", explain(&out));
    let plan = json(&out);
    let row = &plan["hosts"][0]["sessions"][0];
    assert_eq!(row["ref"], REF, "{plan:#}");
    assert_eq!(row["action"], "respawn", "{plan:#}");
    assert_eq!(row["apply_will"], "roll_now", "{plan:#}");
    assert_eq!(row["pid"], f.worker.0.id(), "{plan:#}");
    let change = row["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "ANTHROPIC_API_KEY")
        .unwrap();
    assert_eq!(change["case"], "stale", "{plan:#}");
    let text = stdout(&f.w.the_loop(&["plan"]));
    assert!(text.contains(&format!("{REF}  (background {ID}")), "{text}");
    assert!(text.contains("Run `the-loop apply`"), "{text}");
    let out = f.w.the_loop(&["status", "--json"]);
    no_canary(&out, "status");
    let status = json(&out);
    assert_eq!(status["hosts"][0]["managed"], 1, "{status:#}");
    assert_eq!(status["hosts"][0]["stale"], 1, "{status:#}");
    let text = stdout(&f.w.the_loop(&["status"]));
    assert!(
        text.contains("background     1 managed, 1 running, 1 stale"),
        "{text}"
    );

    // A worker whose sessions file names another process is not read.
    let file =
        f.w.home
            .join(format!(".claude/sessions/{}.json", f.worker.0.id()));
    std::fs::write(
        &file,
        std::fs::read_to_string(&file)
            .unwrap()
            .replace(ID, "99999999"),
    )
    .unwrap();
    let plan = json(&f.w.the_loop(&["plan", "--json"]));
    let row = &plan["hosts"][0]["sessions"][0];
    assert_eq!(row["action"], "unverified", "{plan:#}");
    assert!(
        row["reason"]
            .as_str()
            .unwrap()
            .contains("names another session"),
        "{plan:#}"
    );
    for (path, bytes) in f.w.state_files() {
        assert_no_canary(&bytes, &[OLD, NEW], &path.display().to_string());
    }
}
