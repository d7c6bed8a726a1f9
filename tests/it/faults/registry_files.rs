//! A read-only registry or state root, and a corrupt record beside good ones.

use super::*;

/// `chattr +i`: even root cannot create, rename or remove entries.
struct Immutable(PathBuf);

impl Immutable {
    fn set(dir: &Path) -> Immutable {
        let ok = std::process::Command::new("chattr")
            .arg("+i")
            .arg(dir)
            .status()
            .is_ok_and(|s| s.success());
        assert!(
            ok,
            "chattr +i {} (needs e2fsprogs and CAP_LINUX_IMMUTABLE)",
            dir.display()
        );
        let probe = dir.join(".probe");
        assert!(
            std::fs::write(&probe, b"").is_err(),
            "the directory is read-only now"
        );
        Immutable(dir.to_path_buf())
    }
}

impl Drop for Immutable {
    fn drop(&mut self) {
        let _ = std::process::Command::new("chattr")
            .arg("-i")
            .arg(&self.0)
            .status();
    }
}

#[test]
fn a_read_only_registry_loses_nothing_and_start_refuses_before_spawning() {
    let (w, sessions) = rotated_world(2);
    let baseline = Baseline::take(&w);
    let _ro = Immutable::set(&w.state.join("local"));

    let out = w.the_loop(&["apply", "--auto-approve", "--json"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    for s in &sessions {
        assert_eq!(
            session_in(&json(&out), &s.reference)["outcome"],
            "restarted"
        );
    }

    let cwd = w.work.join("new");
    std::fs::create_dir_all(&cwd).unwrap();
    let start = w.the_loop(&[
        "sessions",
        "start",
        "github:octo/repo#9",
        "--cwd",
        cwd.to_str().unwrap(),
    ]);
    assert_eq!(start.status.code(), Some(1), "{}", stdout(&start));
    assert!(stderr(&start).contains("registry"), "{}", stderr(&start));
    assert!(
        w.pane("loop-github-octo-repo-9").is_none(),
        "no session started that could not be recorded"
    );
    baseline.holds(&w, &sessions);
    assert_clean(&[&out, &start]);
}

#[test]
fn a_read_only_state_root_refuses_apply_before_touching_a_pane() {
    let (w, sessions) = rotated_world(1);
    let baseline = Baseline::take(&w);
    let pid = w.pane(&sessions[0].name).unwrap().pid;
    let _ro = Immutable::set(&w.state);
    let out = w.the_loop(&["apply", "--auto-approve"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("cannot open the apply lock"),
        "{}",
        stderr(&out)
    );
    assert_eq!(w.pane(&sessions[0].name).unwrap().pid, pid);
    baseline.holds(&w, &sessions);
}

#[test]
fn a_corrupt_record_is_reported_and_the_others_roll() {
    let (w, sessions) = rotated_world(2);
    let corrupt = w.state.join("local").join("github-octo-repo-50.json");
    std::fs::write(
        &corrupt,
        "{\"workItem\": {\"ref\": \"github:octo/repo#50\", ",
    )
    .unwrap();
    let baseline = Baseline::take(&w);
    let plan = json(&w.the_loop(&["plan", "--json"]));
    let notes = plan["corrupt_records"].as_array().unwrap();
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0]["path"], corrupt.to_str().unwrap());
    let out = w.the_loop(&["apply", "--auto-approve", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    for s in &sessions {
        assert_eq!(
            session_in(&json(&out), &s.reference)["outcome"],
            "restarted"
        );
    }
    baseline.holds(&w, &sessions);
}
