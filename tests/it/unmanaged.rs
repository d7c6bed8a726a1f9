//! Issue 35, "every harness on the host is accounted for", on a real tmux
//! with the stand-in harness: a person runs `claude` in a tmux session of
//! their own, born on a token that is then retired. `plan` lists it in its
//! own section (and `--include-unmanaged` makes it drift), `import` takes
//! it under management from what the process itself says, and `apply`
//! rolls it in place onto the new token, resuming the same conversation.

use crate::support::*;
use std::path::Path;

pub(crate) const RETIRED: &str = "xoxb-RETIRED-unm4naged-5e1a";
pub(crate) const ROTATED: &str = "xoxb-ROTATED-unm4naged-9c3b";
pub(crate) const REF: &str = "github:octo/repo#7";

/// A world whose tmux server holds `RETIRED` (every shell it starts
/// inherits it), with `SLACK_BOT_TOKEN` delivered.
pub(crate) fn world() -> World {
    let w = World::new();
    w.write_config("  deliver: [SLACK_BOT_TOKEN]\n");
    w.write_env(&format!("SLACK_BOT_TOKEN={RETIRED}\n"));
    w.start_server_holding(&[("SLACK_BOT_TOKEN", RETIRED)]);
    w
}

/// A person's own session `name` in `work/<slug>`, its shell exporting
/// this world's config (as a person using the-loop does), where they type
/// `claude ARGS` (the stand-in: a login shell sets its own PATH, so its
/// directory is put first, as a person's profile would). Returns the
/// stand-in's conversation as a session and the pane.
pub(crate) fn by_hand(w: &World, name: &str, slug: &str, args: &str) -> (LegacySession, Pane) {
    let command = format!("export PATH={}:$PATH && claude {args}", w.bin_dir.display());
    let cwd = w.work.join(slug);
    std::fs::create_dir_all(&cwd).unwrap();
    let config = format!("THE_LOOP_CLI_CONFIG={}", w.config_path.display());
    let pane = w.typed_in_own_session(name, &cwd, &config, &command);
    let session = LegacySession {
        reference: REF.into(),
        slug: slug.into(),
        name: name.into(),
        session_id: String::new(),
        cwd: cwd.canonicalize().unwrap(),
    };
    (session, pane)
}

/// The stand-in's pid beneath the person's shell, once it is ready.
pub(crate) fn harness_beneath(w: &World, shell: i32, s: &LegacySession) -> i32 {
    wait_for(
        || w.transcript_text(s).contains("\"type\":\"ready\""),
        "the stand-in is ready",
    );
    let found: Vec<i32> = descendants(shell)
        .into_iter()
        .filter(|pid| cmdline(*pid).iter().any(|w| w.ends_with("/claude")))
        .collect();
    *found
        .iter()
        .min()
        .expect("the stand-in runs beneath the shell")
}

pub(crate) fn no_canary(out: &std::process::Output, what: &str) {
    assert_no_canary(&out.stdout, &[RETIRED, ROTATED], &format!("{what} stdout"));
    assert_no_canary(&out.stderr, &[RETIRED, ROTATED], &format!("{what} stderr"));
}

#[test]
fn a_harness_started_by_hand_is_listed_imported_and_rolled_onto_the_new_token() {
    let w = world();
    let (mut s, pane) = by_hand(&w, "mywork", "mine", "--session-id 0000-mine");
    s.session_id = "0000-mine".into();
    let harness = harness_beneath(&w, pane.pid, &s);
    w.write_env(&format!("SLACK_BOT_TOKEN={ROTATED}\n"));

    // Listed in its own section, by pane, with the stale name.
    let out = w.the_loop(&["plan", "--json"]);
    no_canary(&out, "plan --json");
    let plan = json(&out);
    let listed = plan["unmanaged_harnesses"].as_array().unwrap();
    assert_eq!(listed.len(), 1, "{plan:#}");
    let entry = &listed[0];
    assert_eq!(entry["harness"], "claude");
    assert_eq!(entry["tmux_session"], "mywork");
    assert_eq!(entry["pane_id"], pane.id.as_str());
    assert_eq!(entry["pid"], harness);
    assert_eq!(entry["pane_pid"], pane.pid);
    assert_eq!(entry["conversation"], "0000-mine");
    assert_eq!(entry["conversation_from"], "argv");
    assert_eq!(
        entry["names"],
        serde_json::json!([{"name": "SLACK_BOT_TOKEN", "fingerprint": fp(RETIRED), "case": "stale"}])
    );
    // Not residue, and what is (the person's shell, which exported the
    // config) is said to be in its pane, not detached.
    let detached = plan["residue"]["detached"].as_array().unwrap();
    assert!(detached.iter().all(|d| d["pid"] != harness), "{detached:?}");
    assert!(
        detached
            .iter()
            .all(|d| d["session"] == "mywork" && d["pane_id"] == pane.id.as_str()),
        "{detached:?}"
    );
    let text = stdout(&w.the_loop(&["plan"]));
    assert!(
        text.contains("Harnesses the-loop does not manage"),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "claude in pane {} of tmux session mywork",
            pane.id
        )),
        "{text}"
    );
    assert!(text.contains(&fp(RETIRED)), "{text}");
    assert!(!text.contains("detached from its pane"), "{text}");
    assert!(
        text.contains("No drift in the-loop's sessions, but 1 harness"),
        "{text}"
    );

    // Not drift by default; drift with the flag.
    let gate = w.the_loop(&["plan", "--detailed-exitcode"]);
    assert_eq!(code(&gate), Some(0), "{}", explain(&gate));
    let gate = w.the_loop(&["plan", "--detailed-exitcode", "--include-unmanaged"]);
    assert_eq!(code(&gate), Some(2), "{}", explain(&gate));
    assert!(
        stdout(&gate).contains("Counted as drift"),
        "{}",
        explain(&gate)
    );

    // A dry run changes nothing.
    let dry = ok(w.the_loop(&["import", &pane.id, REF, "--dry-run", "--json"]));
    assert_eq!(json(&dry)["naming"], "renamed");
    assert!(w.record("github-octo-repo-7").is_none());
    assert!(w.tmux_sessions().contains(&"mywork".to_owned()));

    // Imported: the record as `sessions start` writes it, naming the pane,
    // and the person's session takes the record's name. Nothing signalled.
    let out = ok(w.the_loop(&["import", &pane.id, REF, "--json"]));
    no_canary(&out, "import");
    let imported = json(&out);
    assert_eq!(imported["tmux_target"], "loop-github-octo-repo-7");
    assert_eq!(imported["harness_session_id"], "0000-mine");
    assert_eq!(imported["naming"], "renamed");
    let record = w.record("github-octo-repo-7").expect("a record");
    assert_eq!(record["harness"], "claude");
    assert_eq!(record["harnessSessionId"], "0000-mine");
    assert_eq!(record["cwd"], s.cwd.to_str().unwrap());
    assert_eq!(record["tmuxTarget"], "loop-github-octo-repo-7");
    assert_eq!(record["tmuxPane"], pane.id.as_str());
    assert_eq!(record["status"], "active");
    let now = w
        .pane("loop-github-octo-repo-7")
        .expect("the renamed session");
    assert_eq!((now.id.as_str(), now.pid), (pane.id.as_str(), pane.pid));
    assert!(!w.tmux_sessions().contains(&"mywork".to_owned()));
    assert!(alive(harness), "import signals nothing");
    assert_eq!(w.events_named("session.imported").len(), 1);

    // Managed now: planned as a drifted session, no longer listed apart.
    let plan = json(&w.the_loop(&["plan", "--json"]));
    assert_eq!(
        plan["unmanaged_harnesses"],
        serde_json::json!([]),
        "{plan:#}"
    );
    let row = session_in(&plan, REF);
    assert_eq!(row["action"], "respawn", "{row:#}");
    assert_eq!(row["pane_pid"], harness);
    assert_eq!(row["pane_process"], pane.pid);
    assert_eq!(row["changes"][0]["name"], "SLACK_BOT_TOKEN");
    assert_eq!(row["left_alone"], serde_json::Value::Null, "{row:#}");

    // Rolled in place: the same pane, the new token, the same conversation.
    let out = w.the_loop(&["apply", "--auto-approve", "--json"]);
    no_canary(&out, "apply");
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let report = json(&out);
    assert_eq!(
        session_in(&report, REF)["outcome"],
        "restarted",
        "{report:#}"
    );
    let rolled = w.pane("loop-github-octo-repo-7").expect("the pane");
    assert_eq!(rolled.id, pane.id, "the same pane");
    assert!(!rolled.dead);
    wait_for_harness(rolled.pid);
    assert_eq!(
        environ(rolled.pid)
            .get("SLACK_BOT_TOKEN")
            .map(String::as_str),
        Some(ROTATED)
    );
    let argv = cmdline(rolled.pid);
    let at = argv.iter().position(|w| w == "--resume").expect("a resume");
    assert_eq!(argv[at + 1], "0000-mine", "{argv:?}");
    assert!(
        !alive(harness) && !alive(pane.pid),
        "the harness and its shell ended"
    );
    wait_for(
        || w.transcript_text(&s).contains("\"type\":\"resume\""),
        "the stand-in resumed its conversation",
    );
    let gate = w.the_loop(&["plan", "--detailed-exitcode", "--include-unmanaged"]);
    assert_eq!(code(&gate), Some(0), "{}", explain(&gate));
    for (path, bytes) in w.state_files() {
        assert_no_canary(&bytes, &[RETIRED, ROTATED], &path.display().to_string());
    }
}

/// The hook settings the-loop writes for its own launches, which a person
/// may pass to a harness they start (`claude --settings FILE`).
fn hook_settings(w: &World) -> String {
    let words = the_loop::harness::hooks::write(
        &w.state,
        Path::new(&assert_cmd::cargo::cargo_bin("the-loop")),
        None,
    )
    .unwrap();
    words[1].to_str().unwrap().to_owned()
}

#[test]
fn a_conversation_that_cannot_be_told_is_refused_and_one_its_argv_names_is_imported() {
    let w = world();
    // A bare `claude`: no id in its argv, no hook report.
    let (_, bare) = by_hand(&w, "bare", "bare", "");
    wait_for(
        || !descendants(bare.pid).is_empty(),
        "the bare stand-in started",
    );
    let plan = json(&w.the_loop(&["plan", "--json"]));
    let listed = plan["unmanaged_harnesses"].as_array().unwrap();
    let entry = listed
        .iter()
        .find(|e| e["tmux_session"] == "bare")
        .expect("listed");
    assert_eq!(entry["conversation"], serde_json::Value::Null, "{entry:#}");
    let out = w.the_loop(&["import", "bare", REF]);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    let said = flat(&stderr(&out));
    assert!(
        said.contains(&flat("cannot tell which conversation")),
        "{}",
        explain(&out)
    );
    assert!(
        said.contains(&flat("claude --resume <id>")),
        "{}",
        explain(&out)
    );
    assert!(
        w.record("github-octo-repo-7").is_none(),
        "nothing was recorded"
    );
    assert!(
        w.tmux_sessions().contains(&"bare".to_owned()),
        "nothing was renamed"
    );

    // No harness at all in a pane: refused.
    w.tmux_ok(&["new-session", "-d", "-s", "shell-only"]);
    let shell = w.pane("shell-only").unwrap();
    let out = w.the_loop(&["import", &shell.id, REF]);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    assert!(
        stderr(&out).contains("runs no harness"),
        "{}",
        explain(&out)
    );

    // A bare start with the-loop's hook settings, but by hand, not through
    // the-loop's launcher: its hooks cannot prove which harness they belong
    // to, so they file nothing (the debug log says why), and its
    // conversation cannot be told either.
    let settings = hook_settings(&w);
    let (_, hooked) = by_hand(&w, "hooked", "hooked", &format!("--settings {settings}"));
    let unfiled = w.state.join("activity").join("unfiled.log");
    wait_for(
        || {
            std::fs::read_to_string(&unfiled)
                .is_ok_and(|t| t.contains("SessionStart filed under no harness"))
        },
        "the hand-started harness's hook filed nothing",
    );
    for pid in descendants(hooked.pid) {
        assert!(
            !w.state
                .join("activity")
                .join(format!("{pid}.jsonl"))
                .exists(),
            "filed under {pid}, which the-loop did not launch"
        );
    }
    let out = w.the_loop(&["import", "hooked", REF]);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    assert!(
        flat(&stderr(&out)).contains(&flat("cannot tell which conversation")),
        "{}",
        explain(&out)
    );

    // One whose argv names its conversation, in a session it shares with
    // another pane: the pane moves to a session of its own.
    let named = "6f1c2d3e-4b5a-4c6d-8e7f-8091a2b3c4d5";
    let (mut s, pane) = by_hand(&w, "shared", "named", &format!("--session-id {named}"));
    w.tmux_ok(&["split-window", "-d", "-t", "=shared:"]);
    let harness = {
        let mut found = 0;
        wait_for(
            || {
                found = descendants(pane.pid)
                    .into_iter()
                    .filter(|pid| cmdline(*pid).iter().any(|w| w.ends_with("/claude")))
                    .min()
                    .unwrap_or(0);
                found > 0
            },
            "the stand-in started",
        );
        found
    };
    let reported = named.to_owned();
    let out = ok(w.the_loop(&["import", &pane.id, REF, "--json"]));
    let imported = json(&out);
    assert_eq!(imported["harness_session_id"], reported.as_str());
    assert_eq!(imported["conversation_from"], "argv");
    assert_eq!(imported["naming"], "moved");
    let moved = w.pane("loop-github-octo-repo-7").expect("its own session");
    assert_eq!(moved.id, pane.id);
    let left = w
        .pane("shared")
        .expect("the person's session keeps its other pane");
    assert_ne!(left.id, pane.id);
    assert_eq!(
        w.tmux_ok(&[
            "list-panes",
            "-s",
            "-t",
            "=loop-github-octo-repo-7",
            "-F",
            "#{pane_id}"
        ])
        .trim(),
        pane.id
    );
    assert!(alive(harness));
    s.session_id = reported;
    let plan = json(&w.the_loop(&["plan", "--json"]));
    assert_eq!(session_in(&plan, REF)["pane_pid"], harness, "{plan:#}");

    // Imported once: the same work item again is refused.
    let out = w.the_loop(&["import", "bare", REF]);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    assert!(
        stderr(&out).contains("has a session already"),
        "{}",
        explain(&out)
    );
}

#[test]
fn a_harness_holding_another_work_item_is_refused_and_its_own_is_taken_back() {
    let w = world();
    // A session the-loop started whose record was lost: a `loop-*` session
    // no record names, its harness holding github:octo/repo#1.
    let s = w.started_session("github:octo/repo#1", "github-octo-repo-1");
    std::fs::remove_file(w.record_path("github-octo-repo-1")).unwrap();
    let pane = w.pane(&s.name).unwrap();
    wait_for_harness(pane.pid);
    let plan = json(&w.the_loop(&["plan", "--json"]));
    let entry = &plan["unmanaged_harnesses"][0];
    assert_eq!(entry["tmux_session"], s.name.as_str(), "{plan:#}");
    assert_eq!(entry["pid"], pane.pid);

    // Imported as another work item: the check every verb makes refuses it,
    // and the session gets its name back.
    let out = w.the_loop(&["import", &pane.id, REF]);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    assert!(
        flat(&stderr(&out)).contains(&flat("belongs to work item github:octo/repo#1")),
        "{}",
        explain(&out)
    );
    assert!(w.record("github-octo-repo-7").is_none());
    assert!(
        w.tmux_sessions().contains(&s.name),
        "{:?}",
        w.tmux_sessions()
    );
    assert!(alive(pane.pid));

    // Imported as its own work item: the name is kept, the record is back.
    let out = ok(w.the_loop(&["import", &s.name, "github:octo/repo#1", "--json"]));
    let imported = json(&out);
    assert_eq!(imported["naming"], "kept");
    assert_eq!(imported["harness_session_id"], s.session_id.as_str());
    let record = w.record("github-octo-repo-1").expect("the record is back");
    assert_eq!(record["harnessSessionId"], s.session_id.as_str());
    let plan = json(&w.the_loop(&["plan", "--json"]));
    assert_eq!(
        plan["unmanaged_harnesses"],
        serde_json::json!([]),
        "{plan:#}"
    );
    assert_eq!(
        session_in(&plan, "github:octo/repo#1")["action"],
        "none",
        "{plan:#}"
    );
}

#[test]
fn the_lone_pane_of_a_session_another_record_names_is_not_renamed_away() {
    let w = world();
    // A record names tmux session loop-b, where a person runs the stand-in
    // beneath their shell: tmux's start command cannot tell it is the
    // record's harness, so it is listed as not managed.
    let (mut s, pane) = by_hand(&w, "loop-b", "b", "--session-id 0000-b");
    s.session_id = "0000-b".into();
    s.reference = "github:octo/repo#2".into();
    s.slug = "github-octo-repo-2".into();
    let harness = harness_beneath(&w, pane.pid, &s);
    w.write_record(&s, "active");
    let plan = json(&w.the_loop(&["plan", "--json"]));
    assert_eq!(plan["unmanaged_harnesses"][0]["pid"], harness, "{plan:#}");
    let out = w.the_loop(&["import", &pane.id, REF]);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    assert!(
        flat(&stderr(&out)).contains(&flat("which the record of github:octo/repo#2 names")),
        "{}",
        explain(&out)
    );
    assert!(w.tmux_sessions().contains(&"loop-b".to_owned()));
    assert!(w.record("github-octo-repo-7").is_none());
}
