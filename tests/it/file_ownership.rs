//! Issue 43, item 3: the files the-loop acts on are the caller's own. A
//! config, env file, state root or record owned by another user, or that
//! its group or others can write, is refused (as ssh's StrictModes refuses
//! them), naming the path, the owner, the mode and the fix: whoever can
//! write the config chooses the harness binary the-loop runs, and whoever
//! can plant a record chooses the conversation it resumes.
//!
//! CI runs the suite as root, so "another user" is `nobody` (65534): root
//! follows the rule too, and a file owned by someone else is refused even
//! for root.

use crate::support::*;
use std::path::Path;
use std::process::Output;

const NOBODY: u32 = 65534;

/// Hands `path` to `nobody`; false (with a note) when this process may not
/// (only root may give a file away; CI runs as root).
#[allow(
    clippy::print_stderr,
    reason = "a skipped check must be seen in the test log"
)]
fn give_away(path: &Path) -> bool {
    if !nix::unistd::geteuid().is_root() {
        eprintln!("SKIPPED: giving a file to another user needs root (CI runs as root)");
        return false;
    }
    std::os::unix::fs::chown(path, Some(NOBODY), Some(NOBODY)).unwrap();
    true
}

/// `nobody`'s name as this machine spells it, when it has one.
fn nobody_name() -> Option<String> {
    nix::unistd::User::from_uid(NOBODY.into())
        .ok()
        .flatten()
        .map(|u| u.name)
}

/// The command failed (exit 1) naming `path`, `mode` and `fix`, and, for a
/// file given away, its owner by uid and name. Compared without white space
/// (`flat`): a diagnostic wraps at spaces and hyphens.
fn assert_refused(out: &Output, path: &Path, mode: &str, fix: &str, given_away: bool) {
    let said = flat(&stderr(out));
    let has = |words: &str| said.contains(&flat(words));
    assert_eq!(out.status.code(), Some(1), "{}{said}", stdout(out));
    assert!(has(&path.display().to_string()), "path: {said}");
    assert!(has(mode), "mode {mode}: {said}");
    assert!(has(fix), "fix {fix}: {said}");
    if given_away {
        assert!(has(&format!("uid {NOBODY}")), "owner: {said}");
        if let Some(name) = nobody_name() {
            assert!(has(&name), "owner's name: {said}");
        }
    }
}

/// The reason `plan --json` gives for the record at `path`, which it must
/// report and not plan.
fn refused_in_plan(w: &World, path: &Path) -> String {
    let out = w.the_loop(&["plan", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let plan = json(&out);
    let notes = plan["corrupt_records"].as_array().unwrap();
    let note = notes
        .iter()
        .find(|n| n["path"] == path.to_str().unwrap())
        .unwrap_or_else(|| panic!("{} is not reported: {plan}", path.display()));
    note["reason"].as_str().unwrap().to_owned()
}

#[test]
fn a_config_another_user_owns_is_refused_and_the_harness_it_names_never_runs() {
    let w = World::new();
    // What the other user's config runs as the harness: a marker, then the
    // stand-in, so without the check the start succeeds.
    let marker = w.root().join("their-script-ran");
    let theirs = w.root().join("their-bin");
    std::fs::create_dir_all(&theirs).unwrap();
    let script = theirs.join("claude");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\ntouch '{}'\nexec '{}' \"$@\"\n",
            marker.display(),
            w.bin_dir.join("claude").display()
        ),
    )
    .unwrap();
    set_mode(&script, 0o755);
    w.write_config_with_routing(&format!(
        "  harnessBinary:\n    claude: {}\n",
        script.display()
    ));
    set_mode(&w.config_path, 0o644);
    w.write_env("SOME_TOKEN=x\n");
    set_mode(&w.env_path, 0o600);
    if !give_away(&w.config_path) {
        return;
    }
    let cwd = w.work.join("repo");
    std::fs::create_dir_all(&cwd).unwrap();
    let start = [
        "sessions",
        "start",
        "github:octo/repo#1",
        "--cwd",
        cwd.to_str().unwrap(),
    ];
    for args in [
        &start[..],
        &["plan"],
        &["validate"],
        &["sessions", "list"],
        &["sessions", "pause", "github:octo/repo#1"],
    ] {
        let out = w.the_loop(args);
        assert_refused(&out, &w.config_path, "0644", "chown", true);
    }
    assert!(!marker.exists(), "the other user's harness binary ran");
    assert!(w.tmux_sessions().is_empty(), "{:?}", w.tmux_sessions());
}

#[test]
fn a_config_or_env_file_others_can_write_is_refused() {
    let w = World::new();
    w.write_env("SOME_TOKEN=x\n");
    set_mode(&w.env_path, 0o600);
    set_mode(&w.config_path, 0o646);
    for args in [&["plan"][..], &["validate"]] {
        let out = w.the_loop(args);
        assert_refused(&out, &w.config_path, "0646", "chmod go-w", false);
    }
    set_mode(&w.config_path, 0o600);
    ok(w.the_loop(&["plan"]));

    set_mode(&w.env_path, 0o664);
    for args in [&["plan"][..], &["validate"]] {
        let out = w.the_loop(args);
        assert_refused(&out, &w.env_path, "0664", "chmod go-w", false);
    }
    let said = stderr(&w.the_loop(&["plan"]));
    assert!(!said.contains("SOME_TOKEN=x"), "{said}");
    set_mode(&w.env_path, 0o644);
    ok(w.the_loop(&["plan"]));
    if give_away(&w.env_path) {
        let out = w.the_loop(&["plan"]);
        assert_refused(&out, &w.env_path, "0644", "chown", true);
    }
}

#[test]
fn a_state_root_that_is_not_yours_alone_is_refused() {
    let w = World::new();
    w.write_env("SOME_TOKEN=x\n");
    set_mode(&w.env_path, 0o600);
    set_mode(&w.state, 0o777);
    let out = w.the_loop(&["plan"]);
    assert_refused(&out, &w.state, "0777", "chmod go-w", false);
    assert!(stderr(&out).contains("state.root"), "{}", stderr(&out));
    set_mode(&w.state, 0o755);
    ok(w.the_loop(&["plan"]));
    if give_away(&w.state) {
        let out = w.the_loop(&["plan"]);
        assert_refused(&out, &w.state, "0755", "chown", true);
    }
}

/// Another user plants a record for #2 that names #1's live conversation.
/// `plan` reports it as refused and plans #1 alone; `sessions start` for #2
/// refuses; `apply` never resumes it.
#[test]
fn a_record_another_user_planted_is_reported_and_never_resumed() {
    let w = World::new();
    w.write_env("SOME_TOKEN=x\n");
    set_mode(&w.env_path, 0o600);
    // Started by the-loop, so it is up to date and `apply` leaves it be:
    // any resume of its conversation would be the planted record's.
    let first = w.started_session("github:octo/repo#1", "github-octo-repo-1");
    let planted = LegacySession {
        reference: "github:octo/repo#2".into(),
        slug: "github-octo-repo-2".into(),
        name: "loop-github-octo-repo-2".into(),
        ..first.clone()
    };
    w.write_record(&planted, "active");
    let path = w.record_path(&planted.slug);
    set_mode(&path, 0o644);
    // A standing record of theirs, too.
    let standing = w.state.join("local/standing/ops.json");
    std::fs::create_dir_all(standing.parent().unwrap()).unwrap();
    std::fs::write(
        &standing,
        serde_json::json!({
            "name": "ops", "harness": "claude", "harnessSessionId": first.session_id,
            "cwd": first.cwd, "status": "active", "tmuxTarget": "loop-standing-ops",
            "recentDeliveries": []
        })
        .to_string(),
    )
    .unwrap();
    set_mode(&standing, 0o644);
    if !give_away(&path) || !give_away(&standing) {
        return;
    }
    let before = w.transcript_text(&first);

    for record in [&path, &standing] {
        let reason = refused_in_plan(&w, record);
        assert!(reason.contains(&format!("uid {NOBODY}")), "{reason}");
        assert!(
            reason.contains("0644") && reason.contains("chown"),
            "{reason}"
        );
    }
    let plan = json(&w.the_loop(&["plan", "--json"]));
    let planned: Vec<String> = plan["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["ref"].as_str().or(s["standing"].as_str()))
        .map(String::from)
        .collect();
    assert_eq!(planned, [first.reference.as_str()], "{plan}");
    let text = flat(&stdout(&w.the_loop(&["plan"])));
    assert!(text.contains(&flat(&path.display().to_string())), "{text}");

    let cwd = first.cwd.to_str().unwrap();
    let out = w.the_loop(&["sessions", "start", &planted.reference, "--cwd", cwd]);
    assert_refused(&out, &path, "0644", "chown", true);
    let out = w.the_loop(&["standing", "start", "ops"]);
    assert_refused(&out, &standing, "0644", "chown", true);

    let out = w.the_loop(&["apply", "--auto-approve"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    let sessions = w.tmux_sessions();
    assert!(
        !sessions
            .iter()
            .any(|s| s == &planted.name || s == "loop-standing-ops"),
        "{sessions:?}"
    );
    let after = w.transcript_text(&first);
    let added = after.strip_prefix(&before).unwrap_or(&after);
    assert!(
        !added.contains("\"type\":\"resume\"") && !added.contains("\"type\":\"start\""),
        "#1's conversation was taken up again: {added}"
    );
    assert!(std::fs::metadata(&path).is_ok(), "the record was removed");
}

#[test]
fn a_record_others_can_write_is_refused_too() {
    let w = World::new();
    w.write_env("SOME_TOKEN=x\n");
    set_mode(&w.env_path, 0o600);
    let cwd = w.work.join("three");
    std::fs::create_dir_all(&cwd).unwrap();
    let record = LegacySession {
        reference: "github:octo/repo#3".into(),
        slug: "github-octo-repo-3".into(),
        name: "loop-github-octo-repo-3".into(),
        session_id: "0000-three".into(),
        cwd: cwd.clone(),
    };
    w.write_record(&record, "active");
    let path = w.record_path(&record.slug);
    set_mode(&path, 0o646);
    let reason = refused_in_plan(&w, &path);
    assert!(
        reason.contains("0646") && reason.contains("chmod go-w"),
        "{reason}"
    );
    let out = w.the_loop(&[
        "sessions",
        "start",
        &record.reference,
        "--cwd",
        cwd.to_str().unwrap(),
    ]);
    assert_refused(&out, &path, "0646", "chmod go-w", false);
    assert!(w.tmux_sessions().is_empty(), "{:?}", w.tmux_sessions());
}
