//! Issue 34, part 3: every file the-loop reads is read without blocking and
//! within a bound. A FIFO, a device or a huge file where the env file, an
//! intent journal entry, an activity file or a record belongs is refused at
//! once (or read only as far as needed), naming the path; a forged journal
//! entry is reported as forged and never acted on; `watch` ends within a
//! second of SIGTERM whatever sits where its env file belongs.

use crate::support::*;
use std::io::{Read, Seek, Write};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A command that has not ended by now hangs. Each ends in well under a
/// second on a quiet machine; this leaves room for a loaded one.
const WITHIN: Duration = Duration::from_secs(10);
/// Peak resident memory any of these commands may reach. `plan` at 500
/// sessions peaks near 12 MiB (docs/bench/2026-12-01-session6-summary.md);
/// reading a hostile file whole cost gigabytes.
const MODEST_KIB: u64 = 64 * 1024;
/// A sparse file this large costs no disk, and gigabytes to read whole.
const HUGE: u64 = 3 << 30;

struct Ran {
    out: Output,
    peak_kib: u64,
}

/// The peak resident memory of `pid` so far (`VmHWM`), in KiB.
fn peak_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find_map(|l| l.strip_prefix("VmHWM:"))?;
    line.trim().trim_end_matches("kB").trim().parse().ok()
}

fn output_file() -> std::fs::File {
    tempfile::tempfile().unwrap()
}

fn contents(mut file: std::fs::File) -> Vec<u8> {
    let mut bytes = Vec::new();
    file.rewind().unwrap();
    file.read_to_end(&mut bytes).unwrap();
    bytes
}

/// Runs `cmd` to its end. Fails the test (after killing it) when it is
/// still running after [`WITHIN`] or its memory passes [`MODEST_KIB`].
fn run_bounded(mut cmd: Command) -> Ran {
    let (stdout, stderr) = (output_file(), output_file());
    cmd.stdin(Stdio::null())
        .stdout(stdout.try_clone().unwrap())
        .stderr(stderr.try_clone().unwrap());
    let mut child = cmd.spawn().expect("run the-loop");
    let started = Instant::now();
    let mut peak = 0;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        peak = peak_kib(child.id()).unwrap_or(0).max(peak);
        let hung = started.elapsed() > WITHIN;
        if hung || peak > MODEST_KIB {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "{cmd:?} {}; stderr so far: {}",
                if hung { "hung" } else { "grew past 64 MiB" },
                String::from_utf8_lossy(&contents(stderr))
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let out = Output {
        status,
        stdout: contents(stdout),
        stderr: contents(stderr),
    };
    assert_ne!(
        out.status.code(),
        Some(101),
        "panicked: {}",
        stderr_of(&out)
    );
    Ran {
        out,
        peak_kib: peak,
    }
}

fn stderr_of(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn fifo_at(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let made = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(made.success());
}

/// What a hostile file is said to be, and how it is put in place.
type Plant = (&'static str, fn(&Path));

fn link_to_dev_zero(path: &Path) {
    std::os::unix::fs::symlink("/dev/zero", path).unwrap();
}

fn sparse_at(path: &Path, size: u64, tail: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut file = std::fs::File::create(path).unwrap();
    file.set_len(size - tail.len() as u64).unwrap();
    file.seek(std::io::SeekFrom::End(0)).unwrap();
    file.write_all(tail).unwrap();
}

/// The commands that read the env file, each as one argument list. All
/// but `status` fail; `status` reports the env file as not usable.
fn env_readers(w: &World) -> Vec<Vec<String>> {
    let config = w.config_path.to_str().unwrap().to_owned();
    [
        vec!["plan"],
        vec!["status"],
        vec!["apply", "--auto-approve"],
        vec!["api-key-helper", "--config", &config],
    ]
    .into_iter()
    .map(|args| args.into_iter().map(str::to_owned).collect())
    .collect()
}

fn the_loop_bounded(w: &World, args: &[String]) -> Ran {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run_bounded(w.the_loop_command(&args))
}

fn assert_refused_naming(ran: &Ran, path: &Path, what: &str, fails: bool) {
    let text = stderr_of(&ran.out);
    if fails {
        assert_ne!(ran.out.status.code(), Some(0), "{text}");
    }
    assert!(text.contains(&path.display().to_string()), "{text}");
    assert!(text.contains(what), "{text}");
}

#[test]
fn a_fifo_env_file_is_refused_at_once_by_every_command_that_reads_it() {
    let w = World::new();
    w.write_config("  deliver: [ANTHROPIC_API_KEY]\n");
    fifo_at(&w.env_path);
    for args in env_readers(&w) {
        let ran = the_loop_bounded(&w, &args);
        assert_refused_naming(&ran, &w.env_path, "a FIFO", args[0] != "status");
    }
}

#[test]
fn an_env_file_linked_to_dev_zero_is_refused_without_reading_it() {
    let w = World::new();
    w.write_config("  deliver: [ANTHROPIC_API_KEY]\n");
    std::os::unix::fs::symlink("/dev/zero", &w.env_path).unwrap();
    for args in env_readers(&w) {
        let ran = the_loop_bounded(&w, &args);
        assert_refused_naming(&ran, &w.env_path, "a device", args[0] != "status");
        assert!(ran.peak_kib < MODEST_KIB, "{} KiB", ran.peak_kib);
    }
}

/// Starts `watch`, waits for it to name the env file as unreadable, sends
/// SIGTERM, and requires it gone within a second.
fn watch_refuses_the_env_file_and_ends_on_sigterm(w: &World, what: &str) {
    watch_refuses_and_ends_on_sigterm(w, &w.env_path, what);
}

/// [`watch_refuses_the_env_file_and_ends_on_sigterm`] for any file `watch` reads.
fn watch_refuses_and_ends_on_sigterm(w: &World, path: &Path, what: &str) {
    let stderr = output_file();
    let mut watch = w
        .the_loop_command(&["watch", "--interval", "1"])
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr.try_clone().unwrap())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let path = path.display().to_string();
    let said = || String::from_utf8_lossy(&contents(stderr.try_clone().unwrap())).into_owned();
    while !(said().contains(&path) && said().contains(what)) {
        let peak = peak_kib(watch.id()).unwrap_or(0);
        if started.elapsed() > WITHIN || peak > MODEST_KIB {
            let _ = watch.kill();
            let _ = watch.wait();
            panic!("watch never named {path} ({peak} KiB): {}", said());
        }
        assert!(watch.try_wait().unwrap().is_none(), "{}", said());
        std::thread::sleep(Duration::from_millis(20));
    }
    let sent = Instant::now();
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(watch.id() as i32),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    while watch.try_wait().unwrap().is_none() {
        if sent.elapsed() > Duration::from_secs(1) {
            let _ = watch.kill();
            let _ = watch.wait();
            panic!("watch outlived SIGTERM by a second: {}", said());
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn watch_names_a_fifo_env_file_and_ends_within_a_second_of_sigterm() {
    let w = World::new();
    fifo_at(&w.env_path);
    watch_refuses_the_env_file_and_ends_on_sigterm(&w, "a FIFO");
}

#[test]
fn watch_names_an_env_file_linked_to_dev_zero_and_ends_within_a_second_of_sigterm() {
    let w = World::new();
    std::os::unix::fs::symlink("/dev/zero", &w.env_path).unwrap();
    watch_refuses_the_env_file_and_ends_on_sigterm(&w, "a device");
}

#[test]
fn a_config_that_is_a_fifo_or_a_device_is_refused_at_once() {
    let plants: [Plant; 2] = [("a FIFO", fifo_at), ("a device", link_to_dev_zero)];
    for (what, plant) in plants {
        let w = World::new();
        w.write_env("UNRELATED=1\n");
        std::fs::remove_file(&w.config_path).unwrap();
        plant(&w.config_path);
        for args in [["plan"], ["status"]] {
            let ran = the_loop_bounded(&w, &args.map(str::to_owned));
            let text = flat(&stderr_of(&ran.out));
            assert_ne!(ran.out.status.code(), Some(0), "{text}");
            assert!(text.contains(&flat(&w.config_path.display().to_string())));
            assert!(text.contains(&flat(what)), "{text}");
        }
    }
}

/// A state file the-loop writes itself (the watch memory) found to be a
/// FIFO, or a link to a device, is named and left alone, and `watch`
/// still ends within a second of SIGTERM.
#[test]
fn watch_names_a_hostile_state_file_and_ends_within_a_second_of_sigterm() {
    let plants: [Plant; 2] = [("a FIFO", fifo_at), ("a symbolic link", link_to_dev_zero)];
    for (what, plant) in plants {
        let w = World::new();
        w.write_env("UNRELATED=1\n");
        let memory = w.state.join("watch-state.json");
        std::fs::create_dir_all(&w.state).unwrap();
        plant(&memory);
        watch_refuses_and_ends_on_sigterm(&w, &memory, what);
    }
}

/// `plan`, `status` and `apply` each end, and say why `path` was skipped.
fn journal_readers_skip(w: &World, path: &Path, why: &[&str]) {
    for args in [&["plan"][..], &["status"], &["apply", "--auto-approve"]] {
        let ran = run_bounded(w.the_loop_command(args));
        let text = stderr_of(&ran.out);
        assert!(text.contains(&path.display().to_string()), "{text}");
        for word in why {
            assert!(text.contains(word), "{text}");
        }
        assert!(ran.peak_kib < MODEST_KIB, "{args:?}: {} KiB", ran.peak_kib);
    }
}

#[test]
fn a_fifo_in_the_journal_is_skipped_without_blocking() {
    let w = World::new();
    w.write_env("UNRELATED=1\n");
    let fifo = w.state.join("journal").join("loop-github-octo-repo-9.json");
    fifo_at(&fifo);
    journal_readers_skip(&w, &fifo, &["a FIFO"]);
}

#[test]
fn a_huge_journal_entry_is_refused_by_its_size_and_never_read() {
    let w = World::new();
    w.write_env("UNRELATED=1\n");
    let entry = w.state.join("journal").join("loop-github-octo-repo-9.json");
    sparse_at(&entry, HUGE, b"}");
    journal_readers_skip(&w, &entry, &[&HUGE.to_string(), "64 KiB"]);
}

/// Field 22 of `/proc/<pid>/stat`: the process's start time.
fn start_of(pid: i32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let after = &stat[stat.rfind(')').unwrap() + 2..];
    after.split(' ').nth(19).unwrap().parse().unwrap()
}

#[test]
fn activity_files_are_read_only_for_live_harnesses_and_only_at_their_tail() {
    let w = World::new();
    w.write_env("UNRELATED=1\n");
    let s = w.legacy_session("github:octo/repo#34", "github-octo-repo-34");
    let pid = w.pane(&s.name).unwrap().pid;
    // The live harness's file: gigabytes of nothing, then its newest record.
    let line = format!(
        "\n{{\"event\":\"SessionStart\",\"at_ms\":1,\"session_id\":\"{}\",\"source\":\"startup\",\"pid\":{pid},\"start\":{}}}\n",
        s.session_id,
        start_of(pid)
    );
    sparse_at(
        &w.state.join(format!("activity/{pid}.jsonl")),
        HUGE,
        line.as_bytes(),
    );
    // A process nobody asks about: never read at all.
    sparse_at(&w.state.join("activity/4194301.jsonl"), HUGE, b"\n");
    let ran = run_bounded(w.the_loop_command(&["sessions", "list", "--json"]));
    assert_eq!(ran.out.status.code(), Some(0), "{}", stderr_of(&ran.out));
    let list: serde_json::Value = serde_json::from_slice(&ran.out.stdout).unwrap();
    assert_eq!(
        session_in(&list, &s.reference)["activity"],
        "idle",
        "{list}"
    );
    assert!(ran.peak_kib < MODEST_KIB, "{} KiB", ran.peak_kib);
    let ran = run_bounded(w.the_loop_command(&["plan", "--json"]));
    assert_eq!(ran.out.status.code(), Some(0), "{}", stderr_of(&ran.out));
    assert!(ran.peak_kib < MODEST_KIB, "{} KiB", ran.peak_kib);
}

/// A legacy session whose harness was killed: its pane stays dead.
fn dead_session(w: &World) -> (LegacySession, Pane) {
    let s = w.legacy_session("github:octo/repo#35", "github-octo-repo-35");
    let pane = w.pane(&s.name).unwrap();
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pane.pid),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    wait_for(|| w.pane(&s.name).is_some_and(|p| p.dead), "the pane died");
    (s, pane)
}

fn write_entry(w: &World, s: &LegacySession, pane: &Pane, old_pid: i32, transcript: &Path) {
    let entry = serde_json::json!({
        "ref": s.reference, "standing": null, "tmux_target": s.name,
        "pane_id": pane.id, "old_pid": old_pid, "harness_session_id": s.session_id,
        "cwd": s.cwd, "transcript": transcript, "since": "2026-12-01T00:00:00Z",
    });
    let path = w.state.join("journal").join(format!("{}.json", s.name));
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, entry.to_string()).unwrap();
}

/// `plan` and `apply` report the entry as forged in `field`, naming its
/// file, and the dead pane is left as it is.
fn reported_as_forged(w: &World, s: &LegacySession, pane: &Pane, field: &str) {
    let entry = w.state.join("journal").join(format!("{}.json", s.name));
    let plan = json(&w.the_loop(&["plan", "--json"]));
    let why = session_in(&plan, &s.reference)["left_alone"].to_string();
    for word in ["forged", field, &entry.display().to_string()] {
        assert!(why.contains(word), "{why}");
    }
    let out = w.the_loop(&["apply", "--auto-approve", "--json"]);
    let report = json(&out);
    let done = session_in(&report, &s.reference);
    assert_eq!(done["outcome"], "left_alone", "{done}");
    assert!(done["detail"].to_string().contains("forged"), "{done}");
    assert_ne!(done["old_pid"], 1, "a forged pid is not printed as fact");
    let text = stdout(&w.the_loop(&["apply", "--auto-approve"]));
    assert!(!text.contains("pid 1 "), "{text}");
    let now = w.pane(&s.name).unwrap();
    assert!(now.dead && now.pid == pane.pid, "never acted on: {now:?}");
}

#[test]
fn a_forged_journal_entry_is_reported_as_forged_and_never_acted_on() {
    let w = World::new();
    w.write_env("UNRELATED=1\n");
    let (s, pane) = dead_session(&w);
    write_entry(&w, &s, &pane, 1, &w.transcript(&s));
    reported_as_forged(&w, &s, &pane, "old_pid");
    // A transcript elsewhere: a regular file, not where the harness keeps
    // this conversation.
    let decoy = w.root().join("decoy.jsonl");
    std::fs::write(&decoy, "{}\n").unwrap();
    write_entry(&w, &s, &pane, pane.pid, &decoy);
    reported_as_forged(&w, &s, &pane, "transcript");
    // The entry a roll would have written is still taken up.
    write_entry(&w, &s, &pane, pane.pid, &w.transcript(&s));
    let plan = json(&w.the_loop(&["plan", "--json"]));
    let session = session_in(&plan, &s.reference);
    assert_eq!(session["action"], "resume", "{session}");
    assert!(session["left_alone"].is_null(), "{session}");
}

#[test]
fn a_symlinked_record_is_refused_not_followed() {
    let w = World::new();
    w.write_env("UNRELATED=1\n");
    let s = LegacySession {
        reference: "github:octo/repo#36".into(),
        slug: "github-octo-repo-36".into(),
        name: "loop-github-octo-repo-36".into(),
        session_id: "0000-github-octo-repo-36".into(),
        cwd: w.work.clone(),
    };
    w.write_record(&s, "active");
    let record = w.record_path(&s.slug);
    let elsewhere = w.root().join("elsewhere.json");
    std::fs::rename(&record, &elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &record).unwrap();
    for args in [&["sessions", "list", "--json"][..], &["plan", "--json"]] {
        let ran = run_bounded(w.the_loop_command(args));
        let doc: serde_json::Value = serde_json::from_slice(&ran.out.stdout).unwrap();
        let corrupt = doc["corrupt_records"].to_string();
        assert!(corrupt.contains("symbolic link"), "{args:?}: {doc}");
        assert!(!doc.to_string().contains(&s.reference), "{args:?}: {doc}");
    }
}
