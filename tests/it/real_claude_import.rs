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

#[test]
fn a_real_claude_started_by_hand_is_imported_and_rolled_onto_the_new_token() {
    let _alone = alone();
    let Some(claude) = real_claude() else {
        return;
    };
    let w = World::new();
    let cwd = w.work.join("repo");
    std::fs::create_dir_all(&cwd).unwrap();
    let cwd = cwd.canonicalize().unwrap();
    let config_dir = w.root().join("claude-config");
    std::fs::create_dir_all(&config_dir).unwrap();
    // As a person who has used Claude Code here before: onboarded, and the
    // directory trusted (offline, a fresh config dir exits at once).
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
    w.start_server_holding(&[
        ("CLAUDE_CONFIG_DIR", config_dir.to_str().unwrap()),
        ("DISABLE_AUTOUPDATER", "1"),
        ("EXTRA_TOKEN", OLD),
    ]);
    w.configure_harness(&claude, OLD);

    // The person's own session and their `claude`, typed at their shell.
    w.tmux_ok(&[
        "new-session",
        "-d",
        "-s",
        "mywork",
        "-c",
        cwd.to_str().unwrap(),
    ]);
    let pane = w.pane("mywork").unwrap();
    let typed = format!("{} --session-id {ID}", claude.display());
    w.tmux_ok(&["send-keys", "-t", "=mywork:", "-l", &typed]);
    w.tmux_ok(&["send-keys", "-t", "=mywork:", "Enter"]);
    wait_long(|| screen(&w, "mywork").contains('❯'), "the prompt");
    let harness = descendants(pane.pid)
        .into_iter()
        .find(|pid| cmdline(*pid).iter().any(|a| a.contains(ID)))
        .expect("claude runs beneath the person's shell");
    // A prompt, so the conversation has a transcript to resume.
    w.tmux_ok(&[
        "send-keys",
        "-t",
        "=mywork:",
        "-l",
        "remember the word zebra",
    ]);
    std::thread::sleep(Duration::from_millis(500));
    w.tmux_ok(&["send-keys", "-t", "=mywork:", "Enter"]);
    let transcript = config_dir
        .join("projects")
        .join(the_loop::harness::project_dir_name(&cwd))
        .join(format!("{ID}.jsonl"));
    wait_long(
        || std::fs::read_to_string(&transcript).is_ok_and(|t| t.contains("zebra")),
        "the transcript holds the prompt",
    );
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
