//! Issue 35 on the real Claude Code CLI (the pinned build, `.ci/run`), on a
//! private tmux, offline: a person starts `claude --session-id ID` by hand
//! in a tmux session of their own, on a token that is then rotated. `plan`
//! lists it as a harness the-loop does not manage, `import` takes it over,
//! and `apply` rolls it in place: the same pane runs a new harness holding
//! the new value, which itself reports resuming that conversation.
//! Skipped (loudly) as the other real-CLI tests are when the CLI is absent.

use crate::real_claude::{real_claude, screen, wait_long};
use crate::support::*;
use std::time::Duration;
use the_loop::activity::store;

const OLD: &str = "tok-OLD-canary-imp0rt";
const NEW: &str = "tok-NEW-canary-imp0rt";
const REF: &str = "github:octo/repo#3";
const ID: &str = "3f2a6c1e-8f7b-4e0a-9d3c-1b2a3c4d5e6f";

/// A Claude Code config directory `name` as a person who has used Claude
/// Code in `cwd` before has one: onboarded, and the directory trusted
/// (offline, a fresh config dir exits at once).
fn person_config(w: &World, name: &str, cwd: &std::path::Path) -> std::path::PathBuf {
    let config_dir = w.root().join(name);
    std::fs::create_dir_all(&config_dir).unwrap();
    std::fs::write(
        config_dir.join(".claude.json"),
        serde_json::json!({
            "hasCompletedOnboarding": true,
            "projects": {cwd.to_str().unwrap(): {
                "hasTrustDialogAccepted": true,
                "hasCompletedProjectOnboarding": true,
            }},
        })
        .to_string(),
    )
    .unwrap();
    config_dir
}

/// A world whose tmux server gives a person's shells `config_dir` (their
/// Claude Code settings, onboarding done) and `EXTRA_TOKEN` = `OLD`, with
/// the-loop configured for the real `claude`. Returns it, the person's
/// working directory and that config directory.
fn person_world(claude: &std::path::Path) -> (World, std::path::PathBuf, std::path::PathBuf) {
    let w = World::new();
    let cwd = w.work.join("repo");
    std::fs::create_dir_all(&cwd).unwrap();
    let cwd = cwd.canonicalize().unwrap();
    let config_dir = person_config(&w, "claude-config", &cwd);
    w.start_server_holding(&[
        ("CLAUDE_CONFIG_DIR", config_dir.to_str().unwrap()),
        ("DISABLE_AUTOUPDATER", "1"),
        ("EXTRA_TOKEN", OLD),
    ]);
    w.configure_harness(claude, OLD);
    (w, cwd, config_dir)
}

#[test]
fn a_real_claude_started_by_hand_is_imported_and_rolled_onto_the_new_token() {
    let _alone = alone();
    let Some(claude) = real_claude() else {
        return;
    };
    let (w, cwd, config_dir) = person_world(&claude);

    // The person's own session and their `claude`, typed at their shell.
    let (pane, harness) = typed_claude(
        &w,
        &claude,
        "mywork",
        &cwd,
        &config_dir,
        &format!("--session-id {ID}"),
    );
    // A prompt, so the conversation has a transcript to resume.
    remember(&w, "mywork", "zebra", &config_dir, &cwd, ID);
    w.write_env(&format!("EXTRA_TOKEN={NEW}\n"));

    // Listed apart, with the retired value by fingerprint.
    let out = w.the_loop(&["plan", "--json"]);
    assert_no_canary(&out.stdout, &[OLD, NEW], "plan stdout");
    let plan = json(&out);
    let entry = &plan["unmanaged_harnesses"][0];
    assert_eq!(entry["tmux_session"], "mywork", "{plan:#}");
    assert_eq!(entry["pid"], harness);
    assert_eq!(entry["conversation"], ID);
    assert_eq!(entry["names"][0]["name"], "EXTRA_TOKEN");
    assert_eq!(entry["names"][0]["fingerprint"], fp(OLD));
    let gate = w.the_loop(&["plan", "--detailed-exitcode", "--include-unmanaged"]);
    assert_eq!(code(&gate), Some(2), "{}", explain(&gate));

    // Imported, then rolled.
    let out = ok(w.the_loop(&["import", &pane.id, REF, "--json"]));
    assert_eq!(json(&out)["harness_session_id"], ID);
    let name = json(&out)["tmux_target"].as_str().unwrap().to_owned();
    let out = w.the_loop(&["apply", "--auto-approve", "--json"]);
    assert_no_canary(&out.stdout, &[OLD, NEW], "apply stdout");
    assert_no_canary(&out.stderr, &[OLD, NEW], "apply stderr");
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let report = json(&out);
    let row = session_in(&report, REF);
    assert_eq!(row["outcome"], "restarted", "{report:#}");
    assert_eq!(row["conversation"], "confirmed", "{report:#}");
    let now = w.pane(&name).expect("the pane");
    assert_eq!(now.id, pane.id, "the same pane");
    assert!(!now.dead);
    assert!(!alive(harness) && !alive(pane.pid));
    assert_eq!(
        environ(now.pid).get("EXTRA_TOKEN").map(String::as_str),
        Some(NEW)
    );
    let argv = cmdline(now.pid);
    let at = argv.iter().position(|a| a == "--resume").expect("a resume");
    assert_eq!(argv[at + 1], ID, "{argv:?}");
    wait_long(
        || store::read_one(&w.state, now.pid).confirmed_resume(ID),
        "SessionStart(resume) of that conversation from the new process",
    );
    wait_long(
        || screen(&w, &name).contains("remember the word zebra"),
        "the earlier prompt on screen after the resume",
    );
    for (path, bytes) in w.state_files() {
        assert_no_canary(&bytes, &[OLD, NEW], &path.display().to_string());
    }
}

/// Starts the real CLI by hand in a new tmux session `name` (in `cwd`,
/// with `CLAUDE_CONFIG_DIR` set to `config_dir` as the person's profile
/// would), typed at their shell; returns the pane and the harness's pid
/// once its prompt shows.
fn typed_claude(
    w: &World,
    claude: &std::path::Path,
    name: &str,
    cwd: &std::path::Path,
    config_dir: &std::path::Path,
    args: &str,
) -> (Pane, i32) {
    let config = format!("CLAUDE_CONFIG_DIR={}", config_dir.display());
    let typed = format!("{} {args}", claude.display());
    let pane = w.typed_in_own_session(name, cwd, &config, typed.trim_end());
    wait_long(|| screen(w, name).contains('❯'), "the prompt");
    let harness = descendants(pane.pid)
        .into_iter()
        .find(|pid| {
            cmdline(*pid)
                .first()
                .is_some_and(|a| a.ends_with("/claude"))
        })
        .expect("claude runs beneath the person's shell");
    (pane, harness)
}

/// What Claude Code itself says a process is in, in its
/// `sessions/<pid>.json`.
fn said_by_claude(config_dir: &std::path::Path, pid: i32) -> Option<String> {
    let text = std::fs::read_to_string(config_dir.join("sessions").join(format!("{pid}.json")));
    let said: serde_json::Value = serde_json::from_str(&text.ok()?).ok()?;
    said["sessionId"].as_str().map(str::to_owned)
}

/// The person moved their harness off the conversation its argv names
/// (`/clear` in a `claude --session-id ID`): import takes the conversation
/// the process says it is in now, never the argv's, and the roll resumes
/// that one. A harness that says nothing (its own session file cannot be
/// written) and whose argv names nothing is refused, and left as it is.
#[test]
fn a_real_claude_is_imported_on_the_conversation_it_is_in_and_refused_when_it_cannot_tell() {
    let _alone = alone();
    let Some(claude) = real_claude() else {
        return;
    };
    let (w, cwd, config_dir) = person_world(&claude);
    let mute_dir = person_config(&w, "claude-mute", &cwd);
    // Claude Code keeps a file per process under `sessions/`: here it
    // cannot, so the process says nothing of its conversation.
    std::fs::write(mute_dir.join("sessions"), "").unwrap();

    let (moved, harness) = typed_claude(
        &w,
        &claude,
        "moved",
        &cwd,
        &config_dir,
        &format!("--session-id {ID}"),
    );
    w.tmux_ok(&["send-keys", "-t", "=moved:", "-l", "/clear"]);
    std::thread::sleep(Duration::from_millis(500));
    w.tmux_ok(&["send-keys", "-t", "=moved:", "Enter"]);
    let mut now_in = String::new();
    wait_long(
        || {
            now_in = said_by_claude(&config_dir, harness).unwrap_or_default();
            !now_in.is_empty() && now_in != ID
        },
        "Claude Code says the process moved to a new conversation",
    );
    std::thread::sleep(Duration::from_millis(500));
    remember(&w, "moved", "giraffe", &config_dir, &cwd, &now_in);
    let (mute, mute_harness) = typed_claude(&w, &claude, "mute", &cwd, &mute_dir, "");
    w.write_env(&format!("EXTRA_TOKEN={NEW}\n"));

    let out = w.the_loop(&["plan", "--json"]);
    assert_no_canary(&out.stdout, &[OLD, NEW], "plan stdout");
    let plan = json(&out);
    let listed = |session: &str| {
        plan["unmanaged_harnesses"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["tmux_session"] == session)
            .cloned()
            .unwrap_or_else(|| panic!("{session} listed: {plan:#}"))
    };
    let entry = listed("moved");
    assert_eq!(entry["conversation"], now_in.as_str(), "{entry:#}");
    assert_eq!(entry["conversation_from"], "harness", "{entry:#}");
    let entry = listed("mute");
    assert_eq!(entry["pid"], mute_harness, "{entry:#}");
    assert_eq!(entry["conversation"], serde_json::Value::Null, "{entry:#}");

    // Refused, and nothing changed.
    let out = w.the_loop(&["import", &mute.id, REF]);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    assert!(
        flat(&stderr(&out)).contains(&flat("cannot tell which conversation")),
        "{}",
        explain(&out)
    );
    assert!(w.record("github-octo-repo-3").is_none());
    assert!(w.tmux_sessions().contains(&"mute".to_owned()));
    assert!(alive(mute_harness));

    // Imported on the conversation it is in, and rolled onto it.
    let out = ok(w.the_loop(&["import", &moved.id, REF, "--json"]));
    let imported = json(&out);
    assert_eq!(imported["harness_session_id"], now_in.as_str());
    assert_eq!(imported["conversation_from"], "harness");
    let name = imported["tmux_target"].as_str().unwrap().to_owned();
    let out = w.the_loop(&["apply", "--auto-approve", "--json"]);
    assert_no_canary(&out.stdout, &[OLD, NEW], "apply stdout");
    assert_no_canary(&out.stderr, &[OLD, NEW], "apply stderr");
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let report = json(&out);
    assert_eq!(
        session_in(&report, REF)["outcome"],
        "restarted",
        "{report:#}"
    );
    let now = w.pane(&name).expect("the pane");
    assert_eq!(now.id, moved.id, "the same pane");
    assert!(!alive(harness));
    let argv = cmdline(now.pid);
    let at = argv.iter().position(|a| a == "--resume").expect("a resume");
    assert_eq!(argv[at + 1], now_in, "{argv:?}");
    wait_long(
        || store::read_one(&w.state, now.pid).confirmed_resume(&now_in),
        "SessionStart(resume) of the conversation it was in",
    );
    wait_long(
        || screen(&w, &name).contains("remember the word giraffe"),
        "the prompt after the /clear on screen after the resume",
    );
    assert!(alive(mute_harness), "the refused one is left alone");
    for (path, bytes) in w.state_files() {
        assert_no_canary(&bytes, &[OLD, NEW], &path.display().to_string());
    }
}

/// Types "remember the word WORD" into tmux session `session`'s claude
/// and waits until conversation `id`'s transcript (under `config_dir`, for
/// `cwd`) holds it: the conversation then has something to resume.
fn remember(
    w: &World,
    session: &str,
    word: &str,
    config_dir: &std::path::Path,
    cwd: &std::path::Path,
    id: &str,
) {
    let target = format!("={session}:");
    let text = format!("remember the word {word}");
    w.tmux_ok(&["send-keys", "-t", &target, "-l", &text]);
    std::thread::sleep(Duration::from_millis(500));
    w.tmux_ok(&["send-keys", "-t", &target, "Enter"]);
    let transcript = config_dir
        .join("projects")
        .join(the_loop::harness::project_dir_name(cwd))
        .join(format!("{id}.jsonl"));
    wait_long(
        || std::fs::read_to_string(&transcript).is_ok_and(|t| t.contains(word)),
        &format!("conversation {id}'s transcript holds the prompt"),
    );
}
