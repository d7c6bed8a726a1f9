//! `status --json` and `apply --json-stream`: a format version, and only their schemas' keys.

use super::*;

/// Every key of `doc` is a property the published schema declares, at the
/// top level and in each session.
fn keys_in_schema(doc: &serde_json::Value, schema_file: &str) {
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("schemas")
                .join(schema_file),
        )
        .unwrap(),
    )
    .unwrap();
    let top = schema["properties"].as_object().unwrap();
    for key in doc.as_object().unwrap().keys() {
        assert!(top.contains_key(key), "{key} not in {schema_file}");
    }
    for req in schema["required"].as_array().unwrap() {
        assert!(doc.get(req.as_str().unwrap()).is_some(), "{req} missing");
    }
}

/// `status --json` carries format_version and matches its schema; when
/// tmux does not answer, status says so instead of "0 running".
#[test]
fn status_has_a_format_version_and_says_when_tmux_did_not_answer() {
    let w = World::new();
    let _s = w.rotated_fleet(2, "xoxb-RETIRED-st-1", "xoxb-ROTATED-st-2");
    let out = w.the_loop(&["status", "--json"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let doc = json(&out);
    assert_eq!(doc["format_version"], "1");
    assert_eq!(doc["tmux_unanswered"], serde_json::Value::Null);
    assert_eq!(doc["sessions"][0]["environment"], "stale");
    keys_in_schema(&doc, "status.schema.json");
    let text = stdout(&w.the_loop(&["status"]));
    assert!(text.contains("2 registered, 2 running"), "{text}");

    // Now tmux hangs: a socket that accepts and never answers.
    w.tmux(&["kill-server"]);
    let socket = w
        .tmux_tmpdir
        .join(format!("tmux-{}", nix::unistd::getuid().as_raw()))
        .join("default");
    let _ = std::fs::remove_file(socket);
    let _hung = HungSocket::bind(&w.tmux_tmpdir);
    let env = [("THE_LOOP_TMUX_TIMEOUT_MS", "300")];
    let out = w.the_loop_with(&["status"], &env);
    let text = stdout(&out);
    assert!(!text.contains("0 running"), "{text}");
    assert!(
        text.contains("2 registered; tmux did not answer (")
            && text.contains("whether they run is unknown"),
        "{}",
        explain(&out)
    );
    // The exit code keeps the status contract: services only (see README).
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let doc = json(&w.the_loop_with(&["status", "--json"], &env));
    assert!(
        doc["tmux_unanswered"]
            .as_str()
            .unwrap()
            .contains("did not answer"),
        "{doc}"
    );
    assert_eq!(doc["sessions"][0]["probe"], "unknown");
    keys_in_schema(&doc, "status.schema.json");
}

/// `apply --json-stream`: JSON lines, one event per line as it happens, in
/// order: every session planned, then for each session `respawning` before
/// its `verified`, and `finished` with the whole report last.
#[test]
fn json_stream_reads_as_json_lines_in_order() {
    let w = World::new();
    let sessions = w.rotated_fleet(2, "xoxb-RETIRED-js-1", "xoxb-ROTATED-js-2");
    let out = w.the_loop(&["apply", "--json-stream"]);
    assert_eq!(
        code(&out),
        Some(1),
        "needs --auto-approve: {}",
        explain(&out)
    );
    assert!(stderr(&out).contains("--auto-approve"), "{}", explain(&out));

    let out = w.the_loop(&[
        "apply",
        "--auto-approve",
        "--json-stream",
        "--parallelism",
        "1",
    ]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    assert_no_canary(
        &out.stdout,
        &["xoxb-RETIRED-js-1", "xoxb-ROTATED-js-2"],
        "stream",
    );
    let lines: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not a JSON line ({e}): {l}")))
        .collect();
    let types: Vec<&str> = lines.iter().map(|l| l["type"].as_str().unwrap()).collect();
    for line in &lines {
        assert_eq!(line["format_version"], "1");
        keys_in_schema(line, "apply-stream.schema.json");
    }
    assert_eq!(&types[..2], ["planned", "planned"], "{types:?}");
    assert_eq!(types.last(), Some(&"finished"), "{types:?}");
    for s in &sessions {
        let at = |t: &str| {
            lines
                .iter()
                .position(|l| l["type"] == t && l["ref"] == s.reference.as_str())
                .unwrap_or_else(|| panic!("no {t} for {}: {types:?}", s.reference))
        };
        assert!(at("planned") < at("respawning"), "{types:?}");
        assert!(at("respawning") < at("verified"), "{types:?}");
        assert_eq!(lines[at("planned")]["action"], "respawn");
        assert_eq!(lines[at("verified")]["outcome"], "restarted");
    }
    let report = &lines.last().unwrap()["report"];
    assert_eq!(report["sessions"].as_array().unwrap().len(), 2);
    // One canary first, then the rest: with parallelism 1 the lines follow
    // the roll, session by session.
    assert_eq!(
        &types[2..6],
        ["respawning", "verified", "respawning", "verified"],
        "{types:?}"
    );
}
