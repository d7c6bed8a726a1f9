//! Issue 11, classes 5 and 6 on a real tmux: one work item is one session
//! (refs that share a slug or a tmux name are refused, case is folded as
//! GitHub folds it, and a pane running another ref's harness is never
//! rolled), and a conversation is found where the session keeps it, never
//! where the caller's environment says.

use crate::support::*;
use std::path::{Path, PathBuf};
use std::process::Output;

fn checkout(w: &World, dir: &str) -> PathBuf {
    let cwd = w.work.join(dir);
    std::fs::create_dir_all(&cwd).unwrap();
    cwd.canonicalize().unwrap()
}

fn start(w: &World, reference: &str, cwd: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "sessions",
        "start",
        reference,
        "--cwd",
        cwd.to_str().unwrap(),
        "--json",
    ];
    args.extend_from_slice(extra);
    w.the_loop(&args)
}

fn live_pid(w: &World, name: &str) -> i32 {
    let mut pid = 0;
    wait_for(
        || {
            w.pane(name).is_some_and(|p| {
                pid = p.pid;
                !p.dead && cmdline(p.pid).iter().any(|a| a.contains("claude"))
            })
        },
        "the harness is running",
    );
    pid
}

/// The ids on the harness's command line (`--session-id` or `--resume`).
fn conversation_of(pid: i32) -> (String, String) {
    let argv = cmdline(pid);
    let at = argv
        .iter()
        .position(|a| a == "--resume" || a == "--session-id")
        .unwrap_or_else(|| panic!("no conversation flag in {argv:?}"));
    (argv[at].clone(), argv[at + 1].clone())
}

#[test]
fn refs_sharing_a_tmux_name_are_refused_naming_the_other() {
    let w = World::new();
    w.write_env("UNRELATED=1\n");
    let cwd = checkout(&w, "a");
    let first = start(&w, "github:octo/.repo#1", &cwd, &[]);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let name = json(&first)["tmux_target"].as_str().unwrap().to_owned();
    let pid = live_pid(&w, &name);

    let second = start(&w, "github:octo/_repo#1", &cwd, &[]);
    assert_eq!(second.status.code(), Some(1), "{}", stdout(&second));
    let err = stderr(&second);
    assert!(
        flat(&err).contains("github:octo/.repo#1"),
        "names the owner: {err}"
    );
    assert!(flat(&err).contains("tmuxsessionname"), "{err}");
    assert!(w.record("github-octo-_repo-1").is_none());
    assert_eq!(
        w.pane(&name).unwrap().pid,
        pid,
        "the first session is untouched"
    );
    assert_eq!(w.tmux_sessions(), vec![name]);
}

#[test]
fn refs_sharing_a_slug_are_refused_naming_the_other() {
    let w = World::new();
    w.write_env("UNRELATED=1\n");
    let cwd = checkout(&w, "a");
    let first = start(&w, "github:octo/repo/extra#1", &cwd, &[]);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let before = w.record("github-octo-repo-extra-1").unwrap();
    let name = json(&first)["tmux_target"].as_str().unwrap().to_owned();
    let pid = live_pid(&w, &name);

    let second = start(&w, "github:octo/repo-extra#1", &cwd, &[]);
    assert_eq!(second.status.code(), Some(1), "{}", stdout(&second));
    let err = stderr(&second);
    assert!(flat(&err).contains("github:octo/repo/extra#1"), "{err}");
    assert!(flat(&err).contains("registryfilename"), "{err}");
    assert_eq!(w.record("github-octo-repo-extra-1").unwrap(), before);
    assert_eq!(w.pane(&name).unwrap().pid, pid);
}

#[test]
fn owner_and_repo_match_without_regard_to_case() {
    let w = World::new();
    w.write_env("UNRELATED=1\n");
    let cwd = checkout(&w, "a");
    let s = w.started_session_in("github:octo/repo#15", "github-octo-repo-15", &cwd);
    let pid = live_pid(&w, &s.name);

    let again = start(&w, "github:Octo/Repo#15", &cwd, &[]);
    assert_ne!(again.status.code(), Some(0), "{}", stdout(&again));
    assert!(
        stderr(&again).contains("is recorded as github:octo/repo#15"),
        "{}",
        stderr(&again)
    );
    assert_eq!(w.tmux_sessions(), vec![s.name.clone()], "no second session");
    assert!(w.record("github-Octo-Repo-15").is_none());
    assert_eq!(w.pane(&s.name).unwrap().pid, pid);

    // A delivery under the other spelling reaches the one session.
    let out = w.the_loop(&[
        "sessions",
        "deliver",
        "github:Octo/Repo#15",
        "--message",
        "hello from another spelling",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    wait_for(
        || {
            w.inputs(&s)
                .iter()
                .any(|l| l.contains("hello from another spelling"))
        },
        "the text reached the recorded session",
    );
    assert_eq!(w.tmux_sessions(), vec![s.name.clone()]);
}

/// Two records that already meet on one tmux name (written before the
/// refusal existed): the pane runs `.repo`'s harness, so a roll for `_repo`
/// must not end it and resume `_repo`'s conversation in its place.
#[test]
fn a_roll_never_swaps_the_conversation_of_a_shared_tmux_name() {
    let w = World::new();
    w.write_env("TOKEN=one\n");
    let cwd = checkout(&w, "a");
    let first = start(&w, "github:octo/_repo#1", &cwd, &[]);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let started = json(&first);
    let name = started["tmux_target"].as_str().unwrap().to_owned();
    let own_id = started["harness_session_id"].as_str().unwrap().to_owned();
    let pid = live_pid(&w, &name);

    // The colliding record, with a conversation of its own on disk.
    let other = LegacySession {
        reference: "github:octo/.repo#1".into(),
        slug: "github-octo-.repo-1".into(),
        name: name.clone(),
        session_id: "0000-other-conversation".into(),
        cwd: cwd.clone(),
    };
    w.write_record(&other, "active");
    let transcript = w.transcript(&other);
    std::fs::create_dir_all(transcript.parent().unwrap()).unwrap();
    std::fs::write(&transcript, "{\"type\":\"start\"}\n").unwrap();

    // Drift for both records: a delivered name the pane does not hold.
    w.write_config("  deliver: [TOKEN]\n");
    let plan = json(&w.the_loop(&["plan", "--json"]));
    let entry = plan["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["ref"] == "github:octo/.repo#1")
        .unwrap_or_else(|| panic!("{plan}"))
        .clone();
    assert_eq!(entry["action"], "skip", "{entry}");
    assert!(
        entry["reason"]
            .as_str()
            .unwrap()
            .contains("github:octo/_repo#1"),
        "{entry}"
    );

    let out = w.the_loop(&["apply", "--auto-approve"]);
    assert_ne!(out.status.code(), Some(101), "{}", stderr(&out));
    let now = live_pid(&w, &name);
    let (_, id) = conversation_of(now);
    assert_eq!(id, own_id, "the pane still runs its own conversation");
    assert!(
        !std::fs::read_to_string(&transcript)
            .unwrap()
            .contains("resume"),
        "the other conversation was never resumed in its place"
    );
    if now != pid {
        assert_eq!(environ(now)["THE_LOOP_WORK_ITEM"], "github:octo/_repo#1");
    }
}

#[test]
fn a_start_on_an_existing_record_resumes_its_conversation() {
    let w = World::new();
    w.write_env("UNRELATED=1\n");
    let cwd = checkout(&w, "a");
    let s = w.started_session_in("github:octo/repo#3", "github-octo-repo-3", &cwd);
    live_pid(&w, &s.name);
    w.tmux_ok(&["kill-session", "-t", &s.name]);

    let again = start(&w, "github:octo/repo#3", &cwd, &[]);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    let report = json(&again);
    assert_eq!(report["harness_session_id"], s.session_id.as_str());
    assert_eq!(report["resumed"], true);
    let pid = live_pid(&w, &s.name);
    assert_eq!(
        conversation_of(pid),
        ("--resume".to_owned(), s.session_id.clone())
    );
    assert_eq!(
        w.record("github-octo-repo-3").unwrap()["harnessSessionId"],
        s.session_id.as_str()
    );

    // A fresh one only when asked, and said aloud.
    w.tmux_ok(&["kill-session", "-t", &s.name]);
    let fresh = start(&w, "github:octo/repo#3", &cwd, &["--fresh"]);
    assert_eq!(fresh.status.code(), Some(0), "{}", stderr(&fresh));
    assert!(
        stderr(&fresh).contains("fresh conversation"),
        "{}",
        stderr(&fresh)
    );
    let report = json(&fresh);
    assert_eq!(report["resumed"], false);
    assert_ne!(report["harness_session_id"], s.session_id.as_str());
}

#[test]
fn a_start_that_cannot_resume_refuses_instead_of_minting() {
    let w = World::new();
    w.write_env("UNRELATED=1\n");
    let cwd = checkout(&w, "a");
    let s = w.started_session_in("github:octo/repo#4", "github-octo-repo-4", &cwd);
    live_pid(&w, &s.name);
    w.tmux_ok(&["kill-session", "-t", &s.name]);
    // The stand-in writes the hang-up into its transcript on the way out.
    wait_for(
        || w.transcript_text(&s).contains("\"signal\""),
        "the harness ended",
    );
    std::fs::remove_file(w.transcript(&s)).unwrap();
    let out = start(&w, "github:octo/repo#4", &cwd, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(flat(&stderr(&out)).contains("--fresh"), "{}", stderr(&out));
    assert!(w.tmux_sessions().is_empty(), "nothing was started");
    assert_eq!(
        w.record("github-octo-repo-4").unwrap()["harnessSessionId"],
        s.session_id.as_str()
    );
}

/// The session's harness keeps its conversations under the
/// `CLAUDE_CONFIG_DIR` the tmux server gave it. A caller whose own differs
/// must still resume that conversation, not mint a new one.
#[test]
fn the_callers_environment_never_decides_where_the_conversation_is() {
    let w = World::new();
    w.write_env("UNRELATED=1\n");
    let session_dir = w.root().join("session-claude");
    let caller_dir = w.root().join("caller-claude");
    std::fs::create_dir_all(&session_dir).unwrap();
    std::fs::create_dir_all(&caller_dir).unwrap();
    w.start_server_holding(&[("CLAUDE_CONFIG_DIR", session_dir.to_str().unwrap())]);
    let cwd = checkout(&w, "a");
    let first = start(&w, "github:octo/repo#5", &cwd, &[]);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let started = json(&first);
    let name = started["tmux_target"].as_str().unwrap().to_owned();
    let id = started["harness_session_id"].as_str().unwrap().to_owned();
    let pid = live_pid(&w, &name);
    assert_eq!(
        environ(pid)["CLAUDE_CONFIG_DIR"],
        session_dir.to_str().unwrap()
    );
    w.tmux_ok(&["kill-session", "-t", &name]);

    // A delivery from a shell with another CLAUDE_CONFIG_DIR respawns it.
    let caller = [("CLAUDE_CONFIG_DIR", caller_dir.to_str().unwrap())];
    let out = w.the_loop_with(
        &[
            "sessions",
            "deliver",
            "github:octo/repo#5",
            "--message",
            "wake up",
        ],
        &caller,
    );
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let pid = live_pid(&w, &name);
    assert_eq!(conversation_of(pid), ("--resume".to_owned(), id.clone()));
    assert_eq!(
        w.record("github-octo-repo-5").unwrap()["harnessSessionId"],
        id.as_str()
    );
    assert!(
        !caller_dir.join("projects").exists(),
        "no conversation was minted under the caller's directory"
    );

    // And a start from that shell resumes it too.
    w.tmux_ok(&["kill-session", "-t", &name]);
    let again = w.the_loop_with(
        &[
            "sessions",
            "start",
            "github:octo/repo#5",
            "--cwd",
            cwd.to_str().unwrap(),
            "--json",
        ],
        &caller,
    );
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert_eq!(json(&again)["resumed"], true);
    assert_eq!(json(&again)["harness_session_id"], id.as_str());
}
