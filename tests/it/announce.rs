//! Announcing a first spawn through a `gh` stand-in that records its argv:
//! one comment on a first start, built from registry fields only, nothing
//! on a respawn, and never a failed spawn because of gh.

use crate::support::*;

const REF: &str = "github:octo/repo#15";
const NAME: &str = "loop-github-octo-repo-15";

/// Records each call's argv, NUL-separated, in its own file beside itself.
const GH_STAND_IN: &str = r#"#!/usr/bin/env bash
printf '%s\0' "$@" >"$(dirname "$0")/gh-call-$$"
exit "${GH_STAND_IN_EXIT:-0}"
"#;

fn gh_calls(w: &World) -> Vec<Vec<String>> {
    let mut calls: Vec<Vec<String>> = std::fs::read_dir(&w.bin_dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("gh-call-"))
        .map(|e| {
            std::fs::read(e.path())
                .unwrap()
                .split(|b| *b == 0)
                .filter(|a| !a.is_empty())
                .map(|a| String::from_utf8_lossy(a).into_owned())
                .collect()
        })
        .collect();
    calls.sort();
    calls
}

fn start(w: &World, env: &[(&str, &str)]) -> (serde_json::Value, std::process::Output) {
    let cwd = w.work.join("repo15");
    std::fs::create_dir_all(&cwd).unwrap();
    let out = w.the_loop_with(
        &[
            "sessions",
            "start",
            REF,
            "--cwd",
            cwd.to_str().unwrap(),
            "--json",
        ],
        env,
    );
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let started: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    wait_for(
        || {
            w.pane(NAME).is_some_and(|p| {
                // A start on an existing record resumes its conversation.
                cmdline(p.pid)
                    .iter()
                    .any(|a| a == "--session-id" || a == "--resume")
            })
        },
        "the harness started",
    );
    (started, out)
}

fn world() -> World {
    let w = World::new();
    w.write_env("UNRELATED=1\n");
    w.write_config("");
    w
}

#[test]
fn a_first_spawn_is_announced_once_and_a_respawn_posts_nothing() {
    let w = world();
    w.install_bin("gh", GH_STAND_IN);
    let (started, _) = start(&w, &[]);

    let calls = gh_calls(&w);
    assert_eq!(calls.len(), 1, "{calls:?}");
    let argv = &calls[0];
    assert_eq!(
        argv[..4],
        [
            "api",
            "--method",
            "POST",
            "repos/octo/repo/issues/15/comments"
        ]
    );
    assert_eq!(argv[4], "-f");
    let body = argv[5].strip_prefix("body=").expect("a body field");
    assert!(body.contains(&format!("tmux attach -t {NAME}")), "{body}");
    assert!(body.contains(&format!("`{NAME}`")), "{body}");
    assert!(
        body.contains("<!-- the-loop:agent-comment -->"),
        "self-authored marker: {body}"
    );
    assert!(
        body.contains("the-loop, autonomous comment"),
        "visible attribution: {body}"
    );
    // Registry fields only: no paths, no conversation id, no host name.
    let hostname = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
    for secretish in [
        started["harness_session_id"].as_str().unwrap(),
        started["cwd"].as_str().unwrap(),
        w.home.to_str().unwrap(),
        hostname.trim(),
    ] {
        assert!(!body.contains(secretish), "{secretish:?} in {body}");
    }
    assert!(!body.contains('/'), "no path of any kind: {body}");
    assert!(w.events().iter().any(|e| e["event"] == "session.announced"));

    // A respawn reuses the name: the comment already posted stays correct.
    let out = w.the_loop(&["sessions", "restart", REF]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    // So does a new start under the same name, once the old pane is gone.
    w.tmux_ok(&["kill-session", "-t", &format!("={NAME}")]);
    start(&w, &[]);
    assert_eq!(gh_calls(&w).len(), 1, "no second comment");
}

/// What the stand-in harness and tmux need, and no gh.
const TOOLS: &[&str] = &[
    "tmux", "bash", "env", "sed", "mkdir", "grep", "head", "cut", "sleep", "printf", "cat",
];

#[test]
fn a_missing_or_failing_gh_never_stops_the_spawn() {
    let w = world();
    let no_gh = w.restricted_path(TOOLS);
    let failing = World::new();
    failing.write_env("UNRELATED=1\n");
    failing.write_config("");
    failing.install_bin("gh", GH_STAND_IN);
    for (world, env, event, why) in [
        (
            &w,
            vec![("PATH", no_gh.as_str())],
            "session.announce_skipped",
            "gh is not installed",
        ),
        (
            &failing,
            vec![("GH_STAND_IN_EXIT", "1")],
            "session.announce_failed",
            "gh failed",
        ),
    ] {
        let said = stderr(&start(world, &env).1);
        // A deployment without gh simply has no announcements; a failing gh is worth a warning.
        assert_eq!(
            said.contains("could not announce"),
            event.ends_with("failed"),
            "{said}"
        );
        let failed: Vec<serde_json::Value> = world
            .events()
            .into_iter()
            .filter(|e| e["event"] == event)
            .collect();
        assert_eq!(failed.len(), 1, "{failed:?}");
        assert!(
            failed[0]["reason"].as_str().unwrap().starts_with(why),
            "{failed:?}"
        );
        assert!(
            world.pane(NAME).is_some_and(|p| !p.dead),
            "the session runs"
        );
    }
    assert_eq!(gh_calls(&failing).len(), 1, "it was tried");
}

#[test]
fn announce_off_posts_nothing() {
    let w = World::new();
    w.write_env("UNRELATED=1\n");
    w.write_config_with_routing("  announce: false\n");
    w.install_bin("gh", GH_STAND_IN);
    start(&w, &[]);
    assert!(gh_calls(&w).is_empty());
}
