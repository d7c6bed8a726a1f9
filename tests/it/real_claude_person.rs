//! What a person has going in a real Claude Code session (the pinned CLI,
//! `.ci/run`) that a roll must not cut, driven through tmux as a person
//! drives it: a shell in the background (the model's `run_in_background`,
//! or a running tool sent there with Ctrl-B twice), the `/exit` menu over a
//! running tool in each permission mode, a prompt typed and not sent (and
//! an Escape mid-turn under `watch --apply`, `real_claude_person_watch`).
//! Each rotates the env file, then checks in /proc what the harness process
//! holds: the same pid, its tool alive, while the person is not done; the
//! new pid on the new value, resuming the recorded conversation, once they
//! are. The model is the Messages API stand-in (`support/messages-api`), as
//! in `real_claude_turns`, whose session and helpers these share.

use crate::real_claude::{real_claude, wait_long};
use crate::real_claude_turns::{real_session, Real, NEW, OLD};
use crate::support::api::StandInApi;
use crate::support::*;
use std::time::{Duration, Instant};
use the_loop::activity::Activity;

const REF: &str = "github:octo/repo#1";

/// The permission mode a person works in.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Mode {
    Manual,
    Auto,
    AcceptEdits,
}

/// A real session at its prompt in `mode`. tmux's prefix moves off C-b, so
/// that Ctrl-B reaches the CLI as it does for a person who moved theirs.
pub(crate) fn person(mode: Mode) -> Option<Real> {
    let real = match mode {
        Mode::Auto => real_session(false)?,
        Mode::Manual | Mode::AcceptEdits => bash_allowed()?,
    };
    real.w.tmux_ok(&["set", "-g", "prefix", "C-a"]);
    if let Mode::AcceptEdits = mode {
        // One shift+tab from manual mode.
        real.keys(&["BTab"]);
        shows(&real, "accept edits on");
    }
    Some(real)
}

/// `real_session(true)` (manual mode) with `Bash` allowed in the project's
/// settings, so a tool runs without a dialog (a dialog holds a roll on its
/// own, tested in `real_claude_turns`). The file is written before the
/// CLI starts: it reads its settings then.
fn bash_allowed() -> Option<Real> {
    let claude = real_claude()?;
    let w = World::new();
    let api = StandInApi::start("messages-api", &w.root());
    let config_dir = w.onboarded_claude_config();
    let manual = r#"{"permissions": {"defaultMode": "default"}}"#;
    std::fs::write(config_dir.join("settings.json"), manual).unwrap();
    w.start_real_cli_server(&config_dir, Some(&api), &[]);
    w.configure_harness(&claude, OLD);
    let cwd = w.work.join("repo");
    std::fs::create_dir_all(cwd.join(".claude")).unwrap();
    let allow = r#"{"permissions": {"allow": ["Bash"]}}"#;
    std::fs::write(cwd.join(".claude/settings.json"), allow).unwrap();
    let real = Real::start(w, config_dir, cwd, api);
    // The one-time auto-mode menu, answered No as a person would.
    shows(&real, "No, keep manual mode");
    real.keys(&["Down"]);
    std::thread::sleep(Duration::from_millis(300));
    real.keys(&["Enter"]);
    shows(&real, "manual mode on");
    shows(&real, "❯");
    Some(real)
}

/// Waits (as `wait_long` does) for `needle` on the screen; on a timeout,
/// shows the screen. Auto mode's one-time notice before its first tool
/// call (classifier billing through a gateway, `Enter to continue`) is read
/// and passed with Enter, as a person does.
pub(crate) fn shows(real: &Real, needle: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let screen = real.screen();
        if screen.contains(needle) {
            return;
        }
        if screen.contains("auto-mode-classifier-billing") && screen.contains("Enter to continue") {
            real.keys(&["Enter"]);
        }
        assert!(Instant::now() < deadline, "no {needle:?} on:\n{screen}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// A process's parent, from `/proc/<pid>/stat` (0 once it is gone).
fn parent(pid: i32) -> i32 {
    the_loop::proc_env::ProcStat::read(std::path::Path::new("/proc"), pid).map_or(0, |s| s.parent)
}

/// Every process below `root`, walking each process's parent in
/// `/proc/*/stat`.
fn below(root: i32) -> Vec<i32> {
    let all: Vec<(i32, i32)> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .map(|pid| (pid, parent(pid)))
        .collect();
    let mut found = vec![root];
    let mut next = 0;
    while next < found.len() {
        let of = found[next];
        found.extend(all.iter().filter(|(_, p)| *p == of).map(|(pid, _)| *pid));
        next += 1;
    }
    found.split_off(1)
}

/// The `tail` of the stand-in's tool (`timeout <seconds> tail -f
/// /dev/null`) below claude: what ending claude would end with it.
pub(crate) fn tool_below(real: &Real, seconds: &str) -> i32 {
    let claude = real.pid();
    let mut tail = None;
    wait_long(
        || {
            tail = below(claude).into_iter().find(|pid| {
                cmdline(*pid) == ["tail", "-f", "/dev/null"]
                    && cmdline(parent(*pid)) == ["timeout", seconds, "tail", "-f", "/dev/null"]
            });
            tail.is_some()
        },
        "the tool's process below claude",
    );
    tail.unwrap()
}

/// Ends a tool this test started, so that it does not outlive the test.
pub(crate) fn end_tool(tail: i32) {
    let _ = nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(tail),
        nix::sys::signal::Signal::SIGKILL,
    );
}

/// What the plan and the roll say of a session held for one reason.
struct Hold {
    /// `plan --json`'s `screen` (absent while the hooks say a turn runs).
    screen: Option<&'static str>,
    /// Its `apply_will`.
    will: &'static str,
    /// Words of the text plan's line.
    says: &'static str,
    /// The start of the `deferred` detail.
    why: &'static str,
}

const BACKGROUND: Hold = Hold {
    screen: Some("background"),
    will: "wait_screen",
    says: "waits: a background shell or task runs",
    why: "held: a background shell or task runs",
};

/// What a person has going holds the roll, rotated here: the plan says
/// why (`hold`), and `apply` with a `drain` leaves the session `deferred`,
/// exit 1. Nothing was cut: no harness ended, the same claude on the old
/// value, its `tool` alive.
fn held_and_not_cut(real: &Real, hold: Hold, tool: Option<i32>, drain: &str) {
    let old = real.pid();
    real.rotate();
    let plan = json(&real.w.the_loop(&["plan", "--json"]));
    let row = session_in(&plan, REF);
    // `None`: whatever the screen showed (a turn the hooks call busy is
    // looked at only once they have been quiet a while).
    assert!(
        hold.screen.is_none() || row["screen"].as_str() == hold.screen,
        "{plan}\n{}",
        real.screen()
    );
    assert_eq!(row["apply_will"], hold.will, "{plan}");
    let text = stdout(&real.w.the_loop(&["plan"]));
    assert!(flat(&text).contains(&flat(hold.says)), "{text}");
    let out = real.apply(drain).wait_with_output().unwrap();
    assert_no_canary(&out.stdout, &[OLD, NEW], "apply stdout");
    assert_no_canary(&out.stderr, &[OLD, NEW], "apply stderr");
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    let report = json(&out);
    let row = session_in(&report, REF);
    assert_eq!(row["outcome"], "deferred", "{report}");
    let detail = row["detail"].as_str().unwrap_or_default();
    assert!(detail.starts_with(hold.why), "{report}\n{}", real.screen());
    assert!(
        real.w.events_named("session.harness_terminated").is_empty(),
        "a held harness was ended"
    );
    assert_eq!(real.pid(), old, "claude was replaced");
    assert!(alive(old), "claude was ended");
    assert_eq!(
        environ(old).get("EXTRA_TOKEN").map(String::as_str),
        Some(OLD)
    );
    if let Some(tool) = tool {
        assert!(alive(tool), "the tool was cut: {}", real.screen());
    }
}

/// The new claude resumes the recorded conversation (its argv).
pub(crate) fn resumes(real: &Real, pid: i32) {
    let argv = cmdline(pid);
    assert!(
        argv.windows(2)
            .any(|a| a[0] == "--resume" && a[1] == real.id),
        "{argv:?}"
    );
}

/// Between turns, the footer counting the shell left in the background.
pub(crate) fn a_shell_in_the_background(real: &Real) {
    shows(real, "1 shell");
    wait_long(|| real.activity() == Activity::Idle, "the turn ended");
    // The Stop hook has reported, but the CLI's footer says
    // `esc to interrupt` until that hook's process has ended (2.1.332):
    // the screen then still reads a turn, rightly.
    wait_long(
        || !real.screen().contains("esc to interrupt"),
        "the footer no longer offers to interrupt",
    );
    // The process tells it too, without the footer: one of claude's
    // children is a tool shell (`src/harness/claude.rs`, `is_tool_shell`).
    let claude = the_loop::harness::by_name("claude").unwrap();
    let children = the_loop::proc_env::children_argv(real.pid());
    assert_eq!(
        the_loop::harness::claude::tool_shells(&children),
        1,
        "{children:?}"
    );
    assert_eq!(claude.background_children(real.pid()), 1);
}

/// A background shell is work the person started; ending claude ends it.
/// Both ways one comes about: the model asks for it, or the person sends
/// a running tool there.
#[test]
fn a_background_shell_is_not_ended_by_apply() {
    let _alone = alone();
    let Some(real) = person(Mode::Auto) else {
        return;
    };
    let tail = model_backgrounds_a_shell(&real);
    held_and_not_cut(&real, BACKGROUND, Some(tail), "5s");
    end_tool(tail);
    drop(real);

    let Some((real, tail)) = person_backgrounds_a_shell() else {
        return;
    };
    held_and_not_cut(&real, BACKGROUND, Some(tail), "5s");
    end_tool(tail);
}

/// The model runs a tool in the background (`run_in_background`): the
/// `tail` of its shell once the turn has ended.
pub(crate) fn model_backgrounds_a_shell(real: &Real) -> i32 {
    real.type_line("background please");
    a_shell_in_the_background(real);
    tool_below(real, "120")
}

/// A person in manual mode sends a running tool to the background with
/// Ctrl-B twice, once its hint shows (its 40 s leave a test enough): the
/// session, and the `tail` of the shell, alive past the turn.
pub(crate) fn person_backgrounds_a_shell() -> Option<(Real, i32)> {
    let real = person(Mode::Manual)?;
    real.type_line("long tool please");
    shows(&real, "to run in background");
    let tail = tool_below(&real, "40");
    real.keys(&["C-b", "C-b"]);
    a_shell_in_the_background(&real);
    assert!(alive(tail), "Ctrl-B ended the tool");
    Some((real, tail))
}

/// `/exit` while a tool runs asks what to do with it; until the person
/// answers, the roll waits, whatever the permission mode. Escape is their
/// answer: they stay, the tool runs on. Opened again and left open past
/// the turn's end, the menu alone (the screen) holds the roll.
#[test]
fn exit_during_a_running_tool_does_not_cut_it_in_any_mode() {
    let _alone = alone();
    for mode in [Mode::Manual, Mode::Auto, Mode::AcceptEdits] {
        let Some(real) = person(mode) else {
            return;
        };
        real.type_line("long tool please");
        // Its Ctrl-B hint (~3 s in): before it, `/exit` exits at once, with
        // no menu (seen on 2.1.328).
        shows(&real, "to run in background");
        let tail = tool_below(&real, "40");
        real.type_line("/exit");
        shows(&real, "Enter to confirm");
        let old = real.pid();
        // The turn runs on behind the menu: the hooks say busy, and their
        // word is the detail (the plan may or may not have looked yet).
        let busy = Hold {
            screen: None,
            will: "wait_busy",
            says: "waits for its turn to end",
            why: "busy since ",
        };
        held_and_not_cut(&real, busy, Some(tail), "5s");
        real.keys(&["Escape"]);
        wait_long(
            || !real.screen().contains("Enter to confirm"),
            "the menu closed",
        );
        assert!(alive(tail), "{mode:?}: the tool was cut on Escape");
        assert_eq!(real.pid(), old, "{mode:?}: claude was replaced");

        // Opened again; the tool ends (here, for time) and its turn with it.
        real.type_line("/exit");
        shows(&real, "Enter to confirm");
        end_tool(tail);
        wait_long(|| real.activity() == Activity::Idle, "the turn ended");
        let menu = Hold {
            screen: Some("asking"),
            will: "wait_waiting",
            says: "waits until the person it asks answers",
            why: "held: a menu or dialog is open",
        };
        held_and_not_cut(&real, menu, None, "3s");
        assert!(
            real.screen().contains("Enter to confirm"),
            "{mode:?}: menu gone"
        );
        real.keys(&["Escape"]);
    }
}

/// A prompt typed and not sent exists nowhere but on screen: a roll waits
/// for it, and rolls once it is sent and answered.
#[test]
fn a_draft_survives_a_rotation() {
    let _alone = alone();
    let Some(real) = person(Mode::Auto) else {
        return;
    };
    let draft = "half a thought about the";
    let target = format!("={}:", real.name);
    real.w.tmux_ok(&["send-keys", "-t", &target, "-l", draft]);
    // The CLI draws a no-break space after its `❯`.
    let in_the_box = format!("❯\u{a0}{draft}");
    shows(&real, &in_the_box);
    let old = real.pid();
    let draft_hold = Hold {
        screen: Some("draft"),
        will: "wait_screen",
        says: "waits: a prompt is being written",
        why: "held: a prompt is being written",
    };
    held_and_not_cut(&real, draft_hold, None, "3s");
    let screen = stdout(&real.w.tmux(&["capture-pane", "-p", "-t", &target]));
    assert!(
        screen.contains(&in_the_box),
        "the draft was lost:\n{screen}"
    );

    // Sent and answered ("done." at once): the turn is over.
    real.keys(&["Enter"]);
    wait_long(
        || std::fs::read_to_string(real.transcript(&real.id)).is_ok_and(|t| t.contains(draft)),
        "the prompt in the transcript",
    );
    wait_long(|| real.activity() == Activity::Idle, "the turn ended");
    let out = real.apply("60s").wait_with_output().unwrap();
    real.rolled_onto_the_new_value(&out, old);
    resumes(&real, real.pid());
    // A sent prompt is drawn with a plain space, unlike the box's.
    shows(&real, &format!("❯ {draft}"));
}
