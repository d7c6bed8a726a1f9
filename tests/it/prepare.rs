//! Pre-spawn harness preparation on a real tmux: the harness's own config
//! files are seeded before a start and before every respawn, and a file
//! the-loop does not understand is left alone while the spawn goes ahead.

use crate::support::*;
use std::os::unix::fs::PermissionsExt;

const REF: &str = "github:octo/repo#15";
const NAME: &str = "loop-github-octo-repo-15";

/// A checkout reached through a symlinked workspace, so its absolute path
/// and its real path differ.
fn linked_checkout(w: &World) -> (std::path::PathBuf, std::path::PathBuf) {
    let real_root = w.work.join("real-workspace");
    std::fs::create_dir_all(real_root.join("repo15")).unwrap();
    let link = w.root().join("ws");
    std::os::unix::fs::symlink(&real_root, &link).unwrap();
    (link.join("repo15"), real_root.join("repo15"))
}

fn start(w: &World, cwd: &std::path::Path, env: &[(&str, &str)]) {
    ok(w.the_loop_with(
        &["sessions", "start", REF, "--cwd", cwd.to_str().unwrap()],
        env,
    ));
    wait_for(
        || {
            w.pane(NAME)
                .is_some_and(|p| !p.dead && cmdline(p.pid).get(1).is_some_and(|a| a != "exec"))
        },
        "the harness started",
    );
}

#[test]
fn a_start_trusts_the_directory_and_enables_the_plugin() {
    let w = World::new();
    w.write_env("UNRELATED=1\n");
    let (given, real) = linked_checkout(&w);
    let root = w.root().join("ws");
    w.write_config_with_routing(&format!(
        "  workspace:\n    root: {}\n  harnessArgs:\n    claude: [\"--dangerously-skip-permissions\"]\n",
        root.display()
    ));
    // The operator's own config: kept, key for key.
    let user_config = w.home.join(".claude.json");
    std::fs::write(
        &user_config,
        r#"{"numStartups": 3, "projects": {"/other": {"hasTrustDialogAccepted": false}}}"#,
    )
    .unwrap();
    std::fs::set_permissions(&user_config, std::fs::Permissions::from_mode(0o640)).unwrap();

    start(&w, &given, &[]);

    let config = read_json(&user_config);
    let projects = &config["projects"];
    for dir in [&given, &real] {
        let entry = &projects[dir.to_str().unwrap()];
        assert_eq!(entry["hasTrustDialogAccepted"], true, "{config}");
        assert_eq!(entry["hasCompletedProjectOnboarding"], true, "{config}");
    }
    assert_eq!(
        projects[root.to_str().unwrap()]["hasTrustDialogAccepted"],
        true
    );
    assert!(projects[root.to_str().unwrap()]
        .get("hasCompletedProjectOnboarding")
        .is_none());
    assert_eq!(
        projects["/other"]["hasTrustDialogAccepted"], false,
        "untouched"
    );
    assert_eq!(config["numStartups"], 3);
    assert_eq!(
        config["bypassPermissionsModeAccepted"], true,
        "the args ask for bypass"
    );
    assert_eq!(
        std::fs::metadata(&user_config)
            .unwrap()
            .permissions()
            .mode()
            & 0o777,
        0o640,
        "mode kept"
    );

    let settings_path = w.home.join(".claude/settings.json");
    let settings = read_json(&settings_path);
    assert_eq!(settings["enabledPlugins"]["the-loop@the-loop"], true);
    assert_eq!(
        settings["extraKnownMarketplaces"]["the-loop"]["source"]["repo"],
        "MadaraUchiha-314/the-loop"
    );
    assert_eq!(
        std::fs::metadata(&settings_path)
            .unwrap()
            .permissions()
            .mode()
            & 0o777,
        0o600,
        "a new file is private"
    );
    let trusted: Vec<serde_json::Value> = w
        .events()
        .into_iter()
        .filter(|e| e["event"] == "workspace.trusted")
        .collect();
    assert_eq!(trusted.len(), 2, "trust and plugin: {trusted:?}");
    assert!(trusted[0]["directories"]
        .as_array()
        .unwrap()
        .contains(&serde_json::json!(real.to_str().unwrap())));
}

#[test]
fn every_respawn_prepares_again_and_nothing_is_rewritten_when_in_place() {
    let w = World::new();
    w.write_env("UNRELATED=1\n");
    let cwd = w.work.join("repo15");
    std::fs::create_dir_all(&cwd).unwrap();
    w.write_config_with_routing("  harnessTrust:\n    scope: directory\n");
    start(&w, &cwd, &[]);
    let user_config = w.home.join(".claude.json");
    let settings = w.home.join(".claude/settings.json");
    let written = std::fs::metadata(&settings).unwrap().modified().unwrap();

    // The operator (or the harness) loses the trust entry; a restart must
    // restore it before the relaunch, and leave the settled settings alone.
    std::fs::remove_file(&user_config).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    ok(w.the_loop(&["sessions", "restart", REF]));
    let config = read_json(&user_config);
    assert_eq!(
        config["projects"][cwd.to_str().unwrap()]["hasTrustDialogAccepted"],
        true
    );
    assert!(
        config.get("bypassPermissionsModeAccepted").is_none(),
        "not asked for"
    );
    assert_eq!(
        config["projects"].as_object().unwrap().len(),
        1,
        "scope: directory trusts nothing else: {config}"
    );
    assert_eq!(
        std::fs::metadata(&settings).unwrap().modified().unwrap(),
        written,
        "nothing to change, nothing written"
    );
}

#[test]
fn claude_config_dir_is_honoured() {
    let w = World::new();
    w.write_env("UNRELATED=1\n");
    let cwd = w.work.join("repo15");
    std::fs::create_dir_all(&cwd).unwrap();
    let dir = w.root().join("claude-config");
    std::fs::create_dir_all(&dir).unwrap();
    // An installation that keeps the legacy file name.
    std::fs::write(dir.join(".config.json"), "{}").unwrap();
    start(&w, &cwd, &[("CLAUDE_CONFIG_DIR", dir.to_str().unwrap())]);
    let config = read_json(&dir.join(".config.json"));
    assert_eq!(
        config["projects"][cwd.to_str().unwrap()]["hasTrustDialogAccepted"],
        true
    );
    assert!(!dir.join(".claude.json").exists());
    assert!(dir.join("settings.json").is_file());
    assert!(
        !w.home.join(".claude.json").exists(),
        "HOME's file is not the one in use"
    );
}

#[test]
fn a_config_that_is_not_json_is_left_alone_and_the_session_still_starts() {
    let w = World::new();
    w.write_env("UNRELATED=1\n");
    let cwd = w.work.join("repo15");
    std::fs::create_dir_all(&cwd).unwrap();
    w.write_config("");
    let user_config = w.home.join(".claude.json");
    std::fs::write(&user_config, "{ half-written").unwrap();
    start(&w, &cwd, &[]);
    assert_eq!(
        std::fs::read_to_string(&user_config).unwrap(),
        "{ half-written"
    );
    let failed: Vec<serde_json::Value> = w
        .events()
        .into_iter()
        .filter(|e| e["event"] == "workspace.trust_failed")
        .collect();
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert_eq!(failed[0]["step"], "trust");
    // The plugin step is independent and still ran.
    assert!(w.home.join(".claude/settings.json").is_file());
}

#[test]
fn both_steps_can_be_turned_off() {
    let w = World::new();
    w.write_env("UNRELATED=1\n");
    let cwd = w.work.join("repo15");
    std::fs::create_dir_all(&cwd).unwrap();
    w.write_config_with_routing("  harnessTrust: false\n  harnessPlugins: false\n");
    start(&w, &cwd, &[]);
    assert!(!w.home.join(".claude.json").exists());
    assert!(!w.home.join(".claude/settings.json").exists());
}
