//! Every line a real roll writes to `events.jsonl` is valid against
//! `schemas/events.schema.json`, the published schema of the event log.
//!
//! The check is a small validator for the JSON Schema keywords the schemars
//! output uses (`$ref` into `$defs`, `type`, `properties`, `required`,
//! `additionalProperties`, `items`, `oneOf`, `anyOf`, `allOf`, `const`,
//! `enum`, `minimum`). `format`, `pattern` and annotations are not checked.
//! A test below proves it rejects what it should, so a pass means something.

use crate::support::*;
use serde_json::Value;

const RETIRED: &str = "xoxb-RETIRED-canary-9a1f";
const ROTATED: &str = "xoxb-ROTATED-canary-3e7d";

fn schema() -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas/events.schema.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Why `value` does not match `schema` (resolved against `root`), if it does not.
pub(super) fn violation(root: &Value, schema: &Value, value: &Value, at: &str) -> Option<String> {
    let Some(schema) = schema.as_object() else {
        // `true` accepts anything, `false` nothing.
        return (schema == &Value::Bool(false)).then(|| format!("{at}: nothing is allowed here"));
    };
    if let Some(Value::String(r)) = schema.get("$ref") {
        let name = r.strip_prefix("#/$defs/").expect("local refs only");
        if let Some(why) = violation(root, &root["$defs"][name], value, at) {
            return Some(why);
        }
    }
    if let Some(t) = schema.get("type") {
        let types: Vec<&str> = match t {
            Value::String(s) => vec![s.as_str()],
            Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
            _ => panic!("bad type keyword"),
        };
        if !types.iter().any(|t| is_type(value, t)) {
            return Some(format!("{at}: {value} is not of type {types:?}"));
        }
    }
    if let Some(c) = schema.get("const") {
        if c != value {
            return Some(format!("{at}: {value} is not {c}"));
        }
    }
    if let Some(Value::Array(options)) = schema.get("enum") {
        if !options.contains(value) {
            return Some(format!("{at}: {value} is not one of {options:?}"));
        }
    }
    if let (Some(min), Some(n)) = (
        schema.get("minimum").and_then(Value::as_f64),
        value.as_f64(),
    ) {
        if n < min {
            return Some(format!("{at}: {n} is below {min}"));
        }
    }
    if let Value::Object(object) = value {
        if let Some(Value::Array(required)) = schema.get("required") {
            for name in required.iter().filter_map(Value::as_str) {
                if !object.contains_key(name) {
                    return Some(format!("{at}: `{name}` is missing"));
                }
            }
        }
        let properties = schema.get("properties").and_then(Value::as_object);
        for (name, field) in object {
            let here = format!("{at}.{name}");
            match properties.and_then(|p| p.get(name)) {
                Some(sub) => {
                    if let Some(why) = violation(root, sub, field, &here) {
                        return Some(why);
                    }
                }
                None => {
                    if let Some(extra) = schema.get("additionalProperties") {
                        if let Some(why) = violation(root, extra, field, &here) {
                            return Some(why);
                        }
                    }
                }
            }
        }
    }
    if let (Some(items), Value::Array(array)) = (schema.get("items"), value) {
        for (i, item) in array.iter().enumerate() {
            if let Some(why) = violation(root, items, item, &format!("{at}[{i}]")) {
                return Some(why);
            }
        }
    }
    if let Some(Value::Array(all)) = schema.get("allOf") {
        for sub in all {
            if let Some(why) = violation(root, sub, value, at) {
                return Some(why);
            }
        }
    }
    if let Some(Value::Array(any)) = schema.get("anyOf") {
        let whys: Vec<String> = any
            .iter()
            .filter_map(|s| violation(root, s, value, at))
            .collect();
        if whys.len() == any.len() {
            return Some(format!("{at}: matches none of anyOf: {whys:?}"));
        }
    }
    if let Some(Value::Array(one)) = schema.get("oneOf") {
        let matching = one
            .iter()
            .filter(|s| violation(root, s, value, at).is_none())
            .count();
        if matching != 1 {
            let whys: Vec<String> = one
                .iter()
                .filter_map(|s| violation(root, s, value, at))
                .collect();
            return Some(format!(
                "{at}: matches {matching} of oneOf (exactly one needed): {whys:?}"
            ));
        }
    }
    None
}

fn is_type(value: &Value, t: &str) -> bool {
    match t {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "string" => value.is_string(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        other => panic!("unknown type {other}"),
    }
}

fn invalid_lines(w: &World) -> Vec<String> {
    let root = schema();
    let text = std::fs::read_to_string(w.state.join("events.jsonl")).unwrap();
    text.lines()
        .filter_map(|line| {
            let value: Value = serde_json::from_str(line).unwrap();
            violation(&root, &root, &value, "$").map(|why| format!("{line}\n  {why}"))
        })
        .collect()
}

#[test]
fn every_line_of_a_real_start_and_roll_matches_the_event_schema() {
    let w = World::new();
    let sessions = w.rotated_fleet(2, RETIRED, ROTATED);
    let cwd = w.work.join("events-schema");
    std::fs::create_dir_all(&cwd).unwrap();
    let cwd = cwd.to_str().unwrap();
    let started = w.the_loop(&["sessions", "start", "github:octo/repo#77", "--cwd", cwd]);
    assert_eq!(started.status.code(), Some(0), "{}", stderr(&started));
    let applied = w.the_loop(&["apply", "--auto-approve"]);
    assert_eq!(applied.status.code(), Some(0), "{}", stderr(&applied));
    let restarted = w.the_loop(&["sessions", "restart", &sessions[0].reference]);
    assert_eq!(restarted.status.code(), Some(0), "{}", stderr(&restarted));

    let names: std::collections::BTreeSet<String> = w
        .events()
        .iter()
        .map(|e| e["event"].as_str().unwrap().to_owned())
        .collect();
    for expected in [
        "session.spawned",
        "apply.started",
        "session.harness_terminated",
        "session.respawned",
        "apply.finished",
    ] {
        assert!(names.contains(expected), "no {expected} in {names:?}");
    }
    let invalid = invalid_lines(&w);
    assert!(invalid.is_empty(), "{}", invalid.join("\n"));
    // Issue 46: a roll's length, on the monotonic clock, with its end.
    for finished in w.events_named("apply.finished") {
        assert!(finished["duration_ms"].is_u64(), "{finished}");
    }
    assert_no_canary(
        std::fs::read_to_string(w.state.join("events.jsonl"))
            .unwrap()
            .as_bytes(),
        &[RETIRED, ROTATED],
        "events.jsonl",
    );
}

#[test]
fn the_validator_rejects_lines_the_schema_does_not_allow() {
    let root = schema();
    let good = serde_json::json!({
        "ts": "2026-12-01T00:00:00Z", "event": "apply.finished", "command": "apply",
        "failed": false, "interrupted": false,
        "sessions": [{"ref": "github:o/r#1", "standing": null, "tmux_target": "loop-github-o-r-1",
                      "outcome": "restarted", "detail": null}],
    });
    assert_eq!(violation(&root, &root, &good, "$"), None);
    let mut bad_type = good.clone();
    bad_type["failed"] = Value::from("no");
    let mut bad_outcome = good.clone();
    bad_outcome["sessions"][0]["outcome"] = Value::from("exploded");
    let mut missing = good.clone();
    missing.as_object_mut().unwrap().remove("command");
    let mut unknown = good.clone();
    unknown["event"] = Value::from("apply.exploded");
    let mut no_ts = good.clone();
    no_ts.as_object_mut().unwrap().remove("ts");
    for bad in [bad_type, bad_outcome, missing, unknown, no_ts] {
        assert!(
            violation(&root, &root, &bad, "$").is_some(),
            "accepted {bad}"
        );
    }
}
