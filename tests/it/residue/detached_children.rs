//! A harness's detached child holding a retired value: residue by pid, and never signalled.

use super::*;

/// The environment `pid` holds, as `(name, value)` pairs.
fn environ_of(pid: i32) -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
    use std::os::unix::ffi::OsStrExt;
    std::fs::read(format!("/proc/{pid}/environ"))
        .unwrap()
        .split(|b| *b == 0)
        .filter_map(|kv| {
            let eq = kv.iter().position(|b| *b == b'=')?;
            Some((
                std::ffi::OsStr::from_bytes(&kv[..eq]).to_owned(),
                std::ffi::OsStr::from_bytes(&kv[eq + 1..]).to_owned(),
            ))
        })
        .collect()
}

/// `setsid sleep` holding exactly `env`: what a harness's detached child
/// keeps after the harness is replaced.
/// Ended when the test ends, even on a failed assertion.
struct Detached(std::process::Child);

impl Drop for Detached {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn detached_holding(env: &[(std::ffi::OsString, std::ffi::OsString)]) -> Detached {
    // No stdio of the test's: a detached child must not hold its pipes open.
    Detached(
        std::process::Command::new("setsid")
            .args(["sleep", "100000"])
            .env_clear()
            .envs(env.iter().cloned())
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap(),
    )
}

/// Issue 11, class 10: a process a harness detached (setsid) keeps the
/// value it was born with after a verified roll. `apply` and `plan` name it
/// by pid, name and fingerprint, and never signal it; a process carrying
/// another config's identifiers is not the-loop's and is not reported.
#[test]
fn a_detached_child_holding_a_retired_value_is_residue_and_never_signalled() {
    const FIRST: &str = "xoxb-FIRST-det4ched-11aa";
    const SECOND: &str = "xoxb-SECOND-det4ched-22bb";
    const THIRD: &str = "xoxb-THIRD-det4ched-33cc";
    let canaries = [FIRST, SECOND, THIRD];
    let w = World::new();
    w.write_config("  deliver: [SLACK_BOT_TOKEN]\n");
    let sessions = w.rotated_fleet(1, FIRST, SECOND);
    let s = &sessions[0];
    let pane_pid = |w: &World| -> i32 {
        w.tmux_ok(&[
            "display-message",
            "-p",
            "-t",
            &format!("={}:", s.name),
            "#{pane_pid}",
        ])
        .trim()
        .parse()
        .unwrap()
    };
    // First roll: the harness is now the-loop's launch, holding SECOND.
    let out = w.the_loop(&["apply", "--auto-approve", "--json"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let harness_env = environ_of(pane_pid(&w));
    assert!(
        harness_env.iter().any(|(k, _)| k == "THE_LOOP_CLI_CONFIG"),
        "the relaunched harness carries the launcher's identifiers"
    );
    // It detaches a child, then the value is rotated again.
    let mut child = detached_holding(&harness_env);
    let foreign_env: Vec<_> = harness_env
        .iter()
        .map(|(k, v)| {
            if k == "THE_LOOP_CLI_CONFIG" {
                (
                    k.clone(),
                    std::ffi::OsString::from("/elsewhere/cli-config.yaml"),
                )
            } else {
                (k.clone(), v.clone())
            }
        })
        .collect();
    let mut foreign = detached_holding(&foreign_env);
    w.write_env(&format!("SLACK_BOT_TOKEN={THIRD}\n"));

    let applied = w.the_loop(&["apply", "--auto-approve", "--json"]);
    assert_eq!(code(&applied), Some(0), "{}", explain(&applied));
    let report: serde_json::Value = json(&applied);
    let expected = serde_json::json!([{
        "pid": child.0.id(),
        "process": "sleep",
        "name": "SLACK_BOT_TOKEN",
        "fingerprint": fp(SECOND),
        "case": "stale",
    }]);
    assert_eq!(report["detached_residue"], expected, "{report:#}");
    let text = w.the_loop(&["plan"]);
    let plan_json = w.the_loop(&["plan", "--json"]);
    assert_eq!(json(&plan_json)["residue"]["detached"], expected);
    let shown = stdout(&text);
    assert!(
        shown.contains(&format!("pid {} (sleep)", child.0.id())),
        "{shown}"
    );
    assert!(shown.contains(&fp(SECOND)), "{shown}");

    // Never signalled: both still run.
    assert!(
        child.0.try_wait().unwrap().is_none(),
        "the detached child lives"
    );
    assert!(foreign.0.try_wait().unwrap().is_none());
    for out in [&out, &applied, &text, &plan_json] {
        assert_no_canary(&out.stdout, &canaries, "stdout");
        assert_no_canary(&out.stderr, &canaries, "stderr");
    }
    for (path, bytes) in w.state_files() {
        assert_no_canary(&bytes, &canaries, &path.display().to_string());
    }
}
