//! Issue 43, fault 3: something that is not a regular file where an intent
//! journal entry belongs (a FIFO) is not the-loop's: it is never opened (it
//! could block) and never removed. What `apply` says of it and what is left
//! on disk agree: left alone, and still there.

use crate::start_faults::run_bounded;
use crate::support::*;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

fn fifo_at(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    nix::unistd::mkfifo(path, nix::sys::stat::Mode::S_IRWXU).unwrap();
}

fn is_fifo(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_fifo())
}

fn entry_of(w: &World, s: &LegacySession) -> PathBuf {
    w.state.join("journal").join(format!("{}.json", s.name))
}

/// An up-to-date session: `apply` clears stale journal entries of such
/// sessions, and once removed the FIFO it had just said it left alone.
#[test]
fn a_fifo_in_an_up_to_date_sessions_journal_place_is_left_alone_and_kept() {
    let w = World::new();
    w.write_env("UNRELATED=1\n");
    let s = w.started_session("github:octo/fifo43#1", "github-octo-fifo43-1");
    let fifo = entry_of(&w, &s);
    fifo_at(&fifo);
    let out = run_bounded(w.the_loop_command(&["apply", "--auto-approve", "--json"]));
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let report = json(&out);
    assert_eq!(session_in(&report, &s.reference)["outcome"], "up_to_date");
    let said = flat(&stderr(&out));
    assert!(said.contains(&flat(&fifo.display().to_string())), "{said}");
    assert!(
        said.contains("aFIFO") && said.contains("leftalone"),
        "{said}"
    );
    assert!(
        is_fifo(&fifo),
        "the FIFO it said it left alone is still there"
    );
}

/// A drifted session: the roll cannot write its intent there, so it
/// signals nothing, says so, and the FIFO stays.
#[test]
fn a_fifo_in_a_drifted_sessions_journal_place_stops_its_roll_and_is_kept() {
    let w = World::new();
    w.write_env("SLACK_BOT_TOKEN=retired-fifo43\n");
    w.start_server_holding(&[("SLACK_BOT_TOKEN", "retired-fifo43")]);
    let s = w.legacy_session("github:octo/fifo43#2", "github-octo-fifo43-2");
    w.write_env("SLACK_BOT_TOKEN=rotated-fifo43\n");
    let pid = w.pane(&s.name).unwrap().pid;
    let fifo = entry_of(&w, &s);
    fifo_at(&fifo);
    let out = run_bounded(w.the_loop_command(&["apply", "--auto-approve", "--json"]));
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    let report = json(&out);
    let session = session_in(&report, &s.reference);
    assert_eq!(session["outcome"], "left_alone", "{report}");
    let detail = session["detail"].as_str().unwrap();
    assert!(
        detail.contains("a FIFO") && detail.contains("not touched"),
        "{detail}"
    );
    assert_eq!(w.pane(&s.name).unwrap().pid, pid, "never signalled");
    assert!(is_fifo(&fifo), "still there");
}
