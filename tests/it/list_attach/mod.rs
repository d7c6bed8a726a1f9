//! `sessions list` and `attach` for a person with many sessions, and
//! `pause`/`resume` without tmux, on a real tmux server.

mod attach;
mod list_columns;

use crate::support::*;

fn world() -> World {
    let w = World::new();
    w.write_env("EXAMPLE_SETTING=not-secret\n");
    w
}

fn list_json(w: &World, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["sessions", "list", "--json"];
    args.extend_from_slice(extra);
    let out = w.the_loop(&args);
    assert!(out.status.success(), "{}", explain(&out));
    json(&out)
}

/// The rows' labels (ref, standing name or tmux name of an unmanaged session).
fn labels(listed: &serde_json::Value) -> Vec<String> {
    listed["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            s["ref"]
                .as_str()
                .or(s["standing"].as_str())
                .or(s["tmux_target"].as_str())
                .unwrap()
                .to_owned()
        })
        .collect()
}

/// Where each header starts in the table's first line.
fn column_starts(header: &str, names: &[&str]) -> Vec<usize> {
    names
        .iter()
        .map(|n| {
            header
                .find(n)
                .unwrap_or_else(|| panic!("no {n} in {header}"))
        })
        .collect()
}

#[test]
fn a_stray_loop_session_is_listed_as_unmanaged_from_one_tmux_call_without_an_env_file() {
    let w = World::new();
    // No env file: `plan` needs one to show unmanaged sessions, `list` does not.
    w.write_raw_config(&format!("state:\n  root: {}\n", w.state.display()));
    let a = w.legacy_session("github:octo/repo#3", "github-octo-repo-3");
    w.tmux_ok(&["new-session", "-d", "-s", "loop-stray", "sleep 600"]);
    w.tmux_ok(&["new-session", "-d", "-s", "not-ours", "sleep 600"]);
    w.install_tmux_wrapper();
    let listed = list_json(&w, &[]);
    // Besides the plan's one batch of looks at the harnesses' screens.
    let calls: Vec<Vec<String>> = w
        .tmux_reading_calls()
        .into_iter()
        .filter(|argv| argv.first().map(String::as_str) != Some("-V"))
        .collect();
    assert_eq!(
        calls.len(),
        1,
        "one tmux call for the whole list: {calls:?}"
    );
    assert_eq!(calls[0][..2], ["list-panes".to_owned(), "-a".to_owned()]);
    assert_eq!(labels(&listed), [a.reference.clone(), "loop-stray".into()]);
    let stray = &listed["sessions"][1];
    assert_eq!(stray["kind"], "unmanaged");
    assert_eq!(stray["live"], "live");
    assert!(stray["status"].is_null() && stray["ref"].is_null());

    let text = stdout(&w.the_loop(&["sessions", "list"]));
    let line = text.lines().find(|l| l.contains("loop-stray")).unwrap();
    assert!(line.starts_with("(unmanaged)"), "{text}");
    assert!(!text.contains("not-ours"), "{text}");
    // A status filter is about records, which an unmanaged session has not.
    assert_eq!(
        labels(&list_json(&w, &["--status", "active"])),
        [a.reference.as_str()]
    );
}

#[test]
fn a_record_without_a_tmux_target_is_not_shown_live_because_attach_refuses_it() {
    let w = world();
    let s = w.started_session("github:octo/repo#21", "github-octo-repo-21");
    w.edit_record(&s.slug, |r| r["tmuxTarget"] = serde_json::Value::Null);
    // The session of the derived name still runs.
    assert!(w.tmux_sessions().contains(&s.name));
    let listed = list_json(&w, &[]);
    assert_eq!(
        labels(&listed),
        [s.reference.as_str()],
        "not listed as unmanaged either"
    );
    let row = &listed["sessions"][0];
    assert!(
        row["live"].is_null() && row["tmux_target"].is_null() && row["activity"].is_null(),
        "{row}"
    );
    assert_eq!(row["attached"], 0, "{row}");
    let text = stdout(&w.the_loop(&["sessions", "list"]));
    let line = text.lines().find(|l| l.starts_with(&s.reference)).unwrap();
    assert!(
        !line.contains("live") && line.contains("(none yet)"),
        "{text}"
    );
    let out = w.the_loop(&["sessions", "attach", &s.reference]);
    assert!(
        stderr(&out).contains("attach::no_target"),
        "{}",
        explain(&out)
    );
}

#[test]
fn filters_select_by_status_kind_and_work_item_short_forms() {
    let w = world();
    let a = w.legacy_session("github:octo/repo#15", "github-octo-repo-15");
    let b = w.legacy_session("github:octo/other#15", "github-octo-other-15");
    let c = w.legacy_session("github:octo/repo#16", "github-octo-repo-16");
    w.write_record(&c, "paused");
    let standing = w.the_loop(&[
        "standing",
        "create",
        "triage",
        "--cwd",
        w.work.to_str().unwrap(),
    ]);
    assert!(standing.status.success(), "{}", explain(&standing));

    assert_eq!(
        labels(&list_json(&w, &["--status", "paused"])),
        [c.reference.as_str()]
    );
    assert_eq!(labels(&list_json(&w, &["--standing"])), ["triage"]);
    assert_eq!(
        labels(&list_json(&w, &["--standing", "triage"])),
        ["triage"]
    );
    assert!(labels(&list_json(&w, &["--standing", "other"])).is_empty());
    let mut items = labels(&list_json(&w, &["--work-item"]));
    items.sort();
    let mut want = vec![
        a.reference.clone(),
        b.reference.clone(),
        c.reference.clone(),
    ];
    want.sort();
    assert_eq!(items, want);
    let mut fifteen = labels(&list_json(&w, &["--work-item", "#15"]));
    fifteen.sort();
    assert_eq!(fifteen, [b.reference.clone(), a.reference.clone()]);
    assert_eq!(
        labels(&list_json(&w, &["--work-item", "repo#15"])),
        [a.reference.as_str()]
    );
    assert_eq!(
        labels(&list_json(
            &w,
            &["--work-item", "#16", "--status", "active"]
        )),
        Vec::<String>::new()
    );
    let text = stdout(&w.the_loop(&["sessions", "list", "--work-item", "#404"]));
    assert_eq!(text.trim(), "No sessions.");
}

#[test]
fn pause_and_resume_work_with_tmux_absent_from_path() {
    let w = world();
    let s = w.legacy_session("github:octo/repo#15", "github-octo-repo-15");
    w.tmux_ok(&["kill-server"]);
    let no_tmux = w.restricted_path(&[]);
    let out = w.the_loop_with(&["sessions", "pause", "#15"], &[("PATH", &no_tmux)]);
    assert!(out.status.success(), "{}", explain(&out));
    assert_eq!(w.record(&s.slug).unwrap()["status"], "paused");
    let out = w.the_loop_with(&["sessions", "resume", &s.reference], &[("PATH", &no_tmux)]);
    assert!(out.status.success(), "{}", explain(&out));
    assert_eq!(w.record(&s.slug).unwrap()["status"], "active");
    // The contrast: a verb that drives tmux says tmux is missing.
    let out = w.the_loop_with(&["sessions", "list"], &[("PATH", &no_tmux)]);
    assert_eq!(out.status.code(), Some(1), "{}", explain(&out));
}
