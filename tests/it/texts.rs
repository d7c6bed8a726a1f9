//! Snapshots of the texts an operator reads: the apply report, `sessions
//! list`, `status` and every command's `--help`, from the built binary on a
//! real tmux. A change to any of them shows up as a snapshot diff to review
//! (`INSTA_UPDATE=always cargo test --test it texts::`, then read the
//! `.snap` files) rather than passing unseen.
//!
//! What differs between runs and machines is replaced by a named placeholder
//! before the comparison: the world's temporary root, pids, the random
//! conversation ids, the fingerprint of the config file's path (the
//! launcher's `THE_LOOP_CLI_CONFIG` holds that path), and the tmux version.
//! Each is replaced by its exact value, never by a pattern, so nothing else
//! can be hidden by accident; ages are made stable by writing the records'
//! timestamps relative to now.

use crate::support::*;
use std::process::Command;

const RETIRED: &str = "xoxb-RETIRED-texts-canary-2b1d";
const ROTATED: &str = "xoxb-ROTATED-texts-canary-8e4f";

/// Exact values to replace, longest first so a value that contains another
/// is replaced whole.
struct Redactions(Vec<(String, String)>);

impl Redactions {
    /// The world's root, the config path's fingerprint, the tmux server's pid
    /// and the tmux version: what every text from this world may contain.
    fn of(w: &World) -> Redactions {
        let mut r = Redactions(Vec::new());
        // tmux's socket directory is named for the user who runs the tests.
        let uid = std::fs::metadata(&w.state).map(|m| std::os::unix::fs::MetadataExt::uid(&m));
        r.add(format!("/tmux-{}/", uid.unwrap()), "/tmux-[UID]/");
        r.add(w.root().display().to_string(), "[ROOT]");
        // Eight characters, as the fingerprint it stands for, so columns
        // measured from it keep their width.
        r.add(fp(&w.config_path.display().to_string()), "[cfg-fp]");
        if let Some(pid) = w.server_pid() {
            r.add(format!("pid {pid}"), "pid [tmux server]");
        }
        let version = w.tmux_ok(&["-V"]);
        if let Some(v) = version.trim().strip_prefix("tmux ") {
            r.add(
                format!("tmux{}{v}\n", " ".repeat(11)),
                "tmux           [version]\n",
            );
        }
        r
    }

    fn add(&mut self, value: impl Into<String>, placeholder: &str) {
        let value = value.into();
        assert!(!value.is_empty(), "an empty value would match everywhere");
        self.0.push((value, placeholder.to_owned()));
    }

    /// `pid N` for a pane's harness, named by its session and `role`.
    fn pid(&mut self, pid: i32, who: &str) {
        self.add(format!("pid {pid})"), &format!("pid [{who}])"));
        self.add(format!("pid {pid} →"), &format!("pid [{who}] →"));
        self.add(format!("→ {pid}\n"), &format!("→ [{who}]\n"));
        self.add(format!("→ {pid}  "), &format!("→ [{who}]  "));
    }

    fn apply(&self, text: &str) -> String {
        let mut pairs: Vec<&(String, String)> = self.0.iter().collect();
        pairs.sort_by_key(|(value, _)| std::cmp::Reverse(value.len()));
        pairs
            .iter()
            .fold(text.to_owned(), |t, (value, placeholder)| {
                t.replace(value.as_str(), placeholder)
            })
    }
}

/// The command's stdout, after it exited with `expected`.
fn text_of(w: &World, args: &[&str], expected: i32) -> String {
    let out = w.the_loop(args);
    assert_eq!(code(&out), Some(expected), "{args:?}: {}", explain(&out));
    stdout(&out)
}

#[test]
fn the_apply_report() {
    let w = World::new();
    let sessions = w.rotated_fleet(2, RETIRED, ROTATED);
    let mut r = Redactions::of(&w);
    let before: Vec<i32> = sessions
        .iter()
        .map(|s| w.pane(&s.name).unwrap().pid)
        .collect();
    for (i, pid) in before.iter().enumerate() {
        r.pid(*pid, &format!("old {}", i + 1));
    }

    let dry = text_of(&w, &["apply", "--dry-run", "--no-color"], 0);
    insta::assert_snapshot!("apply_dry_run", r.apply(&dry));

    let applied = text_of(&w, &["apply", "--auto-approve", "--no-color"], 0);
    for (i, s) in sessions.iter().enumerate() {
        let pane = w.pane(&s.name).unwrap();
        assert_ne!(pane.pid, before[i], "{} was respawned", s.name);
        r.pid(pane.pid, &format!("new {}", i + 1));
    }
    insta::assert_snapshot!("apply", r.apply(&applied));
    assert_no_canary(applied.as_bytes(), &[RETIRED, ROTATED], "apply report");
}

#[test]
fn sessions_list() {
    let w = World::new();
    w.write_env("EXAMPLE_SETTING=not-secret\n");
    let mut r = Redactions::of(&w);
    let now = the_loop::clock::now_secs().unwrap();
    let ago = |secs: u64| the_loop::clock::format_utc(now - secs);

    let checkout = w.home.join("src/octo/repo");
    std::fs::create_dir_all(&checkout).unwrap();
    let linked = w.started_session_in("github:octo/repo#15", "github-octo-repo-15", &checkout);
    ok(w.the_loop(&[
        "sessions",
        "link-pr",
        &linked.reference,
        "--pull-request",
        "github:octo/repo#16",
    ]));
    // Ages are measured from the record: a few seconds of a slow run do not
    // move these across a unit.
    w.edit_record(&linked.slug, |rec| {
        rec["createdAt"] = ago(3 * 86_400 + 600).into();
        rec["lastEventAt"] = ago(2 * 3_600 + 600).into();
    });

    let other = w.home.join("src/octo/other");
    std::fs::create_dir_all(&other).unwrap();
    let paused = w.started_session_in("github:octo/other#7", "github-octo-other-7", &other);
    ok(w.the_loop(&["sessions", "pause", &paused.reference]));
    w.edit_record(&paused.slug, |rec| {
        rec["createdAt"] = ago(40 * 60 + 30).into();
        rec["lastEventAt"] = serde_json::Value::Null;
    });

    // A loop-* tmux session with no record is listed as unmanaged.
    w.tmux_ok(&["new-session", "-d", "-s", "loop-stray", "sleep", "600"]);

    // Eight characters, as the column shows of a conversation id.
    r.add(
        linked.session_id.chars().take(8).collect::<String>(),
        "[conv-1]",
    );
    r.add(
        paused.session_id.chars().take(8).collect::<String>(),
        "[conv-2]",
    );
    // Each harness reports its start through a hook a moment after the pane
    // is up; until then its activity reads `unknown`. Wait for both reports
    // so the text does not depend on that race.
    wait_for(
        || {
            json(&w.the_loop(&["sessions", "list", "--json"]))["sessions"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|s| s["ref"].is_string())
                .all(|s| s["activity"] == "idle")
        },
        "both harnesses report their start",
    );
    let listed = text_of(&w, &["sessions", "list", "--no-color"], 0);
    insta::assert_snapshot!("sessions_list", r.apply(&listed));
}

#[test]
fn status() {
    let w = World::new();
    w.rotated_fleet(2, RETIRED, ROTATED);
    let r = Redactions::of(&w);
    let drifted = text_of(&w, &["status", "--no-color"], 0);
    insta::assert_snapshot!("status_drifted", r.apply(&drifted));

    ok(w.the_loop(&["apply", "--auto-approve", "--no-color"]));
    let converged = text_of(&w, &["status", "--no-color"], 0);
    insta::assert_snapshot!("status_converged", r.apply(&converged));
}

/// Every command's `--help`, root first, in the order `help` lists them;
/// hidden commands excluded.
#[test]
fn help_of_every_command() {
    let mut paths = vec![Vec::new()];
    paths.extend(subcommand_paths());

    let mut all = String::new();
    for path in &paths {
        let out = Command::new(assert_cmd::cargo::cargo_bin("the-loop"))
            .args(path)
            .arg("--help")
            // clap wraps help to $COLUMNS when stdout is not a terminal.
            .env("COLUMNS", "100")
            .env_remove("NO_COLOR")
            .output()
            .unwrap();
        assert_eq!(code(&out), Some(0), "{path:?}: {}", explain(&out));
        assert!(out.stderr.is_empty(), "{path:?}: {}", explain(&out));
        let title = format!("the-loop {} --help", path.join(" ")).replace("  ", " ");
        all.push_str(&format!("===== {title}\n{}\n", stdout(&out)));
    }
    insta::assert_snapshot!("help", all);
}
