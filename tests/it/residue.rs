//! Residue in the layers tmux keeps (issue 6, point 3), on a real tmux:
//! the global environment, a session's own environment, and the server
//! process's environment and argv. `plan` names each by fingerprint;
//! `apply --scrub-tmux-env` clears the two that can be cleared in place.

use crate::support::*;

const RETIRED: &str = "xoxb-RETIRED-res1due-0b5e";
const ROTATED: &str = "xoxb-ROTATED-res1due-4d2c";
const GLOBAL_ONLY: &str = "glob-res1due-$x'\"-77f1";
const SESSION_ONLY: &str = "sess-res1due-\n-second-line-c3";
const ARGV_VALUE: &str = "argv-res1due-9a0d";
const DELIVERED: &str = "deliv-res1due-2b2b";
const CANARIES: &[&str] = &[
    RETIRED,
    ROTATED,
    GLOBAL_ONLY,
    SESSION_ONLY,
    "sess-res1due-",
    ARGV_VALUE,
    DELIVERED,
];

struct Setup {
    w: World,
    managed: LegacySession,
    unmanaged: String,
}

/// A server started the way the first implementation started it (a value in
/// the argv of the client that started it, and one in its environment),
/// the global environment changed since, a value put in one managed
/// session's environment and in an unmanaged one's.
fn world_with_residue() -> Setup {
    let w = World::new();
    w.write_config("  deliver: [DELIVERED_TOKEN]\n  credentials: [ARGV_TOKEN]\n");
    w.write_env(&format!(
        "SLACK_BOT_TOKEN={ROTATED}\nSESSION_TOKEN=current-session-token\nDELIVERED_TOKEN={DELIVERED}\n"
    ));
    // The one place this test puts a value in an argv on purpose: the
    // argv layer is what it checks.
    let mut cmd = std::process::Command::new("tmux");
    // The world's own environment (its PATH finds the stand-in harness, not
    // a real `claude` the machine may have), plus the values under test.
    w.configure_tmux(&mut cmd);
    cmd.env("SLACK_BOT_TOKEN", RETIRED)
        .env("DELIVERED_TOKEN", DELIVERED);
    let started = cmd
        .args(["new-session", "-d", "-s", "keepalive", "-e"])
        .arg(format!("ARGV_TOKEN={ARGV_VALUE}"))
        .args(["sleep", "100000"])
        .status()
        .unwrap();
    assert!(started.success());
    let managed = w.legacy_session("github:octo/repo#1", "github-octo-repo-1");
    w.tmux_ok(&["new-session", "-d", "-s", "loop-stray", "sleep", "100000"]);
    w.source_tmux(&format!(
        "set-environment -g SLACK_BOT_TOKEN {}\n\
         set-environment -g KEEP_ME not-a-secret\n\
         set-environment -t ={} SESSION_TOKEN {}\n\
         set-environment -t =loop-stray SESSION_TOKEN {}\n",
        tmux_quote(GLOBAL_ONLY),
        managed.name,
        tmux_quote(SESSION_ONLY),
        tmux_quote(SESSION_ONLY),
    ));
    Setup {
        w,
        managed,
        unmanaged: "loop-stray".into(),
    }
}

fn entries(plan: &serde_json::Value) -> Vec<(String, Option<String>, String, String, String)> {
    plan["residue"]["entries"]
        .as_array()
        .unwrap_or_else(|| panic!("no residue entries: {plan}"))
        .iter()
        .map(|e| {
            (
                e["layer"].as_str().unwrap().to_owned(),
                e["session"].as_str().map(str::to_owned),
                e["name"].as_str().unwrap().to_owned(),
                e["fingerprint"].as_str().unwrap().to_owned(),
                e["case"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// What an apply report's `tmux_env_scrub` unset: (session, name) pairs,
/// the session `None` for the global environment.
fn unset_by_scrub(report: &serde_json::Value) -> Vec<(Option<&str>, &str)> {
    report["tmux_env_scrub"]["unset"]
        .as_array()
        .unwrap_or_else(|| panic!("{report:#}"))
        .iter()
        .map(|t| (t["session"].as_str(), t["name"].as_str().unwrap()))
        .collect()
}

#[test]
fn plan_names_every_tmux_layer_by_name_and_fingerprint_in_two_tmux_calls() {
    let Setup { w, managed, .. } = world_with_residue();
    let server = w.server_pid().expect("server runs");
    w.install_tmux_wrapper();
    let out = w.the_loop(&["plan", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let plan = json(&out);
    assert_eq!(plan["residue"]["state"], "observed");
    assert_eq!(plan["residue"]["server_pid"], server);
    let found = entries(&plan);
    let want = |layer: &str, session: Option<&str>, name: &str, value: &str, case: &str| {
        (
            layer.to_owned(),
            session.map(str::to_owned),
            name.to_owned(),
            fp(value),
            case.to_owned(),
        )
    };
    let expected = vec![
        want("tmux_global", None, "SLACK_BOT_TOKEN", GLOBAL_ONLY, "stale"),
        want(
            "tmux_session",
            Some(&managed.name),
            "SESSION_TOKEN",
            SESSION_ONLY,
            "stale",
        ),
        want("server_environ", None, "SLACK_BOT_TOKEN", RETIRED, "stale"),
        want("server_argv", None, "ARGV_TOKEN", ARGV_VALUE, "stale"),
    ];
    assert_eq!(found, expected, "{plan:#}");
    // The delivered name is the harness's by design, and the unmanaged
    // session is left alone: neither is residue.
    assert!(!found.iter().any(|e| e.2 == "DELIVERED_TOKEN"));
    assert!(!found.iter().any(|e| e.1.as_deref() == Some("loop-stray")));

    // A plan's tmux cost is constant: the pane listing's call reads tmux's
    // global layer and its version (no `tmux -V`), and since a session holds
    // a watched value its gate is open: the sessions' own layers are read in
    // one more call.
    let calls = w.tmux_reading_calls();
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert_eq!(calls[0][0], "list-panes");
    assert!(calls[0].contains(&"showenv".to_owned()));
    assert!(calls[0].contains(&"-gs".to_owned()));
    assert!(!calls[0].iter().any(|word| word.starts_with("-st=")));
    assert!(
        calls[1].contains(&format!("-st={}", managed.name)),
        "{calls:?}"
    );

    let text = w.the_loop(&["plan"]);
    let shown = stdout(&text);
    for line in [
        "tmux global environment",
        &format!("session {} environment", managed.name),
        &format!("tmux server process environment, pid {server}"),
        &format!("tmux server argv, pid {server}"),
        "the-loop apply --scrub-tmux-env",
        "only a new server clears them",
        "the-loop apply --replace-server",
    ] {
        assert!(shown.contains(line), "{line:?} in {shown}");
    }
    for out in [&out, &text] {
        assert_no_canary(&out.stdout, CANARIES, "plan stdout");
        assert_no_canary(&out.stderr, CANARIES, "plan stderr");
    }
}

/// The residue section says once, not on every plan, that a scrub also makes
/// the next plans cheaper; a new value left in tmux is new residue, said again.
#[test]
fn plans_say_once_per_residue_that_a_scrub_makes_them_cheaper() {
    let Setup { w, .. } = world_with_residue();
    let cheaper = "It also makes the next plans cheaper";
    let first = stdout(&w.the_loop(&["plan"]));
    assert!(first.contains(cheaper), "{first}");
    assert!(first.contains("the-loop apply --scrub-tmux-env"), "{first}");
    let second = stdout(&w.the_loop(&["plan"]));
    assert!(!second.contains(cheaper), "said again: {second}");
    assert!(
        second.contains("the-loop apply --scrub-tmux-env"),
        "{second}"
    );
    // JSON never carries it.
    let json_out = stdout(&w.the_loop(&["plan", "--json"]));
    assert!(!json_out.contains("cheaper"), "{json_out}");
    // Another retired value in the global layer: new residue, said again.
    w.source_tmux(&format!(
        "set-environment -g SLACK_BOT_TOKEN {}\n",
        tmux_quote("yet-another-retired-token")
    ));
    let third = stdout(&w.the_loop(&["plan"]));
    assert!(third.contains(cheaper), "{third}");
    assert_no_canary(third.as_bytes(), CANARIES, "plan stdout");
}

#[test]
fn scrub_unsets_withheld_names_from_global_and_managed_session_environments_only() {
    let Setup {
        w,
        managed,
        unmanaged,
    } = world_with_residue();
    let server = w.server_pid().unwrap();
    let server_environ_before = std::fs::read(format!("/proc/{server}/environ")).unwrap();
    w.install_tmux_wrapper();

    let dry = w.the_loop(&["apply", "--dry-run", "--scrub-tmux-env"]);
    assert_eq!(dry.status.code(), Some(0), "{}", stderr(&dry));
    assert!(
        stdout(&dry).contains("would unset SESSION_TOKEN")
            || stdout(&dry).contains("would unset SLACK_BOT_TOKEN"),
        "{}",
        stdout(&dry)
    );
    assert!(
        !w.tmux_invocations()
            .iter()
            .any(|argv| argv.contains(&"set-environment".to_owned())),
        "a dry run unsets nothing"
    );

    let out = w.the_loop(&["apply", "--auto-approve", "--scrub-tmux-env", "--json"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let report = json(&out);
    let scrub = &report["tmux_env_scrub"];
    let unset = unset_by_scrub(&report);
    assert_eq!(
        unset,
        vec![
            (None, "SLACK_BOT_TOKEN"),
            (Some(managed.name.as_str()), "SESSION_TOKEN")
        ],
        "{scrub:#}"
    );
    assert_eq!(scrub["remaining"], serde_json::json!([]));
    let server_left: Vec<&str> = scrub["server_residue"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["layer"].as_str().unwrap())
        .collect();
    assert_eq!(server_left, ["server_environ", "server_argv"]);

    // What tmux holds now, asked directly.
    let global = w.tmux_ok(&["show-environment", "-g"]);
    assert!(!global.contains("SLACK_BOT_TOKEN="), "global scrubbed");
    assert!(global.contains("KEEP_ME=not-a-secret"), "other names kept");
    assert!(
        global.contains("DELIVERED_TOKEN="),
        "a delivered name is not withheld, so not scrubbed"
    );
    let session = w.tmux_ok(&["show-environment", "-t", &format!("={}", managed.name)]);
    assert!(!session.contains("SESSION_TOKEN="), "{session}");
    let stray = w.tmux_ok(&["show-environment", "-t", &format!("={unmanaged}")]);
    assert!(
        stray.contains("SESSION_TOKEN="),
        "an unmanaged session is left alone"
    );
    assert_eq!(
        std::fs::read(format!("/proc/{server}/environ")).unwrap(),
        server_environ_before,
        "the server's own environment cannot change in place"
    );

    // Names only in every argv: the scrub itself included.
    let calls = w.tmux_invocations();
    let scrub_call = calls
        .iter()
        .find(|argv| argv.contains(&"set-environment".to_owned()))
        .expect("one scrub invocation");
    assert!(scrub_call.contains(&"-u".to_owned()));
    assert_eq!(
        calls
            .iter()
            .filter(|argv| argv.contains(&"set-environment".to_owned()))
            .count(),
        1,
        "one invocation"
    );
    for argv in &calls {
        assert_no_canary(argv.join("\u{1f}").as_bytes(), CANARIES, "a tmux argv");
    }
    let events = std::fs::read(w.state.join("events.jsonl")).unwrap();
    assert!(String::from_utf8_lossy(&events).contains("tmux_env.scrubbed"));
    for (path, bytes) in w.state_files() {
        assert_no_canary(&bytes, CANARIES, &path.display().to_string());
    }
    assert_no_canary(&out.stdout, CANARIES, "stdout");
    assert_no_canary(&out.stderr, CANARIES, "stderr");

    // The plan now shows only what a server restart clears.
    let plan = json(&w.the_loop(&["plan", "--json"]));
    let layers: Vec<String> = entries(&plan).into_iter().map(|e| e.0).collect();
    assert_eq!(layers, ["server_environ", "server_argv"]);
}

#[test]
fn no_server_means_no_residue_and_no_server_is_started() {
    let w = World::new();
    w.write_env(&format!("SLACK_BOT_TOKEN={ROTATED}\n"));
    let out = w.the_loop(&["plan", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(json(&out)["residue"]["state"], "no_server");
    assert_eq!(w.server_pid(), None, "plan started no tmux server");
}

/// Issue 11, class 10: a delivered name is the harness's by design, so its
/// current value in tmux's layers is not residue; a value the env file has
/// since retired is, and `--scrub-tmux-env` clears it like a withheld one.
#[test]
fn a_retired_value_of_a_delivered_name_in_tmux_environments_is_residue_and_scrubbed() {
    const CURRENT: &str = "deliv-current-r3s1due-5e5e";
    const RETIRED_DELIVERED: &str = "deliv-retired-r3s1due-6f6f";
    let canaries = [CURRENT, RETIRED_DELIVERED];
    let w = World::new();
    w.write_config("  deliver: [DELIVERED_TOKEN]\n");
    w.write_env(&format!("DELIVERED_TOKEN={CURRENT}\n"));
    w.tmux_ok(&["new-session", "-d", "-s", "keepalive", "sleep", "100000"]);
    let managed = w.legacy_session("github:octo/repo#1", "github-octo-repo-1");
    let other = w.legacy_session("github:octo/repo#2", "github-octo-repo-2");
    w.source_tmux(&format!(
        "set-environment -g DELIVERED_TOKEN {}\n\
         set-environment -t ={} DELIVERED_TOKEN {}\n\
         set-environment -t ={} DELIVERED_TOKEN {}\n",
        tmux_quote(RETIRED_DELIVERED),
        managed.name,
        tmux_quote(RETIRED_DELIVERED),
        other.name,
        tmux_quote(CURRENT),
    ));

    let out = w.the_loop(&["plan", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let plan = json(&out);
    let delivered: Vec<_> = entries(&plan)
        .into_iter()
        .filter(|e| e.2 == "DELIVERED_TOKEN")
        .collect();
    assert_eq!(
        delivered,
        vec![
            (
                "tmux_global".to_owned(),
                None,
                "DELIVERED_TOKEN".to_owned(),
                fp(RETIRED_DELIVERED),
                "stale".to_owned()
            ),
            (
                "tmux_session".to_owned(),
                Some(managed.name.clone()),
                "DELIVERED_TOKEN".to_owned(),
                fp(RETIRED_DELIVERED),
                "stale".to_owned()
            ),
        ],
        "the retired value is residue, the current one is not: {plan:#}"
    );
    let text = w.the_loop(&["plan"]);
    assert!(
        stdout(&text).contains("the-loop apply --scrub-tmux-env"),
        "{}",
        stdout(&text)
    );

    let applied = w.the_loop(&["apply", "--auto-approve", "--scrub-tmux-env", "--json"]);
    let report = json(&applied);
    let unset = unset_by_scrub(&report);
    assert_eq!(
        unset,
        vec![
            (None, "DELIVERED_TOKEN"),
            (Some(managed.name.as_str()), "DELIVERED_TOKEN")
        ],
        "{report:#}"
    );
    // What tmux holds now, asked directly.
    let global = w.tmux_ok(&["show-environment", "-g"]);
    assert!(!global.contains("DELIVERED_TOKEN="), "global scrubbed");
    let session = w.tmux_ok(&["show-environment", "-t", &format!("={}", managed.name)]);
    assert!(!session.contains("DELIVERED_TOKEN="), "session scrubbed");
    let kept = w.tmux_ok(&["show-environment", "-t", &format!("={}", other.name)]);
    assert!(
        kept.contains("DELIVERED_TOKEN="),
        "the current delivered value is left where it is"
    );
    for out in [&out, &text, &applied] {
        assert_no_canary(&out.stdout, &canaries, "stdout");
        assert_no_canary(&out.stderr, &canaries, "stderr");
    }
    for (path, bytes) in w.state_files() {
        assert_no_canary(&bytes, &canaries, &path.display().to_string());
    }
}

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

/// Past the 16 KiB command line, the observation asks tmux with a script
/// (`source-file -`). Each line is its own group there: a session that
/// vanished fails its own line only, its block has no marker and so is
/// "unobserved", never an empty (clean) environment, and the sessions after
/// it are still read. Names tmux's parser would otherwise split or expand
/// (`'`, `#`, `;`, `~`, spaces) arrive intact.
#[test]
fn a_script_reads_every_session_past_one_that_vanished_and_never_reads_it_as_empty() {
    use the_loop::observed::residue::{layers_from, ResidueView};
    let w = World::new();
    let odd = "loop-it's; ~x #";
    for name in ["loop-first", odd] {
        w.tmux_ok(&["new-session", "-d", "-s", name, "sleep", "100000"]);
        w.tmux_ok(&[
            "setenv",
            "-t",
            &format!("={name}"),
            "SLACK_BOT_TOKEN",
            RETIRED,
        ]);
    }
    let asked: Vec<String> = ["loop-first", "loop-vanished", odd]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let script = the_loop::observed::script::sessions_script(&asked)
        .expect("every name can be written in a script");
    let out = w.tmux_script(&script);
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(!out.status.success(), "the vanished session's line failed");
    let ResidueView::Observed(layers) = layers_from(&stdout, &stderr, false, &asked) else {
        panic!("the layers were read")
    };
    assert_eq!(layers.unobserved_sessions, vec!["loop-vanished".to_owned()]);
    for name in ["loop-first", odd] {
        let env = &layers.sessions[name];
        assert_eq!(
            env.get("SLACK_BOT_TOKEN")
                .map(|v| v.expose_bytes().to_vec()),
            Some(RETIRED.as_bytes().to_vec()),
            "{name}"
        );
    }
    assert!(layers.global.is_some() && layers.server_pid.is_some());
}
