//! Codex as a person uses it, on the real Codex CLI (the pinned 0.171.0,
//! `.ci/run`), pointed at a local stand-in of the Responses API
//! (`support/responses-api`) so that real turns run offline: a first prompt
//! typed by hand, a turn that runs a while, a `!` command, `/new`, Escape,
//! and a Codex a person started by hand, imported. Each is rotated and
//! applied, and the test checks what the new process holds, where its
//! hooks filed their events, and what the record names.

use crate::real_claude::{screen, wait_long};
use crate::real_codex::{real_codex, rollouts, type_line};
use crate::support::api::StandInApi;
use crate::support::real_setup::claude_transcript;
use crate::support::*;
use std::path::{Path, PathBuf};

use std::time::{Duration, Instant};

pub(crate) const KEYS: [&str; 6] = [
    "sk-ONE-codex-turns",
    "sk-TWO-codex-turns",
    "sk-THREE-codex-turns",
    "sk-FOUR-codex-turns",
    "sk-FIVE-codex-turns",
    "sk-SIX-codex-turns",
];
pub(crate) const REF: &str = "github:octo/repo#1";

/// A world whose tmux server points Codex at the API stand-in.
pub(crate) struct CodexWorld {
    pub(crate) w: World,
    pub(crate) codex_home: PathBuf,
    _api: StandInApi,
}

/// The world, with a Claude Code config dir that has done its onboarding
/// (offline, a fresh one makes the CLI exit), and `claude` as the binary
/// of Claude Code sessions when given.
pub(crate) fn codex_world(codex: &Path) -> CodexWorld {
    codex_world_beside(codex, None)
}

fn codex_world_beside(codex: &Path, claude: Option<&Path>) -> CodexWorld {
    let w = World::new();
    let claude_config = w.onboarded_claude_config();
    let api = StandInApi::start("responses-api", &w.root());
    let port = api.port;
    let codex_home = w.root().join("codex-home");
    std::fs::create_dir_all(&codex_home).unwrap();
    std::fs::write(
        codex_home.join("config.toml"),
        format!(
            "model = \"gpt-5\"\nmodel_provider = \"loop\"\n\n[model_providers.loop]\nname = \"loop\"\nbase_url = \"http://127.0.0.1:{port}/v1\"\nenv_key = \"OPENAI_API_KEY\"\nwire_api = \"responses\"\n"
        ),
    )
    .unwrap();
    w.start_real_cli_server(
        &claude_config,
        None,
        &[("CODEX_HOME", codex_home.to_str().unwrap())],
    );
    w.write_config("  deliver: [OPENAI_API_KEY]\n");
    let claude_line = claude
        .map(|c| format!("    claude: {}\n", c.display()))
        .unwrap_or_default();
    w.write_raw_config(&format!(
        "{}  harnessBinary:\n    codex: {}\n{claude_line}",
        std::fs::read_to_string(w.root().join("cli-config.yaml")).unwrap(),
        codex.display()
    ));
    w.write_env(&format!("OPENAI_API_KEY={}\n", KEYS[0]));
    CodexWorld {
        w,
        codex_home,
        _api: api,
    }
}

impl CodexWorld {
    /// `sessions start REF --harness codex` in `work/repo`, as the README
    /// shows (no prompt): its tmux session, once Codex is at its prompt.
    pub(crate) fn start_session(&self) -> String {
        let cwd = self.w.work.join("repo");
        std::fs::create_dir_all(cwd.join(".git")).unwrap();
        let out = self.w.the_loop(&[
            "sessions",
            "start",
            REF,
            "--harness",
            "codex",
            "--cwd",
            cwd.to_str().unwrap(),
            "--json",
        ]);
        assert_eq!(code(&out), Some(0), "{}", explain(&out));
        let name = json(&out)["tmux_target"].as_str().unwrap().to_owned();
        wait_screen(&self.w, &name, "Ask Codex to do anything");
        name
    }

    /// The first prompt of a session, typed by hand as a person does and
    /// answered: the rollout file Codex made for the conversation.
    pub(crate) fn type_first_prompt(&self, name: &str) -> String {
        type_line(&self.w, name, "hello there, remember the word zebra");
        wait_screen(&self.w, name, "done.");
        wait_for_one_rollout(&self.codex_home, &[])
    }

    pub(crate) fn rotate(&self, key: &str) {
        self.w.write_env(&format!("OPENAI_API_KEY={key}\n"));
    }

    pub(crate) fn record_id(&self) -> Option<String> {
        self.w.record("github-octo-repo-1")?["harnessSessionId"]
            .as_str()
            .map(str::to_owned)
    }

    pub(crate) fn apply(&self, extra: &[&str]) -> serde_json::Value {
        let mut args = vec!["apply", "--auto-approve", "--json"];
        args.extend_from_slice(extra);
        let out = self.w.the_loop(&args);
        assert_eq!(code(&out), Some(0), "{}", explain(&out));
        let report = json(&out);
        let row = session_in(&report, REF).clone();
        assert_eq!(row["outcome"], "restarted", "{report:#}");
        assert_eq!(row["conversation"], "confirmed", "{report:#}");
        report
    }

    /// The new Codex holds `key`, and runs `codex resume <id>`.
    pub(crate) fn holds(&self, name: &str, key: &str, id: &str) -> Pane {
        let now = self.w.pane(name).expect("the pane");
        assert_eq!(
            environ(now.pid).get("OPENAI_API_KEY").map(String::as_str),
            Some(key)
        );
        let argv = cmdline(now.pid);
        assert!(
            argv.windows(2).any(|a| a[0] == "resume" && a[1] == id),
            "{argv:?}"
        );
        now
    }

    /// No activity file under any pid but a live or past Codex pane's:
    /// never the tmux server's, never a hook's shell's.
    fn filed_only_under(&self, harnesses: &[i32]) {
        let server = self.w.tmux_server_pid();
        let dir = self.w.state.join("activity");
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let Some(pid) = name.strip_suffix(".jsonl") else {
                continue;
            };
            let pid: i32 = pid.parse().unwrap();
            assert_ne!(pid, server, "a hook filed under the tmux server");
            assert!(
                harnesses.contains(&pid),
                "filed under {pid}, not a harness: {harnesses:?}"
            );
        }
    }
}

pub(crate) fn wait_screen(w: &World, name: &str, text: &str) {
    wait_long(
        || screen(w, name).contains(text),
        &format!("{text:?} on screen"),
    );
}

#[test]
fn codex_as_a_person_uses_it_is_rolled_at_its_safe_points_and_keeps_its_conversation() {
    let _alone = alone();
    let Some(codex) = real_codex() else {
        return;
    };
    let cw = codex_world(&codex);
    let w = &cw.w;
    let name = cw.start_session();
    assert_eq!(cw.record_id(), None, "no conversation before a prompt");
    let mut harnesses = vec![w.pane(&name).unwrap().pid];
    // Codex fires no hook before the first prompt: never called idle.
    let plan = json(&w.the_loop(&["plan", "--json"]));
    assert_eq!(session_in(&plan, REF)["activity"], "unknown", "{plan:#}");

    // 1. The first prompt, typed by hand: the hooks file under this Codex,
    // and the plan learns the conversation Codex made.
    let first = cw.type_first_prompt(&name);
    wait_long(
        || {
            let activity = the_loop::activity::store::read_one(&w.state, harnesses[0]);
            activity.conversation.as_deref() == Some(first.as_str())
        },
        "the hooks of the pane's Codex named its conversation",
    );
    cw.filed_only_under(&harnesses);
    cw.rotate(KEYS[1]);
    let plan = w.the_loop(&["plan", "--json", "--detailed-exitcode"]);
    assert_eq!(code(&plan), Some(2), "{}", explain(&plan));
    let row = session_in(&json(&plan), REF).clone();
    assert_eq!(row["action"], "respawn", "{row:#}");
    assert_eq!(row["left_alone"], serde_json::Value::Null, "{row:#}");
    assert_eq!(row["activity"], "idle", "{row:#}");
    cw.apply(&[]);
    assert_eq!(cw.record_id().as_deref(), Some(first.as_str()));
    let now = cw.holds(&name, KEYS[1], &first);
    harnesses.push(now.pid);
    wait_screen(w, &name, "remember the word zebra");

    // 2. A turn that runs a while: held, then rolled soon after it ends.
    type_line(w, &name, "please wait 12 seconds");
    wait_screen(w, &name, "esc to interrupt");
    let began = Instant::now();
    cw.rotate(KEYS[2]);
    cw.apply(&["--drain-timeout", "90s"]);
    let took = began.elapsed();
    assert!(took >= Duration::from_secs(8), "rolled mid-turn: {took:?}");
    let now = cw.holds(&name, KEYS[2], &first);
    harnesses.push(now.pid);
    wait_screen(w, &name, "please wait 12 seconds");
    assert!(
        !screen(w, &name).contains("Conversation interrupted"),
        "{}",
        screen(w, &name)
    );

    // 3. A `!` command: no hook speaks for it, the screen holds the roll.
    let marker = w.root().join("bang-finished");
    type_line(w, &name, &format!("!sleep 8 && touch {}", marker.display()));
    wait_screen(w, &name, "esc to interrupt");
    cw.rotate(KEYS[3]);
    cw.apply(&["--drain-timeout", "90s"]);
    assert!(
        marker.exists(),
        "the roll ended Codex before its `!` command"
    );
    let now = cw.holds(&name, KEYS[3], &first);
    harnesses.push(now.pid);

    // 4. `/new`, then a prompt: the conversation the person is in now is
    // the one resumed and recorded, though the process holds both open.
    wait_screen(w, &name, "Ask Codex to do anything");
    type_line(w, &name, "/new");
    std::thread::sleep(Duration::from_millis(800));
    type_line(w, &name, "a new thread about giraffes");
    wait_screen(w, &name, "done.");
    let second = wait_for_one_rollout(&cw.codex_home, std::slice::from_ref(&first));
    cw.rotate(KEYS[4]);
    cw.apply(&[]);
    assert_eq!(cw.record_id().as_deref(), Some(second.as_str()));
    let record = w.record("github-octo-repo-1").unwrap();
    assert!(
        record["previousHarnessSessionIds"]
            .as_array()
            .is_some_and(|ids| ids.iter().any(|id| id == first.as_str())),
        "{record:#}"
    );
    let now = cw.holds(&name, KEYS[4], &second);
    harnesses.push(now.pid);
    wait_screen(w, &name, "a new thread about giraffes");

    // 5. Escape mid-turn: no hook says the turn ended; the screen does, and
    // the roll goes on within the drain rather than holding for good.
    type_line(w, &name, "be slow please");
    wait_screen(w, &name, "tick");
    w.tmux_ok(&["send-keys", "-t", &format!("={name}:"), "Escape"]);
    wait_screen(w, &name, "Conversation interrupted");
    let began = Instant::now();
    cw.rotate(KEYS[5]);
    cw.apply(&["--drain-timeout", "90s"]);
    assert!(
        began.elapsed() < Duration::from_secs(45),
        "{:?}",
        began.elapsed()
    );
    let now = cw.holds(&name, KEYS[5], &second);
    harnesses.push(now.pid);
    cw.filed_only_under(&harnesses);

    for (path, bytes) in w.state_files() {
        assert_no_canary(&bytes, &KEYS[..], &path.display().to_string());
    }
}

/// The rollout that appeared besides `known`, once there is exactly one.
pub(crate) fn wait_for_one_rollout(codex_home: &Path, known: &[String]) -> String {
    let mut found = None;
    wait_long(
        || {
            let new: Vec<String> = rollouts(codex_home)
                .iter()
                .filter_map(|p| the_loop::harness::codex::rollout::id_of(p))
                .filter(|id| !known.contains(id))
                .collect();
            found = match new.as_slice() {
                [one] => Some(one.clone()),
                _ => None,
            };
            found.is_some()
        },
        "one new rollout",
    );
    found.unwrap()
}

#[test]
fn a_codex_started_by_hand_is_imported_with_the_conversation_it_holds_and_rolled() {
    let _alone = alone();
    let Some(codex) = real_codex() else {
        return;
    };
    let cw = codex_world(&codex);
    let w = &cw.w;
    let cwd = w.work.join("own");
    std::fs::create_dir_all(cwd.join(".git")).unwrap();
    // Trusted by the person, as Codex asks on a first start in a folder.
    let mut config = std::fs::read_to_string(cw.codex_home.join("config.toml")).unwrap();
    config.push_str(&format!(
        "\n[projects.\"{}\"]\ntrust_level = \"trusted\"\n",
        cwd.canonicalize().unwrap().display()
    ));
    std::fs::write(cw.codex_home.join("config.toml"), config).unwrap();
    let pane = w.typed_in_own_session(
        "mine",
        &cwd,
        &format!("OPENAI_API_KEY={}", KEYS[0]),
        &format!("{} -c check_for_update_on_startup=false", codex.display()),
    );
    wait_screen(w, "mine", "Ask Codex to do anything");
    type_line(w, "mine", "hello from my own codex");
    wait_screen(w, "mine", "done.");
    let id = wait_for_one_rollout(&cw.codex_home, &[]);

    let out = ok(w.the_loop(&["import", &pane.id, REF, "--json"]));
    let imported = json(&out);
    assert_eq!(imported["harness_session_id"], id.as_str(), "{imported:#}");
    assert_eq!(imported["conversation_from"], "harness", "{imported:#}");

    cw.rotate(KEYS[1]);
    let report = cw.apply(&[]);
    let name = session_in(&report, REF)["tmux_target"]
        .as_str()
        .unwrap()
        .to_owned();
    let now = cw.holds(&name, KEYS[1], &id);
    assert_eq!(now.id, pane.id, "the same pane");
    wait_screen(w, &name, "hello from my own codex");
    for (path, bytes) in w.state_files() {
        assert_no_canary(&bytes, &KEYS[..], &path.display().to_string());
    }
}

#[test]
fn a_mixed_fleet_of_the_real_codex_and_the_real_claude_code_rolls_in_one_apply() {
    let _alone = alone();
    let (Some(codex), Some(claude)) = (real_codex(), crate::real_claude::real_claude()) else {
        return;
    };
    let cw = codex_world_beside(&codex, Some(&claude));
    let w = &cw.w;
    let cwd = w.work.join("repo");
    std::fs::create_dir_all(cwd.join(".git")).unwrap();
    let start = |reference: &str, harness: &str| -> String {
        let out = w.the_loop(&[
            "sessions",
            "start",
            reference,
            "--harness",
            harness,
            "--cwd",
            cwd.to_str().unwrap(),
            "--json",
        ]);
        assert_eq!(code(&out), Some(0), "{}", explain(&out));
        json(&out)["tmux_target"].as_str().unwrap().to_owned()
    };
    let codex_name = start(REF, "codex");
    let claude_ref = "github:octo/repo#2";
    let claude_name = start(claude_ref, "claude");
    // Each begun by a prompt typed by hand.
    wait_screen(w, &codex_name, "Ask Codex to do anything");
    type_line(w, &codex_name, "hello codex, remember zebra");
    wait_screen(w, &codex_name, "done.");
    let codex_id = wait_for_one_rollout(&cw.codex_home, &[]);
    wait_long(|| screen(w, &claude_name).contains('❯'), "Claude's prompt");
    type_line(w, &claude_name, "hello claude, remember giraffe");
    let claude_id = w.record("github-octo-repo-2").unwrap()["harnessSessionId"]
        .as_str()
        .unwrap()
        .to_owned();
    let transcript = claude_transcript(&w.root().join("claude-config"), &cwd, &claude_id);
    wait_long(|| transcript.is_file(), "Claude's transcript");
    let before = (w.pane(&codex_name).unwrap(), w.pane(&claude_name).unwrap());

    cw.rotate(KEYS[1]);
    let report = cw.apply(&[]);
    let claude_row = session_in(&report, claude_ref);
    assert_eq!(claude_row["outcome"], "restarted", "{report:#}");
    assert_eq!(claude_row["conversation"], "confirmed", "{report:#}");
    assert_eq!(session_in(&report, REF)["harness"], "codex");
    assert_eq!(claude_row["harness"], "claude");
    let codex_now = cw.holds(&codex_name, KEYS[1], &codex_id);
    let claude_now = w.pane(&claude_name).unwrap();
    assert_ne!(codex_now.pid, before.0.pid);
    assert_ne!(claude_now.pid, before.1.pid);
    assert_eq!(
        environ(claude_now.pid)
            .get("OPENAI_API_KEY")
            .map(String::as_str),
        Some(KEYS[1])
    );
    assert!(
        cmdline(claude_now.pid)
            .windows(2)
            .any(|a| a[0] == "--resume" && a[1] == claude_id),
        "{:?}",
        cmdline(claude_now.pid)
    );
    wait_screen(w, &codex_name, "hello codex, remember zebra");
    wait_screen(w, &claude_name, "hello claude, remember giraffe");
    cw.filed_only_under(&[before.0.pid, before.1.pid, codex_now.pid, claude_now.pid]);
    for (path, bytes) in w.state_files() {
        assert_no_canary(&bytes, &KEYS[..], &path.display().to_string());
    }
}
