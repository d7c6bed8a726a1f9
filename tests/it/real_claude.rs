//! The restart story on the real Claude Code CLI (the pinned 2.1.332;
//! 2.1.328 passes too), on a private tmux, offline: start a session
//! through the-loop, submit a
//! prompt, rotate the env file, `apply`, and check that the same pane runs
//! a new harness holding the new value, showing the earlier prompt, and
//! that this new process itself reported resuming the recorded conversation.
//!
//! The CLI is found at `$THE_LOOP_REAL_CLAUDE`, else where `.ci/run`
//! installs it. Without it the test says SKIP loudly and passes, unless
//! THE_LOOP_REQUIRE_TOOLS is set (CI sets it), when it fails.

use crate::support::real_setup::claude_transcript;
use crate::support::*;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use the_loop::activity::{store, Activity, HookEvent};

const OLD: &str = "tok-OLD-canary-r3al";
const NEW: &str = "tok-NEW-canary-r3al";

pub(crate) fn real_claude() -> Option<PathBuf> {
    real_cli(
        "Claude Code",
        "THE_LOOP_REAL_CLAUDE",
        ".ci/claude-code/node_modules/@anthropic-ai/claude-code-linux-x64/claude",
    )
}

/// Like `wait_for`, with the time a real CLI needs to start offline.
pub(crate) fn wait_long(mut check: impl FnMut() -> bool, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        if check() {
            return;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    panic!("timed out waiting: {what}");
}

pub(crate) fn screen(w: &World, name: &str) -> String {
    String::from_utf8_lossy(
        &w.tmux(&["capture-pane", "-p", "-t", &format!("={name}:")])
            .stdout,
    )
    .into_owned()
}

#[test]
fn a_rotation_resumes_the_real_conversation_and_the_new_process_confirms_it() {
    let _alone = alone();
    let Some(claude) = real_claude() else {
        return;
    };
    let w = World::new();
    let config_dir = w.onboarded_claude_config();
    // The user's own hook, which must keep working beside the-loop's layer.
    let user_mark = w.root().join("user-hook-ran");
    std::fs::write(
        config_dir.join("settings.json"),
        serde_json::json!({"hooks": {"SessionStart": [{"hooks": [{
            "type": "command",
            "command": format!("echo ran >> '{}'", user_mark.display()),
        }]}]}})
        .to_string(),
    )
    .unwrap();
    w.start_real_cli_server(&config_dir, None, &[]);
    w.configure_harness(&claude, OLD);
    let cwd = w.work.join("repo");
    std::fs::create_dir_all(&cwd).unwrap();
    let started = w.start_session("github:octo/repo#1", &cwd);
    let name = started["tmux_target"].as_str().unwrap().to_owned();
    let id = started["harness_session_id"].as_str().unwrap().to_owned();
    let first = w.pane(&name).expect("a pane");

    // Started: the harness itself reported it, and the user's hook ran too.
    wait_long(
        || store::read_one(&w.state, first.pid).activity == Activity::Idle,
        "SessionStart from the real CLI",
    );
    assert!(user_mark.is_file(), "the user's own SessionStart hook ran");
    wait_long(|| screen(&w, &name).contains('❯'), "the prompt");

    // A prompt: its transcript appears, and offline the turn ends in StopFailure.
    w.tmux_ok(&[
        "send-keys",
        "-t",
        &format!("={name}:"),
        "-l",
        "remember the word zebra",
    ]);
    std::thread::sleep(Duration::from_millis(500));
    w.tmux_ok(&["send-keys", "-t", &format!("={name}:"), "Enter"]);
    let transcript = claude_transcript(&config_dir, &cwd, &id);
    wait_long(
        || std::fs::read_to_string(&transcript).is_ok_and(|t| t.contains("zebra")),
        "the transcript holds the prompt",
    );
    let file = w.state.join(format!("activity/{}.jsonl", first.pid));
    wait_long(
        || {
            store::parse(&std::fs::read(&file).unwrap_or_default())
                .iter()
                .any(|r| r.event == HookEvent::StopFailure)
        },
        "the turn ends in StopFailure",
    );
    let events: Vec<HookEvent> = store::parse(&std::fs::read(&file).unwrap())
        .iter()
        .map(|r| r.event)
        .collect();
    assert!(events.contains(&HookEvent::UserPromptSubmit), "{events:?}");
    assert_eq!(
        store::read_one(&w.state, first.pid).activity,
        Activity::Idle
    );

    // Rotate, apply.
    w.write_env(&format!("EXTRA_TOKEN={NEW}\n"));
    let out = w.the_loop(&["apply", "--auto-approve", "--json"]);
    assert_no_canary(&out.stdout, &[OLD, NEW], "apply stdout");
    assert_no_canary(&out.stderr, &[OLD, NEW], "apply stderr");
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    // The apply report says what the new process reported itself.
    let report = json(&out);
    let row = session_in(&report, "github:octo/repo#1");
    assert_eq!(row["outcome"], "restarted", "{report}");
    assert_eq!(row["conversation"], "confirmed", "{report}");
    let now = w.pane(&name).expect("the pane");
    assert_eq!(now.id, first.id, "the same pane");
    assert_ne!(now.pid, first.pid, "a new harness");
    assert!(!now.dead);
    assert_eq!(
        environ(now.pid).get("EXTRA_TOKEN").map(String::as_str),
        Some(NEW)
    );
    wait_long(
        || store::read_one(&w.state, now.pid).confirmed_resume(&id),
        "SessionStart(resume) of the recorded id from the new process",
    );
    wait_long(
        || screen(&w, &name).contains("remember the word zebra"),
        "the earlier prompt on screen after the resume",
    );
    assert_eq!(
        the_loop::harness::screens::blocking_screen(&screen(&w, &name)),
        None
    );
    for (path, bytes) in w.state_files() {
        assert_no_canary(&bytes, &[OLD, NEW], &path.display().to_string());
    }
}
