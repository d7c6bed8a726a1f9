//! What the-loop changes on a machine, and taking it back: every harness
//! settings file is snapshotted before the first `sessions start`,
//! sessions are started (and one respawned), and `uninstall
//! --harness-settings` leaves each file byte for byte as it was, the
//! person's own entries included. `sessions forget` stops managing a
//! session and leaves its tmux session and harness running.

use crate::support::*;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The person's own files, as Claude Code writes them (pretty, two spaces).
const CLAUDE_JSON: &str = r#"{
  "numStartups": 7,
  "projects": {
    "/home/me/mine": {
      "allowedTools": [
        "Bash(ls:*)"
      ],
      "hasTrustDialogAccepted": true
    }
  },
  "theme": "dark"
}
"#;
const SETTINGS_JSON: &str = r#"{
  "model": "opus",
  "enabledPlugins": {
    "other@market": true
  }
}
"#;

fn harness_files(w: &World) -> [PathBuf; 2] {
    [
        w.home.join(".claude.json"),
        w.home.join(".claude/settings.json"),
    ]
}

fn snapshot(w: &World) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
    harness_files(w)
        .into_iter()
        .map(|path| (path.clone(), std::fs::read(&path).ok()))
        .collect()
}

fn world_with_own_settings() -> World {
    let w = World::new();
    w.write_env("A=1\n");
    w.write_config_with_routing(&format!(
        "  workspace:\n    root: {}\n  harnessArgs:\n    claude: [\"--dangerously-skip-permissions\"]\n",
        w.work.display()
    ));
    let [user_config, settings] = harness_files(&w);
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(&user_config, CLAUDE_JSON).unwrap();
    std::fs::write(&settings, SETTINGS_JSON).unwrap();
    w
}

#[test]
fn uninstall_leaves_the_harness_settings_as_they_were_before_the_first_start() {
    let w = world_with_own_settings();
    let before = snapshot(&w);

    let a = w.started_session("github:octo/repo#15", "github-octo-repo-15");
    w.started_session("github:octo/repo#16", "github-octo-repo-16");
    ok(w.the_loop(&["sessions", "restart", &a.reference]));
    let seeded = snapshot(&w);
    assert_ne!(seeded, before, "the starts wrote trust and the plugin");
    let trusted = read_json(&harness_files(&w)[0]);
    assert_eq!(
        trusted["projects"][a.cwd.to_str().unwrap()]["hasTrustDialogAccepted"],
        true
    );

    let dry = ok(w.the_loop(&["uninstall", "--harness-settings", "--dry-run", "--json"]));
    assert_eq!(snapshot(&w), seeded, "--dry-run changes nothing");
    let dry = json(&dry);
    assert_eq!(dry["format_version"], "1");
    assert_eq!(dry["dry_run"], true);
    assert!(dry["files"]
        .as_array()
        .unwrap()
        .iter()
        .all(|f| f["changed"] == true));

    let out = ok(w.the_loop(&["uninstall", "--harness-settings"]));
    assert_eq!(snapshot(&w), before, "{}", stdout(&out));
    let text = stdout(&out);
    assert!(text.contains("nothing of yours"), "{text}");
    assert!(
        text.contains("enabledPlugins[\"the-loop@the-loop\"]"),
        "{text}"
    );
    assert!(text.contains("0 left alone"), "{text}");

    // Taken out once: a second run finds nothing noted.
    let again = ok(w.the_loop(&["uninstall", "--harness-settings"]));
    assert!(
        stdout(&again).contains("nothing to take out"),
        "{}",
        stdout(&again)
    );
    assert_eq!(snapshot(&w), before);
}

#[test]
fn files_the_loop_created_are_deleted_again() {
    let w = World::new();
    w.write_env("A=1\n");
    w.started_session("github:octo/repo#15", "github-octo-repo-15");
    let [user_config, settings] = harness_files(&w);
    assert!(user_config.exists() && settings.exists());
    let out = ok(w.the_loop(&["uninstall", "--harness-settings"]));
    assert!(
        stdout(&out).contains("(the file itself, which the-loop created)"),
        "{}",
        stdout(&out)
    );
    assert!(!user_config.exists(), "{}", stdout(&out));
    assert!(!settings.exists(), "{}", stdout(&out));
}

#[test]
fn what_the_person_changed_since_stays_and_a_broken_file_is_retried() {
    let w = world_with_own_settings();
    w.started_session("github:octo/repo#15", "github-octo-repo-15");
    let [user_config, settings] = harness_files(&w);
    // The person disables the plugin; the user config becomes unreadable JSON.
    let edited = std::fs::read_to_string(&settings).unwrap().replace(
        "\"the-loop@the-loop\": true",
        "\"the-loop@the-loop\": false",
    );
    std::fs::write(&settings, &edited).unwrap();
    let good = std::fs::read(&user_config).unwrap();
    std::fs::write(&user_config, "{ not json").unwrap();

    let out = w.the_loop(&["uninstall", "--harness-settings", "--json"]);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    let report = json(&out);
    let files = report["files"].as_array().unwrap();
    let broken = files
        .iter()
        .find(|f| f["file"] == user_config.to_str().unwrap());
    let problem = broken.unwrap()["problem"].as_str().unwrap();
    assert!(problem.contains("not JSON (line 1"), "{problem}");
    assert!(
        !problem.contains("{ not json"),
        "never the content: {problem}"
    );
    let kept = read_json(&settings);
    assert_eq!(kept["enabledPlugins"]["the-loop@the-loop"], false, "theirs");
    assert_eq!(kept["enabledPlugins"]["other@market"], true);
    assert!(
        kept.get("extraKnownMarketplaces").is_none(),
        "the-loop's: gone"
    );

    // Fixed, run again: the user config's keys were still noted.
    std::fs::write(&user_config, good).unwrap();
    ok(w.the_loop(&["uninstall", "--harness-settings"]));
    assert_eq!(std::fs::read_to_string(&user_config).unwrap(), CLAUDE_JSON);
}

#[test]
fn uninstall_needs_its_flag_and_says_so() {
    let w = World::new();
    let out = w.the_loop(&["uninstall"]);
    assert_eq!(code(&out), Some(1));
    assert!(
        stderr(&out).contains("--harness-settings"),
        "{}",
        stderr(&out)
    );
    let empty = ok(w.the_loop(&["uninstall", "--harness-settings", "--dry-run"]));
    assert!(
        stdout(&empty).contains("nothing to take out"),
        "{}",
        stdout(&empty)
    );
}

#[test]
fn forget_leaves_the_session_running_and_unmanaged() {
    let w = world_with_own_settings();
    let a = w.started_session("github:octo/repo#15", "github-octo-repo-15");
    let pid = w.pane(&a.name).unwrap().pid;

    let out = ok(w.the_loop(&["sessions", "forget", "#15", "--json"]));
    let report = json(&out);
    assert_eq!(report["format_version"], "1");
    assert_eq!(report["ref"], a.reference);
    assert_eq!(report["tmux_target"], a.name);
    assert_eq!(report["record_deleted"], true);
    assert!(w.record(&a.slug).is_none(), "the record is gone");
    let pane = w.pane(&a.name).expect("the tmux session is left");
    assert_eq!((pane.pid, pane.dead), (pid, false), "the harness runs on");
    assert!(alive(pid));

    let listed = json(&ok(w.the_loop(&["sessions", "list", "--json"])));
    let sessions = listed["sessions"].as_array().unwrap();
    let row = sessions
        .iter()
        .find(|s| s["tmux_target"] == a.name.as_str());
    assert_eq!(
        row.map(|s| &s["kind"]),
        Some(&"unmanaged".into()),
        "{listed}"
    );

    // As the help says, `import` takes it back.
    let import = ["import", &pane.id, &a.reference, "--dry-run", "--json"];
    assert_eq!(json(&ok(w.the_loop(&import)))["format_version"], "1");

    let again = w.the_loop(&["sessions", "forget", &a.reference]);
    assert_eq!(code(&again), Some(1));
    assert!(
        stderr(&again).contains("no session is registered"),
        "{}",
        stderr(&again)
    );
}
