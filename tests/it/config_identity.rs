//! Issue 47: the config is one file however its path is spelled. Sessions
//! carry `THE_LOOP_CLI_CONFIG`; a plan run through a symlink, a symlinked
//! directory, `./` or `../` must not see the whole fleet drift on it, and
//! sessions started before the-loop wrote the canonical path (they hold
//! another spelling of the same file) must not roll either. A different
//! file with the same contents is still another config.

use crate::support::*;
use std::path::{Path, PathBuf};
use std::process::Output;

const TOKEN: &str = "xoxb-IDENTITY-c0nf1g-77aa";

/// A world with one withheld name, a link to its config beside it and a
/// link to its whole directory.
fn world() -> (World, PathBuf, PathBuf) {
    let w = World::new();
    w.write_env(&format!("SLACK_BOT_TOKEN={TOKEN}\n"));
    let link = w.root().join("link-cli-config.yaml");
    std::os::unix::fs::symlink(&w.config_path, &link).unwrap();
    let alias = w.root().join("alias");
    std::os::unix::fs::symlink(w.root(), &alias).unwrap();
    (w, link, alias.join("cli-config.yaml"))
}

/// `the-loop --config CONFIG ARGS` run from `cwd`.
fn run_in(w: &World, cwd: &Path, config: &str, args: &[&str]) -> Output {
    w.the_loop_bare()
        .current_dir(cwd)
        .arg("--config")
        .arg(config)
        .args(args)
        .output()
        .expect("run the-loop")
}

/// `plan --detailed-exitcode` through each spelling of the same config:
/// each must find no drift.
fn assert_no_drift_through_every_spelling(w: &World, link: &Path, through_dir: &Path) {
    let root = w.root();
    let work = w.work.clone();
    let spellings: [(&Path, String); 5] = [
        (&root, w.config_path.display().to_string()),
        (&root, link.display().to_string()),
        (&root, through_dir.display().to_string()),
        (&root, "./cli-config.yaml".into()),
        (&work, "../cli-config.yaml".into()),
    ];
    for (cwd, config) in &spellings {
        let out = run_in(w, cwd, config, &["plan", "--detailed-exitcode"]);
        assert_no_canary(&out.stdout, &[TOKEN], "plan stdout");
        assert_no_canary(&out.stderr, &[TOKEN], "plan stderr");
        assert_eq!(
            code(&out),
            Some(0),
            "plan --config {config} (from {}) drifted:\n{}",
            cwd.display(),
            explain(&out)
        );
    }
}

#[test]
fn a_fleet_started_through_a_link_is_not_drifted_by_another_spelling() {
    let (w, link, through_dir) = world();
    let root = w.root();
    for (n, slug) in [(1, "one"), (2, "two")] {
        let cwd = w.work.join(slug);
        std::fs::create_dir_all(&cwd).unwrap();
        let reference = format!("github:octo/repo#{n}");
        let out = run_in(
            &w,
            &root,
            link.to_str().unwrap(),
            &[
                "sessions",
                "start",
                &reference,
                "--cwd",
                cwd.to_str().unwrap(),
            ],
        );
        assert!(out.status.success(), "start: {}", explain(&out));
        let pane = w
            .pane(&format!("loop-github-octo-repo-{n}"))
            .expect("spawned");
        wait_for_harness(pane.pid);
        // The session holds the config's one name: its canonical path.
        assert_eq!(
            environ(pane.pid)
                .get("THE_LOOP_CLI_CONFIG")
                .map(PathBuf::from),
            Some(w.config_path.clone())
        );
    }
    assert_no_drift_through_every_spelling(&w, &link, &through_dir);
}

/// A session as a the-loop before this fix launched it through `held`:
/// the spelling it was given, not the canonical path.
fn session_holding(w: &World, n: u32, held: &Path) -> LegacySession {
    let slug = format!("github-octo-repo-{n}");
    let reference = format!("github:octo/repo#{n}");
    let held = held.display().to_string();
    w.legacy_session_with(
        &reference,
        &slug,
        &format!("0000-{slug}"),
        &[
            ("THE_LOOP_CLI_CONFIG", held.as_str()),
            ("THE_LOOP_WORK_ITEM", reference.as_str()),
        ],
    )
}

#[test]
fn sessions_holding_another_spelling_of_the_same_file_do_not_roll() {
    let (w, link, through_dir) = world();
    session_holding(&w, 1, &link);
    session_holding(&w, 2, &through_dir);
    session_holding(&w, 3, &w.root().join("work/../cli-config.yaml"));
    assert_no_drift_through_every_spelling(&w, &link, &through_dir);
}

#[test]
fn a_session_holding_another_file_still_drifts() {
    let (w, _, _) = world();
    // The same text in another file is another config: its relative paths
    // and its state root are its own.
    let copy = w.root().join("copy");
    std::fs::create_dir_all(&copy).unwrap();
    let other = copy.join("cli-config.yaml");
    std::fs::copy(&w.config_path, &other).unwrap();
    session_holding(&w, 1, &other);
    let out = w.the_loop(&["plan", "--detailed-exitcode"]);
    assert_eq!(code(&out), Some(2), "{}", explain(&out));
    assert!(
        stdout(&out).contains("THE_LOOP_CLI_CONFIG"),
        "{}",
        explain(&out)
    );
}
