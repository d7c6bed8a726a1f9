//! Issue 11, classes 4, 7 and 10 on a real tmux: a start never spawns what
//! it cannot record, refuses special files without blocking, refuses a
//! `--cwd` that is not a directory, and creates its state files private and
//! never through a symlink, whatever the umask.

use crate::support::*;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const REF: &str = "github:octo/repo#1";
const SLUG: &str = "github-octo-repo-1";
const NAME: &str = "loop-github-octo-repo-1";

fn checkout(w: &World, dir: &str) -> PathBuf {
    let cwd = w.work.join(dir);
    std::fs::create_dir_all(&cwd).unwrap();
    cwd
}

/// Every transcript any stand-in wrote in this world: a fresh conversation
/// that was started leaves one.
fn transcripts(w: &World) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![w.home.join(".claude")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "jsonl") {
                found.push(path);
            }
        }
    }
    found
}

/// Runs the-loop, killing it (and failing) if it has not ended in 30 s.
pub(crate) fn run_bounded(mut cmd: Command) -> Output {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run the-loop");
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!("the-loop hung; stderr so far: {}", stderr(&out));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

fn start_args<'a>(cwd: &'a Path, reference: &'a str) -> Vec<&'a str> {
    vec![
        "sessions",
        "start",
        reference,
        "--cwd",
        cwd.to_str().unwrap(),
    ]
}

fn assert_nothing_spawned(w: &World, out: &Output) {
    assert_ne!(out.status.code(), Some(0), "{}", stdout(out));
    assert_ne!(out.status.code(), Some(101), "panicked: {}", stderr(out));
    assert!(
        !w.tmux_sessions().iter().any(|s| s == NAME),
        "a session was spawned that could not be recorded: {:?}\n{}",
        w.tmux_sessions(),
        stderr(out)
    );
    assert!(
        transcripts(w).is_empty(),
        "a conversation was started: {:?}",
        transcripts(w)
    );
}

#[test]
fn a_directory_in_the_records_place_is_refused_before_anything_spawns() {
    let w = World::new();
    w.write_env("UNRELATED=1\n");
    let cwd = checkout(&w, "a");
    std::fs::create_dir_all(w.record_path(SLUG)).unwrap();
    let out = w.the_loop(&start_args(&cwd, REF));
    assert_nothing_spawned(&w, &out);
    let err = stderr(&out);
    assert!(
        flat(&err).contains(&format!("{SLUG}.json")),
        "names the file: {err}"
    );
    assert!(err.contains("a directory"), "{err}");
    assert!(w.record_path(SLUG).is_dir(), "left alone");
}

#[test]
fn a_fifo_in_the_records_place_is_refused_without_blocking() {
    let w = World::new();
    w.write_env("UNRELATED=1\n");
    let cwd = checkout(&w, "a");
    std::fs::create_dir_all(w.state.join("local")).unwrap();
    let fifo = w.record_path(SLUG);
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let out = run_bounded(w.the_loop_command(&start_args(&cwd, REF)));
    assert_nothing_spawned(&w, &out);
    assert!(stderr(&out).contains("a FIFO"), "{}", stderr(&out));
    let kind = std::fs::symlink_metadata(&fifo).unwrap().file_type();
    assert!(std::os::unix::fs::FileTypeExt::is_fifo(&kind), "left alone");
    // A listing skips it too, and says nothing blocks.
    let out = run_bounded(w.the_loop_command(&["sessions", "list"]));
    assert_ne!(out.status.code(), Some(101));
}

/// A tmpfs mounted over a directory, unmounted on drop (also used by
/// `delivery_faults`).
pub(crate) struct TinyFs(PathBuf);

impl TinyFs {
    /// `None` (the test then says it skipped) when not root or when mount fails.
    #[allow(
        clippy::print_stderr,
        reason = "a skipped check must be seen in the test log"
    )]
    pub(crate) fn mount(at: &Path) -> Option<TinyFs> {
        if !nix_is_root() {
            eprintln!("SKIPPED: mounting a tmpfs needs root (CI runs as root)");
            return None;
        }
        std::fs::create_dir_all(at).unwrap();
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=256k,mode=0700", "tmpfs"])
            .arg(at)
            .output()
            .ok()?;
        if !out.status.success() {
            eprintln!("SKIPPED: mount -t tmpfs failed: {}", stderr(&out));
            return None;
        }
        Some(TinyFs(at.to_path_buf()))
    }

    /// Writes until the filesystem answers ENOSPC.
    pub(crate) fn fill(&self) {
        use std::io::Write;
        let mut file = std::fs::File::create(self.0.join("filler")).unwrap();
        let block = vec![0u8; 4096];
        loop {
            match file.write(&block) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) => {
                    assert_eq!(e.raw_os_error(), Some(28), "{e}");
                    break;
                }
            }
        }
        let probe = std::fs::write(self.0.join("probe"), b"x");
        assert!(probe.is_err(), "the filesystem is not full");
    }

    /// Gives back the room [`TinyFs::fill`] took.
    pub(crate) fn free(&self) {
        std::fs::remove_file(self.0.join("filler")).unwrap();
    }
}

impl Drop for TinyFs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

fn nix_is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

#[test]
fn a_full_state_root_is_refused_before_anything_spawns() {
    let w = World::new();
    let Some(fs) = TinyFs::mount(&w.state) else {
        return;
    };
    w.write_env("UNRELATED=1\n");
    // A first start works and leaves the queue counter and the event log
    // in place, as on any machine that has run the-loop before.
    let first = w.started_session("github:octo/repo#2", "github-octo-repo-2");
    // This ref was started here before, so its queue is in place too.
    let queue = w.state.join("run/queue").join(NAME);
    std::fs::create_dir_all(&queue).unwrap();
    std::fs::write(queue.join("counter"), b"1").unwrap();
    fs.fill();
    let cwd = checkout(&w, "a");
    let out = w.the_loop(&start_args(&cwd, REF));
    assert_ne!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(
        !w.tmux_sessions().iter().any(|s| s == NAME),
        "a session was spawned that could not be recorded: {}",
        stderr(&out)
    );
    assert!(
        transcripts(&w)
            .iter()
            .all(|t| t.ends_with(format!("{}.jsonl", first.session_id))),
        "a conversation was started: {:?}",
        transcripts(&w)
    );
    assert!(w.record(SLUG).is_none());
    assert!(
        flat(&stderr(&out)).contains("nothingwasstarted"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_cwd_that_is_a_regular_file_is_refused_naming_the_flag() {
    let w = World::new();
    w.write_env("UNRELATED=1\n");
    let file = w.work.join("notes.txt");
    std::fs::write(&file, b"not a directory").unwrap();
    let out = w.the_loop(&start_args(&file, REF));
    assert_nothing_spawned(&w, &out);
    let err = stderr(&out);
    assert!(err.contains("--cwd"), "{err}");
    assert!(err.contains("not a directory"), "{err}");
    assert!(w.record(SLUG).is_none());
}

#[test]
fn a_cwd_with_dotdot_is_canonicalised_and_never_widens_trust() {
    let w = World::new();
    w.write_env("UNRELATED=1\n");
    let workspace = w.work.join("ws");
    std::fs::create_dir_all(workspace.join("inside")).unwrap();
    let outside = checkout(&w, "outside");
    w.write_config_with_routing(&format!(
        "  workspace:\n    root: {}\n",
        workspace.display()
    ));
    // Lexically under the workspace, really beside it.
    let sneaky = workspace.join("inside/../../outside");
    let out = w.the_loop(&start_args(&sneaky, REF));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let record = w.record(SLUG).unwrap();
    assert_eq!(record["cwd"], outside.to_str().unwrap());
    let config: serde_json::Value =
        serde_json::from_slice(&std::fs::read(w.home.join(".claude.json")).unwrap()).unwrap();
    let keys: Vec<&String> = config["projects"].as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        vec![outside.to_str().unwrap()],
        "only the real directory is trusted, never the workspace root nor a `..` key"
    );
}

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .permissions()
        .mode()
        & 0o777
}

/// Runs the-loop under `umask 000`.
fn the_loop_umask_000(w: &World, args: &[&str]) -> Output {
    let inner = w.the_loop_command(args);
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg("umask 000; exec \"$@\"")
        .arg("sh")
        .arg(inner.get_program())
        .args(inner.get_args());
    for (k, v) in inner.get_envs() {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    cmd.output().unwrap()
}

#[test]
fn state_files_are_private_whatever_the_umask() {
    let w = World::new();
    w.write_env("UNRELATED=1\n");
    let cwd = checkout(&w, "a");
    let out = the_loop_umask_000(&w, &start_args(&cwd, REF));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = the_loop_umask_000(&w, &["apply", "--auto-approve"]);
    assert_ne!(out.status.code(), Some(101), "{}", stderr(&out));
    for file in [
        w.record_path(SLUG),
        w.state.join("events.jsonl"),
        w.state.join("apply.lock"),
        w.state.join("run/queue").join(NAME).join("counter"),
    ] {
        assert_eq!(mode(&file), 0o600, "{}", file.display());
    }
    for dir in [w.state.join("local"), w.state.join("run/queue")] {
        assert_eq!(mode(&dir), 0o700, "{}", dir.display());
    }
}

#[test]
fn state_files_are_never_written_through_a_symlink() {
    let w = World::new();
    w.write_env("UNRELATED=1\n");
    let cwd = checkout(&w, "a");
    let victims = w.root().join("victims");
    std::fs::create_dir_all(&victims).unwrap();
    let queue = w.state.join("run/queue").join(NAME);
    std::fs::create_dir_all(&queue).unwrap();
    let planted = [
        ("events", w.state.join("events.jsonl")),
        ("lock", w.state.join("apply.lock")),
        ("counter", queue.join("counter")),
    ];
    for (name, at) in &planted {
        std::fs::write(victims.join(name), b"victim\n").unwrap();
        std::os::unix::fs::symlink(victims.join(name), at).unwrap();
    }
    // The queue counter is a link: the start refuses rather than write it.
    let out = w.the_loop(&start_args(&cwd, REF));
    assert_ne!(out.status.code(), Some(101), "{}", stderr(&out));
    let out = w.the_loop(&["apply", "--auto-approve"]);
    assert_ne!(
        out.status.code(),
        Some(0),
        "the lock is a link: {}",
        stdout(&out)
    );
    assert!(stderr(&out).contains("apply.lock"), "{}", stderr(&out));
    for (name, at) in &planted {
        assert_eq!(
            std::fs::read(victims.join(name)).unwrap(),
            b"victim\n",
            "{name} was written through {}",
            at.display()
        );
    }
}
