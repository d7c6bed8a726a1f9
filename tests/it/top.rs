//! `the-loop top` driven in a real tmux pane: keys in with send-keys, the
//! screen out with capture-pane; and the terminal given back (the normal
//! screen, echo and canonical mode) on every way out.

use crate::support::*;
use std::time::Duration;

pub const OLD: &str = "xoxb-RETIRED-t0p-Vq8s2Lk4Zr9w";
pub const NEW: &str = "xoxb-ROTATED-t0p-Hm3n7Bx5Qe1y";

/// A shell in a `width`×`height` pane of the world's tmux server (a
/// session no record names), ready for a command; returns the pane id.
pub fn shell_pane(w: &World, width: u16, height: u16) -> String {
    let pane = w.tmux_ok(&[
        "new-session",
        "-d",
        "-P",
        "-F",
        "#{pane_id}",
        "-s",
        "top-driver",
        "-x",
        &width.to_string(),
        "-y",
        &height.to_string(),
        "--",
        "env",
        "PS1=$ ",
        "sh",
    ]);
    pane.trim().to_owned()
}

pub fn capture(w: &World, pane: &str) -> String {
    w.tmux_ok(&["capture-pane", "-p", "-t", pane])
}

fn type_line(w: &World, pane: &str, line: &str) {
    w.tmux_ok(&["send-keys", "-t", pane, "-l", line]);
    w.tmux_ok(&["send-keys", "-t", pane, "Enter"]);
}

pub fn keys(w: &World, pane: &str, keys: &[&str]) {
    for key in keys {
        w.tmux_ok(&["send-keys", "-t", pane, key]);
    }
}

/// Types `keys` into `pane`, then waits until its screen shows `want`.
pub fn press_until(w: &World, pane: &str, keys_in: &[&str], want: &str) {
    keys(w, pane, keys_in);
    wait_for_screen(w, pane, want);
}

/// Runs `top` (with `env` before it) in `pane` and waits for its table.
pub fn start_top(w: &World, pane: &str, env: &str) {
    let bin = assert_cmd::cargo::cargo_bin("the-loop");
    type_line(
        w,
        pane,
        &format!(
            "{env} {} --config {} top",
            bin.display(),
            w.config_path.display()
        ),
    );
    wait_for_screen(w, pane, "github:octo/repo#1");
}

pub fn wait_for_screen(w: &World, pane: &str, text: &str) {
    wait_for(
        || capture(w, pane).contains(text),
        &format!("the pane shows {text:?}"),
    );
}

fn alternate_on(w: &World, pane: &str) -> bool {
    w.tmux_ok(&["display-message", "-p", "-t", pane, "#{alternate_on}"])
        .trim()
        == "1"
}

/// Echo and canonical mode are on, as a shell's prompt left them.
fn tty_is_cooked(w: &World, pane: &str) -> bool {
    let tty = w.tmux_ok(&["display-message", "-p", "-t", pane, "#{pane_tty}"]);
    let out = std::process::Command::new("stty")
        .args(["-a", "-F", tty.trim()])
        .output()
        .expect("stty runs");
    let settings = String::from_utf8_lossy(&out.stdout).into_owned();
    let words: Vec<&str> = settings.split_whitespace().collect();
    words.contains(&"echo") && words.contains(&"icanon")
}

pub fn assert_given_back(w: &World, pane: &str, how: &str) {
    wait_for(
        || !alternate_on(w, pane),
        &format!("{how}: the normal screen"),
    );
    assert!(tty_is_cooked(w, pane), "{how}: echo and icanon are back");
}

pub fn top_pid(w: &World, pane: &str) -> i32 {
    let shell: i32 = w
        .tmux_ok(&["display-message", "-p", "-t", pane, "#{pane_pid}"])
        .trim()
        .parse()
        .unwrap();
    descendants(shell)
        .into_iter()
        .find(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/comm"))
                .is_ok_and(|c| c.trim() == "the-loop")
        })
        .expect("the-loop runs under the shell")
}

/// What changes from run to run: durations, versions, paths, the uid.
fn redact(w: &World, screen: &str) -> String {
    let root = w.root().display().to_string();
    let screen = screen.replace(&root, "[ROOT]");
    let rules = [
        (r"\b\d+[smhd]\b", "[T]"),
        (r"tmux \d+\.\d+[a-z]?", "tmux [V]"),
        (r"tmux-\d+", "tmux-[UID]"),
        (r"\b(idle|unknown|busy|busy \[T\])\b", "[ACTIVITY]"),
    ];
    rules
        .iter()
        .fold(screen, |s, (re, to)| {
            regex::Regex::new(re)
                .unwrap()
                .replace_all(&s, *to)
                .into_owned()
        })
        .lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
}

fn fleet() -> World {
    let w = World::new();
    w.rotated_fleet(2, OLD, NEW);
    w
}

#[test]
fn top_draws_the_fleet_and_q_gives_the_terminal_back() {
    for (width, height) in [(80u16, 24u16), (200, 50)] {
        let w = fleet();
        let pane = shell_pane(&w, width, height);
        start_top(&w, &pane, "");
        wait_for_screen(&w, &pane, "2 to respawn");
        assert!(alternate_on(&w, &pane), "top draws on the alternate screen");
        let screen = capture(&w, &pane);
        assert_no_canary(screen.as_bytes(), &[OLD, NEW], "top's screen");
        insta::assert_snapshot!(format!("top_{width}x{height}"), redact(&w, &screen));
        keys(&w, &pane, &["q"]);
        assert_given_back(&w, &pane, "q");
    }
}

#[test]
fn ctrl_c_sigterm_and_a_panic_give_the_terminal_back() {
    let w = fleet();
    let pane = shell_pane(&w, 100, 30);
    start_top(&w, &pane, "");
    keys(&w, &pane, &["C-c"]);
    assert_given_back(&w, &pane, "Ctrl-C");

    start_top(&w, &pane, "");
    let pid = top_pid(&w, &pane);
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    wait_for(|| !alive(pid), "top ended on SIGTERM");
    assert_given_back(&w, &pane, "SIGTERM");

    start_top(&w, &pane, "THE_LOOP_TOP_TEST_PANIC=1");
    press_until(&w, &pane, &["!"], "THE_LOOP_TOP_TEST_PANIC");
    assert_given_back(&w, &pane, "a panic");
}

#[test]
fn top_ends_when_its_terminal_hangs_up() {
    let w = fleet();
    let pane = shell_pane(&w, 100, 30);
    start_top(&w, &pane, "");
    let pid = top_pid(&w, &pane);
    // The pane's pty closes; `sh` (dash) passes no SIGHUP on to its job.
    w.tmux_ok(&["kill-pane", "-t", &pane]);
    wait_for(|| !alive(pid), "top ended when its terminal went away");
}

#[test]
fn select_filter_help_and_the_plan_of_one_session() {
    let w = fleet();
    let pane = shell_pane(&w, 120, 30);
    start_top(&w, &pane, "");
    press_until(&w, &pane, &["?"], "this help");
    // Escape on its own: an Escape and the next key read in one go are one
    // Alt-key to the terminal's parser (`\x1b/` is Alt-/), and the filter
    // was then never opened.
    keys(&w, &pane, &["Escape"]);
    wait_for(
        || !capture(&w, &pane).contains("this help"),
        "the help closes",
    );
    keys(&w, &pane, &["/", "#", "2", "Enter"]);
    wait_for(
        || {
            let s = capture(&w, &pane);
            s.contains("filter /#2") && !s.contains("github:octo/repo#1")
        },
        "the filter keeps #2 alone",
    );
    press_until(&w, &pane, &["p"], "plan: github:octo/repo#2");
    let screen = capture(&w, &pane);
    assert!(
        screen.contains(&fp(OLD)),
        "the plan names the held value's fingerprint:\n{screen}"
    );
    assert_no_canary(screen.as_bytes(), &[OLD, NEW], "top's plan view");
    // Apart: an Escape and the next key read in one go are one Alt-key.
    keys(&w, &pane, &["Escape"]);
    wait_for(
        || !capture(&w, &pane).contains("plan: github:octo/repo#2"),
        "the pop-up closes",
    );
    keys(&w, &pane, &["q"]);
    assert_given_back(&w, &pane, "q");
}

#[test]
fn a_applies_to_the_selected_session_after_y() {
    let w = fleet();
    let pane = shell_pane(&w, 120, 30);
    start_top(&w, &pane, "");
    press_until(&w, &pane, &["j", "a"], "apply to github:octo/repo#2");
    press_until(&w, &pane, &["y"], "(any key closes)");
    let screen = capture(&w, &pane);
    assert!(screen.contains("github:octo/repo#2"), "{screen}");
    assert_no_canary(screen.as_bytes(), &[OLD, NEW], "top's apply progress");
    keys(&w, &pane, &["x"]);
    // The refresh after the roll: #2 is up to date, #1 still stale.
    wait_for(
        || capture(&w, &pane).contains("1 to respawn"),
        "the table refreshed after the roll",
    );
    std::thread::sleep(Duration::from_millis(10));
    keys(&w, &pane, &["q"]);
    assert_given_back(&w, &pane, "q");
}

#[test]
fn the_interval_is_range_checked() {
    let w = World::new();
    for bad in ["0s", "500ms", "2h"] {
        let out = w.the_loop(&["top", "--interval", bad]);
        assert_eq!(code(&out), Some(1), "{bad}: {}", explain(&out));
    }
    let out = w.the_loop(&["top"]);
    assert_eq!(code(&out), Some(1));
    assert!(
        stderr(&out).contains("needs a terminal"),
        "{}",
        explain(&out)
    );
}
