//! `plan` asks tmux a constant number of times however many sessions run.
//!
//! A recording `tmux` wrapper sits first on PATH: it appends one line per
//! invocation to a log and execs the real tmux, so the server and panes are
//! real. The fleet grows from 1 to 20, 100, 500 and 1000 sessions in one
//! private server, and each `plan` must cost at most 3 tmux invocations
//! (the preflight and one call that lists the panes and reads tmux's
//! layers; past the 16 KiB command line, that call is a `source-file -`
//! script) while really observing every session: each pane's environment,
//! and the newest session's own tmux environment, the last one asked.

use crate::support::*;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

const RETIRED: &str = "xoxb-RETIRED-callcount-canary-5e1d";
const ROTATED: &str = "xoxb-ROTATED-callcount-canary-a07c";

/// The most tmux invocations a plan may make, whatever the fleet size.
const MAX_TMUX_CALLS_PER_PLAN: usize = 3;

pub(crate) fn real_tmux() -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join("tmux"))
        .find(|candidate| candidate.is_file())
        .expect("tmux is installed")
}

/// Installs the recording wrapper as `tmux` in the world's bin dir.
pub(crate) fn install_recording_tmux(w: &World, log: &Path) {
    let real = real_tmux();
    assert!(
        !real.starts_with(&w.bin_dir),
        "the real tmux must not be the wrapper"
    );
    let script = format!(
        "#!/bin/sh\nprintf 'tmux %s\\n' \"$*\" >> '{}'\nexec '{}' \"$@\"\n",
        log.display(),
        real.display()
    );
    let wrapper = w.bin_dir.join("tmux");
    std::fs::write(&wrapper, script).unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn session(w: &World, i: usize) -> LegacySession {
    let slug = format!("github-octo-fleet-{i}");
    LegacySession {
        reference: format!("github:octo/fleet#{i}"),
        name: format!("loop-{slug}"),
        session_id: format!("0000-{slug}"),
        cwd: w.work.clone(),
        slug,
    }
}

/// Adds sessions `from..to`, each a real pane (a sleeping process born on
/// the server's retired token) with a registry record. Sessions are created
/// in batches chained with `;`, because tmux caps the length of one command.
fn grow_fleet(w: &World, from: usize, to: usize) {
    let numbers: Vec<usize> = (from..to).collect();
    for batch in numbers.chunks(40) {
        let mut args: Vec<String> = Vec::new();
        for &i in batch {
            let s = session(w, i);
            if !args.is_empty() {
                args.push(";".into());
            }
            args.extend(
                ["new-session", "-d", "-s", &s.name, "sleep", "100000"]
                    .iter()
                    .map(|a| a.to_string()),
            );
            w.write_record(&s, "active");
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        w.tmux_ok(&args);
    }
}

fn logged_calls(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn plan_costs_a_constant_number_of_tmux_calls_from_1_to_1000_sessions() {
    let w = World::new();
    let log = w.root().join("tmux-calls.log");
    install_recording_tmux(&w, &log);
    w.write_env(&format!("SLACK_BOT_TOKEN={RETIRED}\n"));
    w.start_server_holding(&[("SLACK_BOT_TOKEN", RETIRED)]);
    w.write_env(&format!("SLACK_BOT_TOKEN={ROTATED}\n"));
    assert!(
        !logged_calls(&log).is_empty(),
        "the wrapper records the world's own tmux calls"
    );

    let mut fleet = 0;
    for size in [1, 20, 100, 500, 1000] {
        // Issue numbers start at 1.
        grow_fleet(&w, fleet + 1, size + 1);
        fleet = size;
        // The newest session's own tmux layer holds the retired token: the
        // plan must name it, so the sessions at the end were read too.
        let newest = session(&w, size).name;
        w.tmux_ok(&["setenv", "-t", &newest, "SLACK_BOT_TOKEN", RETIRED]);
        for args in [&["plan", "--json"][..], &["plan"][..]] {
            std::fs::remove_file(&log).unwrap();
            let out = w.the_loop(args);
            let calls = logged_calls(&log);
            assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
            assert!(
                !calls.is_empty(),
                "plan asked tmux through the wrapper at {size} sessions"
            );
            assert!(
                calls.len() <= MAX_TMUX_CALLS_PER_PLAN,
                "`the-loop {}` at {size} sessions made {} tmux calls: {calls:?}",
                args.join(" "),
                calls.len()
            );
            if args.contains(&"--json") {
                // The plan really observed every session: each pane's
                // environment was read and found on the retired token.
                let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
                let sessions = plan["sessions"].as_array().unwrap();
                let read_and_stale = sessions
                    .iter()
                    .filter(|s| s["observation"] == "read" && s["action"] == "respawn")
                    .count();
                assert_eq!(
                    read_and_stale, size,
                    "every session observed at {size}: {plan}"
                );
                let residue = &plan["residue"];
                assert_eq!(residue["state"], "observed", "{residue}");
                assert_eq!(residue["unobserved"], serde_json::json!([]), "{residue}");
                let in_session_layer: Vec<&str> = residue["entries"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|e| e["layer"] == "tmux_session")
                    .filter_map(|e| e["session"].as_str())
                    .collect();
                assert!(
                    in_session_layer.contains(&newest.as_str()),
                    "the newest session's layer was read at {size}: {in_session_layer:?}"
                );
            } else {
                assert!(
                    stdout(&out).contains(&format!("github:octo/fleet#{size}")),
                    "{}",
                    stdout(&out)
                );
            }
            assert_no_canary(&out.stdout, &[RETIRED, ROTATED], "plan output");
        }
    }
}
