//! Residue in the layers tmux keeps (issue 6, point 3), on a real tmux:
//! the global environment, a session's own environment, and the server
//! process's environment and argv. `plan` names each by fingerprint;
//! `apply --scrub-tmux-env` clears the two that can be cleared in place.

mod detached_children;
mod scrub;

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
fn no_server_means_no_residue_and_no_server_is_started() {
    let w = World::new();
    w.write_env(&format!("SLACK_BOT_TOKEN={ROTATED}\n"));
    let out = w.the_loop(&["plan", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(json(&out)["residue"]["state"], "no_server");
    assert_eq!(w.server_pid(), None, "plan started no tmux server");
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
