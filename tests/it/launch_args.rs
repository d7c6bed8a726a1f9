//! Launch arguments on a real tmux with the stand-in harness: model and
//! effort validated at start, recorded, listed, and argv drift planned and
//! applied by relaunching the pane with the conversation resumed.

use crate::support::*;

const REF: &str = "github:octo/repo#15";
const SLUG: &str = "github-octo-repo-15";
const NAME: &str = "loop-github-octo-repo-15";

const MODELS: &str = "  models:\n    opus: [high, max]\n    sonnet: [low, high]\n";

/// Starts a session with `extra` arguments and waits for the harness to run.
fn start(w: &World, extra: &[&str]) -> LegacySession {
    let cwd = w.work.join("repo15");
    std::fs::create_dir_all(&cwd).unwrap();
    let mut args = vec![
        "sessions",
        "start",
        REF,
        "--cwd",
        cwd.to_str().unwrap(),
        "--json",
    ];
    args.extend(extra);
    let started = json(&ok(w.the_loop(&args)));
    let session = LegacySession {
        reference: REF.into(),
        slug: SLUG.into(),
        name: NAME.into(),
        session_id: started["harness_session_id"].as_str().unwrap().into(),
        cwd,
    };
    wait_for(|| w.transcript(&session).is_file(), "the harness started");
    session
}

fn harness_argv(w: &World) -> (Pane, Vec<String>) {
    let pane = w.pane(NAME).expect("session is running");
    (pane.clone(), cmdline(pane.pid))
}

fn has_pair(argv: &[String], flag: &str, value: &str) -> bool {
    argv.windows(2).any(|p| p[0] == flag && p[1] == value)
}

#[test]
fn an_edited_model_is_planned_as_args_drift_and_applied_by_a_resumed_relaunch() {
    let w = World::new();
    w.write_env("UNRELATED=1\n");
    w.write_config_with_routing(MODELS);
    let s = start(&w, &["--model", "sonnet", "--effort", "low"]);
    let (before, argv) = harness_argv(&w);
    assert!(has_pair(&argv, "--model", "sonnet"), "{argv:?}");
    assert!(has_pair(&argv, "--effort", "low"), "{argv:?}");
    let record = w.record(SLUG).expect("record exists");
    assert_eq!(record["model"], "sonnet");
    assert_eq!(record["effort"], "low");
    assert!(record.get("harnessArgs").is_none(), "omitted when empty");

    let clean = w.the_loop(&["plan", "--detailed-exitcode"]);
    assert_eq!(clean.status.code(), Some(0), "{}", stdout(&clean));

    w.edit_record(SLUG, |r| {
        r["model"] = "opus".into();
        r["effort"] = "high".into();
    });
    let text = w.the_loop(&["plan", "--detailed-exitcode"]);
    assert_eq!(
        text.status.code(),
        Some(2),
        "args drift is drift: {}",
        stdout(&text)
    );
    let shown = stdout(&text);
    assert!(
        shown.contains("--model") && shown.contains("sonnet → opus"),
        "{shown}"
    );
    assert!(
        shown.contains("--effort") && shown.contains("low → high"),
        "{shown}"
    );
    assert!(
        shown.contains("args:"),
        "labelled as an args change: {shown}"
    );

    let plan = json(&ok(w.the_loop(&["plan", "--json"])));
    let session = &plan["sessions"][0];
    assert_eq!(session["ref"], REF);
    assert_eq!(session["action"], "respawn");
    assert_eq!(session["changes"], serde_json::json!([]), "no env change");
    assert_eq!(
        session["args_changes"],
        serde_json::json!([
            {"name": "model", "have": ["sonnet"], "want": ["opus"]},
            {"name": "effort", "have": ["low"], "want": ["high"]}
        ])
    );

    let applied = json(&ok(w.the_loop(&["apply", "--auto-approve", "--json"])));
    assert_eq!(applied["sessions"][0]["outcome"], "restarted", "{applied}");
    let (after, argv) = harness_argv(&w);
    assert_ne!(after.pid, before.pid, "a new process");
    assert_eq!(after.id, before.id, "the same pane");
    assert!(
        has_pair(&argv, "--resume", &s.session_id),
        "same conversation: {argv:?}"
    );
    assert!(has_pair(&argv, "--model", "opus"), "{argv:?}");
    assert!(has_pair(&argv, "--effort", "high"), "{argv:?}");
    assert!(!argv.iter().any(|a| a == "sonnet"), "{argv:?}");
    wait_for(
        || w.transcript_text(&s).contains("\"type\":\"resume\""),
        "the stand-in resumed the conversation",
    );

    let settled = w.the_loop(&["plan", "--detailed-exitcode"]);
    assert_eq!(settled.status.code(), Some(0), "{}", stdout(&settled));
}

#[test]
fn a_model_the_config_no_longer_declares_is_dropped_aloud() {
    let w = World::new();
    w.write_env("UNRELATED=1\n");
    w.write_config_with_routing(MODELS);
    start(&w, &["--model", "opus", "--effort", "max"]);

    // The operator withdraws opus.
    w.write_config_with_routing("  models:\n    sonnet: [low]\n");
    let plan = json(&ok(w.the_loop(&["plan", "--json"])));
    let changes = &plan["sessions"][0]["args_changes"];
    assert_eq!(changes[0]["name"], "model");
    assert_eq!(changes[0]["want"], serde_json::json!([]));
    assert!(
        changes[0]["dropped"]
            .as_str()
            .unwrap()
            .contains("not declared in routing.models"),
        "{changes}"
    );
    let text = stdout(&w.the_loop(&["plan"]));
    assert!(text.contains("dropped"), "said in the plan: {text}");

    ok(w.the_loop(&["apply", "--auto-approve"]));
    let (_, argv) = harness_argv(&w);
    assert!(
        !argv.iter().any(|a| a == "--model" || a == "--effort"),
        "{argv:?}"
    );
    assert!(w
        .events()
        .iter()
        .any(|e| e["event"] == "session.launch_args_dropped" && e["dropped"]["value"] == "opus"));
    // The record, and so `sessions list`, says what runs now.
    let record = w.record(SLUG).unwrap();
    assert_eq!(record["model"], serde_json::Value::Null, "{record}");
    assert_eq!(record["effort"], serde_json::Value::Null, "{record}");
    let listed = stdout(&ok(w.the_loop(&["sessions", "list", "--json"])));
    assert!(!listed.contains("opus"), "{listed}");
}

#[test]
fn a_respawn_on_delivery_records_what_it_launched() {
    let w = World::new();
    w.write_env("UNRELATED=1\n");
    w.write_config_with_routing(MODELS);
    start(&w, &["--model", "opus", "--effort", "max"]);
    w.write_config_with_routing("  models:\n    sonnet: [low]\n");
    w.tmux_ok(&["kill-session", "-t", &format!("={NAME}")]);

    let out = ok(w.the_loop(&[
        "sessions",
        "deliver",
        REF,
        "--message",
        "wake up",
        "--delivery-id",
        "w-1",
        "--json",
    ]));
    assert_eq!(json(&out)["route"], "respawned");
    let (_, argv) = harness_argv(&w);
    assert!(!argv.iter().any(|a| a == "--model"), "{argv:?}");
    let record = w.record(SLUG).unwrap();
    assert_eq!(record["model"], serde_json::Value::Null, "{record}");
    assert_eq!(record["effort"], serde_json::Value::Null, "{record}");
}

#[test]
fn start_drops_an_undeclared_model_and_says_so() {
    let w = World::new();
    w.write_env("UNRELATED=1\n");
    w.write_config_with_routing(MODELS);
    let cwd = w.work.join("repo15");
    std::fs::create_dir_all(&cwd).unwrap();
    let out = ok(w.the_loop(&[
        "sessions",
        "start",
        REF,
        "--cwd",
        cwd.to_str().unwrap(),
        "--model=--dangerously-skip-permissions",
        "--effort",
        "high",
    ]));
    let said = stderr(&out);
    assert!(
        said.contains("model \"--dangerously-skip-permissions\" dropped"),
        "{said}"
    );
    assert!(said.contains("effort \"high\" dropped"), "{said}");
    wait_for(
        || {
            w.pane(NAME)
                .is_some_and(|p| cmdline(p.pid).iter().any(|a| a == "--session-id"))
        },
        "the harness started",
    );
    let (_, argv) = harness_argv(&w);
    assert!(
        !argv
            .iter()
            .any(|a| a == "--dangerously-skip-permissions" || a == "--model"),
        "{argv:?}"
    );
    let record = w.record(SLUG).expect("record exists");
    assert!(
        record.get("model").is_none() && record.get("effort").is_none(),
        "{record}"
    );
}

#[test]
fn sessions_list_shows_the_model_with_its_effort() {
    let w = World::new();
    w.write_env("UNRELATED=1\n");
    w.write_config_with_routing(MODELS);
    start(&w, &["--model", "opus", "--effort", "max"]);
    let listed = stdout(&ok(w.the_loop(&["sessions", "list"])));
    let row = listed
        .lines()
        .find(|l| l.starts_with(REF))
        .unwrap_or_else(|| panic!("{listed}"));
    assert!(row.ends_with("opus (max)"), "{listed}");
    assert!(
        listed.lines().next().unwrap().ends_with("MODEL"),
        "{listed}"
    );
    let json = json(&ok(w.the_loop(&["sessions", "list", "--json"])));
    assert_eq!(json["sessions"][0]["model"], "opus");
    assert_eq!(json["sessions"][0]["effort"], "max");
}

#[test]
fn raw_config_is_never_the_reference() {
    let w = World::new();
    w.write_env("UNRELATED=1\n");
    w.write_config_with_routing(&format!(
        "  harnessArgs:\n    claude: [\"--verbose\"]\n{MODELS}"
    ));
    start(&w, &[]);
    assert_eq!(
        w.record(SLUG).expect("record exists")["harnessArgs"],
        serde_json::json!(["--verbose"])
    );
    // The config now asks for other arguments; the record still says what
    // this session runs with, so nothing has drifted.
    w.write_config_with_routing(&format!(
        "  harnessArgs:\n    claude: [\"--debug\"]\n{MODELS}"
    ));
    let plan = json(&ok(w.the_loop(&["plan", "--json"])));
    assert_eq!(plan["sessions"][0]["action"], "none", "{plan}");
    assert_eq!(plan["sessions"][0]["args_changes"], serde_json::json!([]));
}

#[test]
fn a_record_without_launch_arguments_is_left_alone() {
    let w = World::new();
    w.write_env("UNRELATED=1\n");
    w.write_config_with_routing(MODELS);
    start(&w, &[]);
    assert!(w
        .record(SLUG)
        .expect("record exists")
        .get("harnessArgs")
        .is_none());
    // An older record states nothing about arguments: whatever the harness
    // runs with is not compared, even when the config now asks for more.
    w.write_config_with_routing(&format!(
        "  harnessArgs:\n    claude: [\"--verbose\"]\n{MODELS}"
    ));
    let plan = json(&ok(w.the_loop(&["plan", "--json"])));
    assert_eq!(plan["sessions"][0]["action"], "none", "{plan}");
    assert_eq!(plan["sessions"][0]["args_changes"], serde_json::json!([]));
}

/// The next event relaunches a session whose launch arguments drifted
/// (resuming its conversation, as a roll does) and is then delivered into
/// the new process, never into the drifted one (issue 35).
#[test]
fn a_delivery_relaunches_a_session_whose_arguments_drifted_then_delivers() {
    let w = World::new();
    w.write_env("UNRELATED=1\n");
    w.write_config_with_routing(MODELS);
    let s = start(&w, &["--model", "opus", "--effort", "max"]);
    let (before, _) = harness_argv(&w);
    wait_for_harness(before.pid);
    // The process runs `--effort max` while the record now asks for `high`.
    w.edit_record(SLUG, |r| r["effort"] = "high".into());

    let out = w.the_loop(&[
        "sessions",
        "deliver",
        REF,
        "--message",
        "next event",
        "--delivery-id",
        "d-1",
        "--json",
    ]);
    assert!(out.status.success(), "{}", explain(&out));
    let report = json(&out);
    assert_eq!(report["outcome"], "delivered", "{report}");
    assert_eq!(report["route"], "pasted", "{report}");
    assert_eq!(report["relaunch"]["outcome"], "restarted", "{report}");
    assert_eq!(report["relaunch"]["args_changes"][0]["name"], "effort");

    let (after, argv) = harness_argv(&w);
    assert_ne!(
        after.pid, before.pid,
        "relaunched, not pasted into the drifted one"
    );
    assert_eq!(after.id, before.id, "in place");
    assert!(has_pair(&argv, "--resume", &s.session_id), "{argv:?}");
    assert!(has_pair(&argv, "--effort", "high"), "{argv:?}");
    assert!(!alive(before.pid), "the drifted process is gone");
    // The text reached the new process: the stand-in logs what it reads
    // under the pid that read it.
    wait_for(
        || {
            w.transcript_text(&s).lines().any(|l| {
                l.contains("\"type\":\"input\"") && l.contains(&format!("\"pid\":{}", after.pid))
            })
        },
        "the new process read the delivery",
    );
    let events = w.events_named("apply.started");
    assert_eq!(events.last().unwrap()["command"], "sessions deliver");

    // An undrifted session is pasted into as before, with no relaunch.
    let out = w.the_loop(&[
        "sessions",
        "deliver",
        REF,
        "--message",
        "again",
        "--delivery-id",
        "d-2",
        "--json",
    ]);
    let report = json(&out);
    assert_eq!(report["route"], "pasted", "{report}");
    assert!(report.get("relaunch").is_none(), "{report}");
    assert_eq!(w.pane(NAME).unwrap().pid, after.pid);
}
