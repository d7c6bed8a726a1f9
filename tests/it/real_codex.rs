//! The restart story on the real Codex CLI (the pinned 0.171.0), on a
//! private tmux, offline, in one fleet with a Claude Code stand-in: start a
//! Codex session through the-loop with a first prompt, rotate the env file,
//! `plan` both in one observation, `apply` both in one roll, and check that
//! the same pane runs a new Codex holding the new key, that this process
//! itself holds the recorded conversation open, that the earlier prompt is
//! on screen, and that a command Codex runs (`!printenv`) sees the new
//! value. Then a conversation whose rollout file is gone is left alone.
//!
//! Offline, a prompt's turn never ends (Codex retries its API), so the test
//! interrupts it (Escape) as a person would before the roll; a turn that
//! ends with the model's answer needs the network (`docs/harness.md`).
//!
//! The CLI is found at `$THE_LOOP_REAL_CODEX`, else where `.ci/run`
//! installs it. Without it the test says SKIP loudly and passes, unless
//! THE_LOOP_REQUIRE_TOOLS is set (CI sets it), when it fails.

use crate::real_claude::{screen, wait_long};
use crate::support::*;
use std::path::{Path, PathBuf};

const OLD: &str = "sk-OLD-canary-c0dex";
const NEW: &str = "sk-NEW-canary-c0dex";

pub(crate) fn real_codex() -> Option<PathBuf> {
    real_cli(
        "Codex",
        "THE_LOOP_REAL_CODEX",
        ".ci/codex/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex",
    )
}

/// A world whose sessions see `CODEX_HOME` with a provider that reads its
/// key from `OPENAI_API_KEY` at each launch (no login), the env file
/// delivering that key, and the binary configured.
fn codex_world(codex: &Path) -> (World, PathBuf) {
    let w = World::new();
    let codex_home = w.root().join("codex-home");
    std::fs::create_dir_all(&codex_home).unwrap();
    std::fs::write(
        codex_home.join("config.toml"),
        "model = \"gpt-5\"\nmodel_provider = \"loop\"\n\n[model_providers.loop]\nname = \"loop\"\nbase_url = \"http://127.0.0.1:9/v1\"\nenv_key = \"OPENAI_API_KEY\"\nwire_api = \"responses\"\n",
    )
    .unwrap();
    w.start_server_holding(&[("CODEX_HOME", codex_home.to_str().unwrap())]);
    w.write_config("  deliver: [OPENAI_API_KEY]\n");
    w.write_raw_config(&format!(
        "{}  harnessBinary:\n    codex: {}\n",
        std::fs::read_to_string(w.root().join("cli-config.yaml")).unwrap(),
        codex.display()
    ));
    w.write_env(&format!("OPENAI_API_KEY={OLD}\n"));
    (w, codex_home)
}

pub(crate) fn type_line(w: &World, name: &str, text: &str) {
    let target = format!("={name}:");
    w.tmux_ok(&["send-keys", "-t", &target, "-l", text]);
    std::thread::sleep(std::time::Duration::from_millis(400));
    w.tmux_ok(&["send-keys", "-t", &target, "Enter"]);
}

pub(crate) fn rollouts(codex_home: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut dirs = vec![codex_home.join("sessions")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                found.push(path);
            }
        }
    }
    found
}

#[test]
fn a_rotation_resumes_the_real_codex_conversation_beside_claude_in_one_roll() {
    let _alone = alone();
    let Some(codex) = real_codex() else {
        return;
    };
    let (w, codex_home) = codex_world(&codex);
    let repo = w.work.join("repo");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::create_dir_all(repo.join("sub")).unwrap();
    let cwd = repo.join("sub");
    let out = w.the_loop(&[
        "sessions",
        "start",
        "github:octo/repo#1",
        "--harness",
        "codex",
        "--cwd",
        cwd.to_str().unwrap(),
        "--prompt",
        "remember the word zebra",
        "--json",
    ]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let started = json(&out);
    let name = started["tmux_target"].as_str().unwrap().to_owned();
    // The id Codex made when the prompt began the conversation, learned
    // from the rollout file the process opened, and recorded.
    let id = started["harness_session_id"]
        .as_str()
        .unwrap_or_else(|| {
            panic!(
                "the conversation was learned: {started}\n{}",
                screen(&w, &name)
            )
        })
        .to_owned();
    let rollout = rollouts(&codex_home)
        .into_iter()
        .find(|p| p.to_string_lossy().ends_with(&format!("-{id}.jsonl")))
        .expect("Codex's rollout file of the recorded id");
    wait_long(
        || std::fs::read_to_string(&rollout).is_ok_and(|t| t.contains("zebra")),
        "the rollout holds the prompt",
    );
    let record = std::fs::read_to_string(w.state.join("local/github-octo-repo-1.json")).unwrap();
    assert!(
        record.contains(&id) && record.contains("\"codex\""),
        "{record}"
    );
    // Trust was pre-seeded: the git root, and the-loop's hooks (no review).
    let config = std::fs::read_to_string(codex_home.join("config.toml")).unwrap();
    assert!(
        config.contains(&format!("[projects.\"{}\"]", repo.display())),
        "{config}"
    );
    assert!(
        config.contains("/<session-flags>/config.toml:session_start:0:0"),
        "{config}"
    );
    let first = w.pane(&name).expect("a pane");
    // Offline the turn retries for good: interrupt it, as a person would.
    wait_long(
        || screen(&w, &name).contains("esc to interrupt"),
        "the turn runs",
    );
    w.tmux_ok(&["send-keys", "-t", &format!("={name}:"), "Escape"]);
    wait_long(
        || !screen(&w, &name).contains("esc to interrupt"),
        "the turn is interrupted",
    );

    // A Claude Code session (the stand-in) beside it, on the same key.
    let claude = w.started_session("github:octo/repo#2", "github-octo-repo-2");

    // Rotate: one plan over both, in one observation.
    w.write_env(&format!("OPENAI_API_KEY={NEW}\n"));
    w.install_tmux_wrapper();
    let plan = w.the_loop(&["plan", "--json", "--detailed-exitcode"]);
    assert_eq!(code(&plan), Some(2), "{}", explain(&plan));
    assert_eq!(json(&plan)["summary"]["respawn"], 2, "{}", stdout(&plan));
    let calls = w.tmux_invocations();
    assert!(
        calls.len() <= 2
            && calls
                .iter()
                .filter(|c| c.contains(&"list-panes".to_owned()))
                .count()
                == 1,
        "a plan's tmux cost is one listing, whatever the harness: {calls:?}"
    );
    let out = w.the_loop(&["apply", "--auto-approve", "--json"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let report = json(&out);
    let row = session_in(&report, "github:octo/repo#1");
    assert_eq!(row["outcome"], "restarted", "{report}");
    assert_eq!(row["harness"], "codex", "{report}");
    assert_eq!(row["conversation"], "confirmed", "{report}");
    assert_eq!(
        session_in(&report, &claude.reference)["outcome"],
        "restarted"
    );

    let now = w.pane(&name).expect("the pane");
    assert_eq!(now.id, first.id, "the same pane");
    assert_ne!(now.pid, first.pid, "a new Codex");
    assert_eq!(
        environ(now.pid).get("OPENAI_API_KEY").map(String::as_str),
        Some(NEW)
    );
    let argv = cmdline(now.pid);
    assert!(
        argv.windows(2).any(|a| a[0] == "resume" && a[1] == id),
        "{argv:?}"
    );
    wait_long(
        || screen(&w, &name).contains("remember the word zebra"),
        "the earlier prompt on screen after the resume",
    );
    // A command Codex runs holds the pane's environment: the embedded
    // server (any `-c` makes one), not a daemon's from before the roll.
    let seen = w.root().join("seen-key");
    type_line(
        &w,
        &name,
        &format!("!printenv OPENAI_API_KEY > {}", seen.display()),
    );
    wait_long(
        || std::fs::read_to_string(&seen).is_ok_and(|t| t.trim() == NEW),
        "the command Codex ran saw the new key",
    );
    std::fs::remove_file(&seen).unwrap();

    // Secrets: no output, record, config, rollout, argv or tmux layer holds either key.
    for out in [&plan, &out] {
        assert_no_canary(&out.stdout, &[OLD, NEW], "stdout");
        assert_no_canary(&out.stderr, &[OLD, NEW], "stderr");
    }
    for (path, bytes) in w.state_files() {
        assert_no_canary(&bytes, &[OLD, NEW], &path.display().to_string());
    }
    for path in rollouts(&codex_home)
        .into_iter()
        .chain([codex_home.join("config.toml")])
    {
        let bytes = std::fs::read(&path).unwrap_or_default();
        assert_no_canary(&bytes, &[OLD, NEW], &path.display().to_string());
    }
    assert_no_canary(cmdline(now.pid).join(" ").as_bytes(), &[OLD, NEW], "argv");
    let layers = w.tmux(&["show-environment", "-g"]).stdout;
    assert_no_canary(&layers, &[OLD, NEW], "tmux global environment");

    // A conversation whose rollout file is gone is left alone: never a
    // fresh one in its place.
    let kept = w.root().join("kept.jsonl");
    std::fs::rename(&rollout, &kept).unwrap();
    w.write_env(&format!("OPENAI_API_KEY={OLD}\n"));
    let out = w.the_loop(&["apply", "--auto-approve", "--json"]);
    let report = json(&out);
    let row = session_in(&report, "github:octo/repo#1");
    assert_ne!(row["outcome"], "restarted", "{report}");
    assert!(
        row["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("unresumable"),
        "{report}"
    );
    assert_eq!(w.pane(&name).unwrap().pid, now.pid, "left alone");
    std::fs::rename(&kept, &rollout).unwrap();
}
