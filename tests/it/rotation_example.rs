//! `cargo run --example rotation` (the README's first command) leaves
//! nothing behind (issue 47). It once left
//! `the-loop-rotation-PID/state/activity/` in the temporary directory about
//! one run in three: killing its tmux server hangs up each harness, whose
//! SessionEnd hook wrote that file after the directory was removed. The
//! example now waits for every process its server started before removing
//! it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The example's binary, built as `cargo run --example rotation` builds it
/// (`cargo test` has built it already: examples are built to check they
/// compile, so this is only cargo's look at it).
fn rotation_example() -> PathBuf {
    let out = Command::new(env!("CARGO"))
        .args(["build", "--locked", "--quiet", "--example", "rotation"])
        .arg("--message-format=json")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stderr(Stdio::inherit())
        .output()
        .expect("cargo runs");
    assert!(out.status.success(), "cargo build --example rotation");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == "rotation")
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .expect("cargo names the example's executable")
}

fn left_in(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn the_rotation_example_tells_its_story_and_leaves_nothing_behind() {
    let exe = rotation_example();
    // Three at once, each in a temporary directory of its own: the load
    // slows the hooks, which is when the race showed.
    let runs: Vec<_> = (0..3)
        .map(|_| {
            let tmp = tempfile::Builder::new()
                .prefix("the-loop-rotation-test-")
                .tempdir()
                .unwrap();
            let child = Command::new(&exe)
                .env("TMPDIR", tmp.path())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("the example runs");
            (tmp, child)
        })
        .collect();
    for (tmp, child) in runs {
        let pid = child.id();
        let out = child.wait_with_output().unwrap();
        let told = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && told.contains("The story holds"),
            "the example (pid {pid}) failed:\n{told}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            left_in(tmp.path()),
            Vec::<String>::new(),
            "the example (pid {pid}) left these in its temporary directory"
        );
    }
}
