//! Safe points on the real Claude Code (the pinned CLI, `.ci/run`), driven as
//! a person drives it: Escape in the middle of a turn, `/clear`, a `!`
//! command, Ctrl-C to exit during a held roll, and No or Esc on a real
//! permission dialog. Offline the model never runs a turn for long or asks
//! for a tool, so the CLI is pointed (`ANTHROPIC_BASE_URL`) at a local
//! stand-in of the Messages API (`support/messages-api`) that streams a
//! slow answer or asks for one `Bash` tool use.

use crate::real_claude::{real_claude, screen, wait_long};
use crate::support::api::StandInApi;
use crate::support::real_setup::claude_transcript;
use crate::support::*;
use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};
use the_loop::activity::{store, Activity};

pub(crate) const OLD: &str = "tok-OLD-turns-canary";
pub(crate) const NEW: &str = "tok-NEW-turns-canary";

/// One real session started through the-loop, with its API stand-in.
pub(crate) struct Real {
    pub(crate) w: World,
    pub(crate) name: String,
    pub(crate) id: String,
    pub(crate) config_dir: PathBuf,
    pub(crate) cwd: PathBuf,
    pub(crate) _api: StandInApi,
}

/// A session of the real CLI, at its prompt; `manual` starts it in manual
/// permission mode (the user's setting), answering the one-time auto-mode
/// menu with No as a person would.
pub(crate) fn real_session(manual: bool) -> Option<Real> {
    let claude = real_claude()?;
    let w = World::new();
    let api = StandInApi::start("messages-api", &w.root());
    let config_dir = w.onboarded_claude_config();
    if manual {
        std::fs::write(
            config_dir.join("settings.json"),
            r#"{"permissions": {"defaultMode": "default"}}"#,
        )
        .unwrap();
    }
    w.start_real_cli_server(&config_dir, Some(&api), &[]);
    w.configure_harness(&claude, OLD);
    let cwd = w.work.join("repo");
    std::fs::create_dir_all(&cwd).unwrap();
    let real = Real::start(w, config_dir, cwd, api);
    if manual {
        wait_long(
            || screen(&real.w, &real.name).contains("No, keep manual mode"),
            "the auto-mode menu",
        );
        real.keys(&["Down"]);
        std::thread::sleep(Duration::from_millis(300));
        real.keys(&["Enter"]);
        wait_long(
            || screen(&real.w, &real.name).contains("manual mode on"),
            "manual mode",
        );
    }
    wait_long(|| screen(&real.w, &real.name).contains('❯'), "the prompt");
    Some(real)
}

impl Real {
    /// Starts `github:octo/repo#1` in `cwd` through the-loop, in the world
    /// `w` whose server and config are ready, and keeps what the tests ask
    /// of the session (its names, and where its transcripts are).
    pub(crate) fn start(w: World, config_dir: PathBuf, cwd: PathBuf, api: StandInApi) -> Real {
        let started = w.start_session("github:octo/repo#1", &cwd);
        Real {
            name: started["tmux_target"].as_str().unwrap().to_owned(),
            id: started["harness_session_id"].as_str().unwrap().to_owned(),
            config_dir,
            cwd,
            _api: api,
            w,
        }
    }

    pub(crate) fn pid(&self) -> i32 {
        self.w.pane(&self.name).expect("the pane").pid
    }

    pub(crate) fn keys(&self, keys: &[&str]) {
        let target = format!("={}:", self.name);
        let mut args = vec!["send-keys", "-t", &target];
        args.extend_from_slice(keys);
        self.w.tmux_ok(&args);
    }

    /// Types a line as a person does: the text, a pause, then Enter (the TUI
    /// takes a fast Enter for part of a paste).
    pub(crate) fn type_line(&self, text: &str) {
        let target = format!("={}:", self.name);
        self.w.tmux_ok(&["send-keys", "-t", &target, "-l", text]);
        std::thread::sleep(Duration::from_millis(500));
        self.keys(&["Enter"]);
    }

    pub(crate) fn screen(&self) -> String {
        screen(&self.w, &self.name)
    }

    pub(crate) fn transcript(&self, id: &str) -> PathBuf {
        claude_transcript(&self.config_dir, &self.cwd, id)
    }

    pub(crate) fn activity(&self) -> Activity {
        store::read_one(&self.w.state, self.pid()).activity
    }

    /// A first exchange, so the conversation has its transcript (the CLI
    /// writes it once a turn has been answered, and a roll leaves a session
    /// without one alone).
    pub(crate) fn converse(&self) {
        self.type_line("remember the word zebra");
        wait_long(
            || {
                std::fs::read_to_string(self.transcript(&self.id))
                    .is_ok_and(|t| t.contains("zebra"))
            },
            "the conversation's transcript",
        );
        wait_long(|| self.activity() == Activity::Idle, "the turn ended");
    }

    /// A conversation with a turn running for minutes, the env file rotated,
    /// and a roll (drain 60 s) holding the session: the old pid and the roll.
    fn roll_held_in_a_turn(&self) -> (i32, Child) {
        self.converse();
        self.start_slow_turn();
        self.rotate();
        let old = self.pid();
        let apply = self.apply("60s");
        self.wait_held();
        (old, apply)
    }

    /// A turn that runs for minutes, seen on screen and by the hooks.
    pub(crate) fn start_slow_turn(&self) {
        self.type_line("please be slow");
        wait_long(
            || self.screen().contains("esc to interrupt"),
            "a running turn",
        );
        wait_long(|| self.activity() == Activity::Busy, "the hooks say busy");
    }

    pub(crate) fn rotate(&self) {
        self.w.write_env(&format!("EXTRA_TOKEN={NEW}\n"));
    }

    pub(crate) fn apply(&self, drain: &str) -> Child {
        let mut command = self.w.the_loop_command(&[
            "apply",
            "--auto-approve",
            "--json",
            "--drain-timeout",
            drain,
        ]);
        command.stdout(Stdio::piped()).stderr(Stdio::piped());
        command.spawn().unwrap()
    }

    /// The roll has planned and holds the session.
    fn wait_held(&self) {
        wait_for(
            || self.w.events_named("apply.started").len() == 1,
            "the roll started",
        );
        std::thread::sleep(Duration::from_millis(1500));
    }

    pub(crate) fn rolled_onto_the_new_value(&self, out: &std::process::Output, old_pid: i32) {
        assert_no_canary(&out.stdout, &[OLD, NEW], "apply stdout");
        assert_no_canary(&out.stderr, &[OLD, NEW], "apply stderr");
        assert_eq!(code(out), Some(0), "{}", explain(out));
        let report = json(out);
        let row = session_in(&report, "github:octo/repo#1");
        assert_eq!(row["outcome"], "restarted", "{report}");
        assert_eq!(row["conversation"], "confirmed", "{report}");
        let now = self.pid();
        assert_ne!(now, old_pid);
        assert_eq!(
            environ(now).get("EXTRA_TOKEN").map(String::as_str),
            Some(NEW)
        );
    }
}

/// Escape in the middle of a turn fires no hook; the roll sees the screen
/// and rolls the session within the drain.
#[test]
fn escape_mid_turn_and_the_session_is_rolled_within_the_drain() {
    let _alone = alone();
    let Some(real) = real_session(false) else {
        return;
    };
    let (old, apply) = real.roll_held_in_a_turn();
    assert_eq!(real.pid(), old, "a running turn was ended");
    let pressed = Instant::now();
    real.keys(&["Escape"]);
    let out = apply.wait_with_output().unwrap();
    assert!(
        pressed.elapsed() < Duration::from_secs(30),
        "rolled within the drain, not at its end"
    );
    real.rolled_onto_the_new_value(&out, old);
}

/// `/clear` moves the person to a new conversation; the roll resumes that
/// one, writes it into the record and confirms it.
#[test]
fn after_clear_the_roll_resumes_the_conversation_the_person_is_in() {
    let _alone = alone();
    let Some(real) = real_session(false) else {
        return;
    };
    real.type_line("remember the word zebra");
    wait_long(
        || std::fs::read_to_string(real.transcript(&real.id)).is_ok_and(|t| t.contains("zebra")),
        "the first conversation's transcript",
    );
    wait_long(|| real.activity() == Activity::Idle, "the turn ended");
    real.type_line("/clear");
    let pid = real.pid();
    let mut new_id = String::new();
    wait_long(
        || {
            let now = store::read_one(&real.w.state, pid);
            match now.conversation {
                Some(id) if id != real.id => {
                    new_id = id;
                    true
                }
                _ => false,
            }
        },
        "SessionStart(clear) with a new id",
    );
    real.type_line("now remember the word giraffe");
    wait_long(
        || std::fs::read_to_string(real.transcript(&new_id)).is_ok_and(|t| t.contains("giraffe")),
        "the new conversation's transcript",
    );
    wait_long(|| real.activity() == Activity::Idle, "the turn ended");
    real.rotate();
    let out = real.apply("30s").wait_with_output().unwrap();
    real.rolled_onto_the_new_value(&out, pid);
    let report = json(&out);
    assert_eq!(
        session_in(&report, "github:octo/repo#1")["harness_session_id"],
        new_id.as_str(),
        "{report}"
    );
    let record = real.w.record("github-octo-repo-1").unwrap();
    assert_eq!(record["harnessSessionId"], new_id.as_str(), "{record}");
    assert_eq!(
        record["previousHarnessSessionIds"],
        serde_json::json!([real.id]),
        "{record}"
    );
    wait_long(
        || real.screen().contains("remember the word giraffe"),
        "the post-clear conversation on screen after the resume",
    );
    assert!(!real.screen().contains("zebra"), "{}", real.screen());
}

/// A `!` command fires no `UserPromptSubmit`; the roll's last look sees
/// `esc to interrupt` and waits for the command to end.
#[test]
fn a_bang_command_is_not_ended_by_a_roll() {
    let _alone = alone();
    let Some(real) = real_session(false) else {
        return;
    };
    // A conversation to resume: a bare `!` command writes no transcript.
    real.converse();
    let done = real.w.root().join("bang-done");
    let target = format!("={}:", real.name);
    real.w.tmux_ok(&["send-keys", "-t", &target, "-l", "!"]);
    std::thread::sleep(Duration::from_millis(500));
    real.type_line(&format!("sleep 8 && touch {}", done.display()));
    wait_long(
        || real.screen().contains("esc to interrupt"),
        "the command runs",
    );
    assert_ne!(real.activity(), Activity::Busy, "the hooks cannot tell");
    real.rotate();
    let old = real.pid();
    let out = real.apply("60s").wait_with_output().unwrap();
    assert!(
        done.is_file(),
        "the command was ended before it finished: {}",
        explain(&out)
    );
    real.rolled_onto_the_new_value(&out, old);
}

/// Ctrl-C during a held roll: the first interrupts the turn, the next two
/// exit Claude Code (`SessionEnd` reason `prompt_input_exit`). The person's
/// exit stands: the session is not respawned.
#[test]
fn ctrl_c_to_exit_during_a_held_roll_is_not_undone() {
    let _alone = alone();
    let Some(real) = real_session(false) else {
        return;
    };
    let (old, apply) = real.roll_held_in_a_turn();
    for _ in 0..3 {
        real.keys(&["C-c"]);
        std::thread::sleep(Duration::from_millis(200));
    }
    let out = apply.wait_with_output().unwrap();
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let report = json(&out);
    let row = session_in(&report, "github:octo/repo#1");
    assert_eq!(row["outcome"], "skipped", "{report}");
    assert_eq!(
        row["detail"], "ended by the user; not respawned",
        "{report}"
    );
    if let Some(pane) = real.w.pane(&real.name) {
        assert!(pane.pid == old || pane.dead, "respawned: {pane:?}");
    }
}

/// A real permission dialog answered No, or cancelled with Esc, fires no
/// hook: the hooks keep saying `waiting`. The roll sees the screen and
/// rolls the session within the drain; the tool never ran.
#[test]
fn no_or_esc_on_a_permission_dialog_and_the_session_is_rolled() {
    let _alone = alone();
    for answer in ["No", "Escape"] {
        let Some(real) = real_session(true) else {
            return;
        };
        real.converse();
        real.type_line("tool please");
        wait_long(
            || real.screen().contains("Do you want to proceed?"),
            "the permission dialog",
        );
        wait_long(
            || real.activity() == Activity::Waiting,
            "the hooks say waiting",
        );
        real.rotate();
        let old = real.pid();
        let apply = real.apply("60s");
        real.wait_held();
        assert_eq!(real.pid(), old, "a dialog was ended");
        match answer {
            // "4. No" in the dialog's list.
            "No" => real.keys(&["4"]),
            _ => real.keys(&["Escape"]),
        }
        let out = apply.wait_with_output().unwrap();
        real.rolled_onto_the_new_value(&out, old);
        assert!(
            !real.w.root().join("tool-ran").exists(),
            "{answer}: the tool ran"
        );
    }
}

/// The one-time "Make auto mode your default permission mode?" menu (the
/// user's settings name a manual mode) comes up after `SessionStart` has
/// fired: a roll that stopped there is `blocked`, not `confirmed`.
#[test]
fn a_respawn_stopped_at_the_auto_mode_menu_is_blocked() {
    let _alone = alone();
    let Some(real) = real_session(false) else {
        return;
    };
    real.converse();
    // The person sets a manual mode as their default meanwhile.
    std::fs::write(
        real.config_dir.join("settings.json"),
        r#"{"permissions": {"defaultMode": "default"}}"#,
    )
    .unwrap();
    real.rotate();
    let out = real.apply("30s").wait_with_output().unwrap();
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    let report = json(&out);
    let row = session_in(&report, "github:octo/repo#1");
    assert_eq!(row["outcome"], "blocked", "{report}");
    assert_eq!(row["detail"], "stopped at the auto-mode menu", "{report}");
    assert_eq!(row["conversation"], "unconfirmed", "{report}");
}
