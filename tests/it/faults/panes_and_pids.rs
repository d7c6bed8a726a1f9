//! Panes and pids that change under us between the plan, the apply and the signal.

use super::*;

#[test]
fn a_pane_that_exits_between_plan_and_apply_is_reported_and_never_restarted() {
    let (w, sessions) = rotated_world(2);
    let baseline = Baseline::take(&w);
    // The canary (the first session) ignores SIGTERM, so the roll is slow
    // enough for the second session's harness to exit while it runs.
    slow_to_end(&w, &sessions[0]);
    let second = w.pane(&sessions[1].name).unwrap();
    let child = spawn(
        &w,
        &["apply", "--auto-approve", "--json", "--parallelism", "1"],
        &[],
    );
    wait_for(
        || w.transcript_text(&sessions[0]).contains("TERM-ignored"),
        "the canary is being ended",
    );
    kill(Pid::from_raw(second.pid), Signal::SIGKILL).unwrap();
    wait_for(
        || w.pane(&sessions[1].name).unwrap().dead,
        "the second harness exited",
    );
    let out = finish(child, "apply");
    let report = json(&out);
    assert_eq!(
        session_in(&report, &sessions[0].reference)["outcome"],
        "restarted"
    );
    let gone = session_in(&report, &sessions[1].reference);
    assert_eq!(gone["outcome"], "skipped", "{gone}");
    assert!(
        gone["detail"].as_str().unwrap().contains("exited"),
        "{gone}"
    );
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let pane = w.pane(&sessions[1].name).unwrap();
    assert!(
        pane.dead,
        "not restarted: a stopped session is start's business"
    );
    assert!(!w.transcript_text(&sessions[1]).contains("resume"));
    baseline.holds(&w, &sessions);
    assert_clean(&[&out]);
}

#[test]
fn a_saved_plan_whose_pane_changed_is_refused_and_nothing_is_signalled() {
    let (w, sessions) = rotated_world(2);
    let baseline = Baseline::take(&w);
    let saved = w.root().join("plan.json");
    assert!(w
        .the_loop(&["plan", "--out", saved.to_str().unwrap()])
        .status
        .success());
    // The second pane's process is replaced by another one (same pane, new pid).
    let old = w.pane(&sessions[1].name).unwrap();
    kill(Pid::from_raw(old.pid), Signal::SIGKILL).unwrap();
    wait_for(|| w.pane(&sessions[1].name).unwrap().dead, "exited");
    w.tmux_ok(&[
        "respawn-pane",
        "-t",
        &old.id,
        "claude",
        "--resume",
        &sessions[1].session_id,
    ]);
    let first_pid = w.pane(&sessions[0].name).unwrap().pid;
    let out = w.the_loop(&["apply", "--plan", saved.to_str().unwrap(), "--auto-approve"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(&format!("pane pid of {} changed", sessions[1].reference)),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        w.pane(&sessions[0].name).unwrap().pid,
        first_pid,
        "nothing touched"
    );
    baseline.holds(&w, &sessions);
}

#[test]
fn a_pid_reused_between_the_read_and_the_signal_is_never_signalled() {
    use the_loop::runner::signal::{end_gracefully, Ending, ProcessHandle};
    let mut first = std::process::Command::new("sleep")
        .arg("1000")
        .spawn()
        .unwrap();
    let pid = first.id() as i32;
    let handle = ProcessHandle::open(pid).unwrap();
    first.kill().unwrap();
    first.wait().unwrap();

    // Make the kernel hand the same pid to a new, unrelated process. Any
    // process forked elsewhere on the machine between the write and the
    // spawn takes the pid first (two builds beside the suite did, 200
    // times in a row): the attempts are many, and cheap.
    let mut reused = None;
    for _ in 0..5000 {
        std::fs::write("/proc/sys/kernel/ns_last_pid", (pid - 1).to_string())
            .expect("forcing a pid needs root (CAP_SYS_ADMIN), as CI has");
        let mut candidate = std::process::Command::new("sleep")
            .arg("1000")
            .spawn()
            .unwrap();
        if candidate.id() as i32 == pid {
            reused = Some(candidate);
            break;
        }
        candidate.kill().unwrap();
        candidate.wait().unwrap();
    }
    let mut stranger = reused.expect("the pid was reused");

    assert_eq!(
        handle.signal(Signal::SIGTERM),
        Err(nix::errno::Errno::ESRCH)
    );
    assert!(
        !handle.is_alive(),
        "the handle is on the process that exited"
    );
    assert_eq!(
        end_gracefully(&handle, Duration::from_millis(100)),
        Ending::AlreadyGone
    );
    std::thread::sleep(Duration::from_millis(100));
    assert!(
        stranger.try_wait().unwrap().is_none(),
        "the process that reused the pid was never signalled"
    );
    stranger.kill().unwrap();
    stranger.wait().unwrap();
}
