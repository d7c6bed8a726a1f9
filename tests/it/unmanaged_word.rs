//! Issue 35, after the import: `plan` and the roll read an adopted
//! harness's own word on its conversation (Claude Code's
//! `sessions/<pid>.json`, `src/harness/claude_sessions.rs`). When that
//! word cannot be trusted, the session is left alone, never rolled on what
//! its argv says: a `/clear` may have moved it off that conversation.

use crate::support::*;
use crate::unmanaged::{by_hand, harness_beneath, no_canary, world, REF, ROTATED};
use std::path::PathBuf;

/// Where the stand-in, as Claude Code, keeps its `sessions/` directory.
fn sessions_dir(harness: i32) -> PathBuf {
    let env = environ(harness);
    match env.get("CLAUDE_CONFIG_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(&env["HOME"]).join(".claude"),
    }
    .join("sessions")
}

#[test]
fn an_adopted_harness_whose_own_word_cannot_be_trusted_is_left_alone() {
    let w = world();
    let (mut s, pane) = by_hand(&w, "mywork", "mine", "--session-id 0000-mine");
    s.session_id = "0000-mine".into();
    let harness = harness_beneath(&w, pane.pid, &s);
    ok(w.the_loop(&["import", &pane.id, REF, "--json"]));
    w.write_env(&format!("SLACK_BOT_TOKEN={ROTATED}\n"));

    // A file in the harness's own place that names another process.
    let dir = sessions_dir(harness);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{harness}.json"));
    std::fs::write(
        &file,
        r#"{"pid":1,"sessionId":"0000-elsewhere","procStart":"1"}"#,
    )
    .unwrap();

    let out = w.the_loop(&["plan", "--json"]);
    no_canary(&out, "plan --json");
    let plan = json(&out);
    let row = session_in(&plan, REF);
    // Drifted, and the roll will leave it alone, saying why.
    let left_alone = row["left_alone"].to_string();
    assert!(
        left_alone.contains("cannot be told") && left_alone.contains("another pid"),
        "{row:#}"
    );
    let text = stdout(&w.the_loop(&["plan"]));
    assert!(text.contains("drifted, but will be left alone"), "{text}");

    let out = w.the_loop(&["apply", "--auto-approve", "--json"]);
    no_canary(&out, "apply");
    assert!(alive(harness), "the harness was not signalled");
    assert_eq!(w.pane("loop-github-octo-repo-7").unwrap().pid, pane.pid);
    assert!(!w.transcript_text(&s).contains("\"type\":\"signal\""));

    // The same session once its word is its own again: planned for a roll.
    std::fs::remove_file(&file).unwrap();
    let plan = json(&w.the_loop(&["plan", "--json"]));
    let row = session_in(&plan, REF);
    assert_eq!(row["action"], "respawn", "{row:#}");
    assert_eq!(row["left_alone"], serde_json::Value::Null, "{row:#}");
}
