//! Issue 35, point 6: a refused roll names the process that really holds
//! `apply.lock`, found through the kernel's lock table, not the pid an
//! earlier holder left in the file.

use crate::support::*;
use std::os::unix::fs::OpenOptionsExt;
use std::process::{Command, Stdio};

/// Pids holding a lock on the file with this inode, from `/proc/locks`.
fn lock_holders(inode: u64) -> Vec<u32> {
    std::fs::read_to_string("/proc/locks")
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.contains("->"))
        .filter_map(|l| {
            let fields: Vec<&str> = l.split_whitespace().collect();
            let file_inode: u64 = fields.get(5)?.rsplit(':').next()?.parse().ok()?;
            (file_inode == inode).then(|| fields.get(4)?.parse().ok())?
        })
        .collect()
}

#[test]
fn a_refusal_names_the_process_holding_the_lock_not_the_pid_the_file_records() {
    let w = World::new();
    w.write_env("SLACK_BOT_TOKEN=xoxb-lock-holder-canary\n");
    std::fs::create_dir_all(&w.state).unwrap();
    let path = w.state.join("apply.lock");
    // An earlier holder's line, naming a live process (this test) that
    // does not hold the lock.
    let recorded = std::process::id();
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&path)
        .and_then(|mut f| {
            use std::io::Write;
            write!(f, "pid {recorded} (apply, since 2026-01-01T00:00:00Z)")
        })
        .unwrap();
    // Another process takes the lock and writes nothing: `flock -o` keeps
    // it in flock itself, not in the command it runs.
    let mut holder = Command::new("flock")
        .arg("-o")
        .arg(&path)
        .args(["sleep", "60"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("flock(1) from util-linux");
    let inode = std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(&path).unwrap());
    wait_for(
        || lock_holders(inode).contains(&holder.id()),
        "flock holds apply.lock",
    );
    let out = w.the_loop(&["apply", "--auto-approve"]);
    let _ = holder.kill();
    let _ = holder.wait();
    let text = stderr(&out);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    assert!(
        text.contains("another apply or restart is running"),
        "{text}"
    );
    assert!(
        flat(&text).contains(&flat(&format!("running (pid {} (flock)", holder.id()))),
        "names the real holder: {text}"
    );
    assert!(
        !flat(&text).contains(&flat(&format!("running (pid {recorded}"))),
        "not the pid the file records: {text}"
    );
}

/// The process that took the lock handed its open file to a child and
/// died: `/proc/locks` still names the dead taker, and the refusal names
/// the child that holds the lock now.
#[test]
fn a_refusal_names_the_child_that_inherited_the_lock() {
    let w = World::new();
    w.write_env("SLACK_BOT_TOKEN=xoxb-lock-holder-canary\n");
    std::fs::create_dir_all(&w.state).unwrap();
    let path = w.state.join("apply.lock");
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&path)
        .unwrap();
    let inode = std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(&path).unwrap());
    // Without -o, the command flock runs inherits the locked file.
    let mut taker = Command::new("flock")
        .arg(&path)
        .args(["sleep", "60"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("flock(1) from util-linux");
    let children = format!("/proc/{0}/task/{0}/children", taker.id());
    let mut child = 0;
    wait_for(
        || {
            child = std::fs::read_to_string(&children)
                .unwrap_or_default()
                .trim()
                .parse()
                .unwrap_or(0);
            child != 0 && lock_holders(inode).contains(&taker.id())
        },
        "flock holds apply.lock and runs its command",
    );
    let _ = taker.kill();
    let _ = taker.wait();
    let out = w.the_loop(&["apply", "--auto-approve"]);
    let _ = Command::new("kill").arg(child.to_string()).status();
    let text = stderr(&out);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    assert!(
        flat(&text).contains(&flat(&format!("running (pid {child} (sleep)"))),
        "names the child holding the lock, not the dead taker {}: {text}",
        taker.id()
    );
}
