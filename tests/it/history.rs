//! `the-loop history`: the rolls of a real tmux world read back from the
//! event log, newest first, with what changed in the env file between them
//! (by fingerprint) and each session's outcome; never a value.

use crate::support::*;
use serde_json::Value;

const RETIRED: &str = "xoxb-RETIRED-hist-1c4e";
const ROTATED: &str = "xoxb-ROTATED-hist-7d0a";
const ROTATED_AGAIN: &str = "xoxb-AGAIN-hist-52b9";
const ADDED: &str = "added-hist-e81f-Kq9Zr7Xw2Np4";

#[test]
fn two_rolls_read_back_newest_first_with_the_env_file_between_them() {
    let w = World::new();
    let sessions = w.rotated_fleet(2, RETIRED, ROTATED);
    ok(w.the_loop(&["apply", "--auto-approve"]));
    w.write_env(&format!(
        "SLACK_BOT_TOKEN={ROTATED_AGAIN}\nADDED_NAME={ADDED}\n"
    ));
    ok(w.the_loop(&["sessions", "restart", &sessions[1].reference]));

    let out = ok(w.the_loop(&["history", "--json"]));
    let doc = json(&out);
    let schema_path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas/history.schema.json");
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(schema_path).unwrap()).unwrap();
    if let Some(why) = crate::events_schema::violation(&schema, &schema, &doc, "$") {
        panic!("history --json does not match its schema: {why}\n{doc:#}");
    }
    let rolls = doc["rolls"].as_array().unwrap();
    let commands: Vec<&str> = rolls
        .iter()
        .map(|r| r["command"].as_str().unwrap())
        .collect();
    assert_eq!(commands, ["sessions restart", "apply"], "newest first");
    for roll in rolls {
        assert_eq!(roll["result"], "succeeded", "{roll:#}");
        assert!(
            roll["started"].as_str().unwrap() <= roll["finished"].as_str().unwrap(),
            "{roll:#}"
        );
        assert_eq!(roll["env"]["file"], w.env_path.to_str().unwrap());
    }
    let (newest, first) = (&rolls[0], &rolls[1]);

    // The first roll: both sessions, and nothing earlier to compare with.
    assert_eq!(first["selected"], 2);
    let refs = |roll: &Value| -> Vec<(String, String)> {
        roll["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                (
                    s["ref"].as_str().unwrap().to_owned(),
                    s["outcome"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    };
    let mut rolled = refs(first);
    rolled.sort();
    assert_eq!(
        rolled,
        [
            (sessions[0].reference.clone(), "restarted".to_owned()),
            (sessions[1].reference.clone(), "restarted".to_owned()),
        ]
    );
    assert_eq!(first["env"]["names"], 1);
    assert_eq!(first["env"]["changes"], Value::Null);

    // The second: one session, and the token rotated and a name added since.
    assert_eq!(
        refs(newest),
        [(sessions[1].reference.clone(), "restarted".to_owned())]
    );
    assert_eq!(newest["env"]["names"], 2);
    assert_eq!(
        newest["env"]["changes"],
        serde_json::json!([
            {"name": "ADDED_NAME", "before": null, "after": fp(ADDED)},
            {"name": "SLACK_BOT_TOKEN", "before": fp(ROTATED), "after": fp(ROTATED_AGAIN)},
        ])
    );
    assert_eq!(doc["truncated"], false);
    assert_eq!(doc["unreadable_lines"], 0);

    let text = stdout(&ok(w.the_loop(&["history", "--no-color"])));
    let restart_at = text
        .find("  sessions restart  succeeded")
        .unwrap_or(usize::MAX);
    let apply_at = text.find("  apply  succeeded").unwrap_or(usize::MAX);
    assert!(restart_at < apply_at && apply_at < text.len(), "{text}");
    assert!(
        text.contains(&format!(
            "env file  {}: ADDED_NAME absent → {}, SLACK_BOT_TOKEN {} → {}",
            w.env_path.display(),
            fp(ADDED),
            fp(ROTATED),
            fp(ROTATED_AGAIN)
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!("{}  restarted", sessions[1].reference)),
        "{text}"
    );
    assert!(text.ends_with(&format!(
        "2 rolls in {}, newest first.\n",
        w.state.join("events.jsonl").display()
    )));
    for out in [&text, &stdout(&out)] {
        assert_no_canary(
            out.as_bytes(),
            &[RETIRED, ROTATED, ROTATED_AGAIN, ADDED],
            "history",
        );
    }
}

/// No roll yet, no log yet: an empty history, not an error; and a log that
/// is not a regular file is refused by name, never read.
#[test]
fn an_empty_or_unreadable_log() {
    let w = World::new();
    w.write_env("A=1\n");
    let out = ok(w.the_loop(&["history"]));
    assert_eq!(
        stdout(&out),
        format!(
            "No rolls recorded in {}.\n",
            w.state.join("events.jsonl").display()
        )
    );
    assert_eq!(
        json(&ok(w.the_loop(&["history", "--json"])))["rolls"],
        serde_json::json!([])
    );

    std::fs::create_dir_all(&w.state).unwrap();
    nix::unistd::mkfifo(&w.state.join("events.jsonl"), nix::sys::stat::Mode::S_IRWXU).unwrap();
    let out = w.the_loop(&["history"]);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    assert!(
        flat(&stderr(&out)).contains(&flat("cannot read the event log")),
        "{}",
        explain(&out)
    );
}
