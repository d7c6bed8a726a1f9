//! Issue 28: fingerprints that cannot be reversed, for values that can be
//! guessed. A 4-digit `DB_PIN` and a boolean `DEBUG` go through everything
//! the-loop writes (plans, saved plans, status, apply, events, watch's log
//! and metrics, its state files), and then every candidate (10,000 4-digit
//! values, true/false/yes/no/1/0/on/off) is hashed and looked for: none may
//! be found, in either `env.fingerprint` mode. The key file is 0600 and its
//! bytes are in no output; the default mode's fingerprints of long values
//! are what they always were. A change of mode or key, saved plans and the
//! `fingerprint` command: [`crate::fingerprint_modes`].

use crate::metrics::{scrape, start_watch};
use crate::support::*;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

pub(super) const RETIRED: &str = "xoxb-RETIRED-fp28-q7Zk2";
pub(super) const ROTATED: &str = "xoxb-ROTATED-fp28-w9Lp4";
const PIN_RETIRED: &str = "1234";
pub(super) const PIN_NOW: &str = "4821";
const BOOLEANS: &[&str] = &["true", "false", "yes", "no", "1", "0", "on", "off"];

/// Every candidate a search would try, by the first 8 hex digits of its
/// SHA-256 (computed here, not by the crate under test).
fn candidates() -> HashMap<String, String> {
    (0..10_000)
        .map(|n| format!("{n:04}"))
        .chain(BOOLEANS.iter().map(|b| b.to_string()))
        .map(|c| {
            let digest = base16ct::lower::encode_string(&Sha256::digest(c.as_bytes()));
            (digest[..8].to_owned(), c)
        })
        .collect()
}

/// Candidates whose fingerprint is in `haystack`: every run of lowercase
/// hex that is a fingerprint (8 digits) or starts like a whole digest (8 or
/// more), except a UUID's first group (conversation ids are random).
fn recovered(haystack: &[u8], table: &HashMap<String, String>) -> Vec<String> {
    let is_hex = |b: &u8| b.is_ascii_digit() || (b'a'..=b'f').contains(b);
    let mut found = Vec::new();
    let mut i = 0;
    while i < haystack.len() {
        if !is_hex(&haystack[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < haystack.len() && is_hex(&haystack[i]) {
            i += 1;
        }
        let run = &haystack[start..i];
        let uuid_group = run.len() == 8
            && haystack.get(i) == Some(&b'-')
            && haystack
                .get(i + 1..i + 5)
                .is_some_and(|g| g.iter().all(is_hex));
        if run.len() >= 8 && !uuid_group {
            let head = String::from_utf8_lossy(&run[..8]).into_owned();
            if let Some(candidate) = table.get(&head) {
                found.push(format!("{candidate:?} (as {head})"));
            }
        }
    }
    found
}

/// A fleet born on a tmux server that held the retired values, then the
/// env file changed under it: two sessions hold `DB_PIN` (withheld) at a
/// retired 4-digit value and the delivered `DEBUG` at `false`, while the
/// file says `DEBUG=true`; tmux's global environment holds the current PIN.
pub(super) fn guessable_world(mode: &str) -> (World, Vec<LegacySession>) {
    let w = World::new();
    w.write_config(&format!("  deliver: [DEBUG]\n  fingerprint: {mode}\n"));
    w.write_env(&format!(
        "SLACK_BOT_TOKEN={RETIRED}\nDB_PIN={PIN_RETIRED}\nDEBUG=false\n"
    ));
    w.start_server_holding(&[
        ("SLACK_BOT_TOKEN", RETIRED),
        ("DB_PIN", PIN_RETIRED),
        ("DEBUG", "false"),
    ]);
    let sessions = (1..=2)
        .map(|i| {
            w.legacy_session(
                &format!("github:octo/repo#{i}"),
                &format!("github-octo-repo-{i}"),
            )
        })
        .collect();
    w.source_tmux(&format!("set-environment -g DB_PIN {PIN_NOW}\n"));
    w.write_env(&format!(
        "SLACK_BOT_TOKEN={ROTATED}\nDB_PIN={PIN_NOW}\nDEBUG=true\n"
    ));
    (w, sessions)
}

pub(super) fn key_path(w: &World) -> PathBuf {
    w.state.join("fingerprint.key")
}

/// Everything one run of the story wrote where someone can read it.
struct Outputs(Vec<(String, Vec<u8>)>);

impl Outputs {
    fn command(&mut self, w: &World, args: &[&str], code: i32) -> String {
        let out = w.the_loop(args);
        assert_eq!(
            out.status.code(),
            Some(code),
            "`{}`: {}",
            args.join(" "),
            explain(&out)
        );
        self.0.push((
            format!("stdout of `{}`", args.join(" ")),
            out.stdout.clone(),
        ));
        self.0.push((
            format!("stderr of `{}`", args.join(" ")),
            out.stderr.clone(),
        ));
        stdout(&out)
    }

    fn state_files(&mut self, w: &World) {
        for (path, bytes) in w.state_files() {
            if path != key_path(w) {
                self.0.push((path.display().to_string(), bytes));
            }
        }
    }
}

/// The whole story in one mode, every output kept: plan (text, JSON,
/// saved), status, the saved plan applied, the plan after it, then a new
/// `DEBUG` seen by `watch` (its log, its events, its metrics).
fn story(mode: &str) -> (World, Outputs, String, serde_json::Value) {
    let (w, sessions) = guessable_world(mode);
    let mut outputs = Outputs(Vec::new());
    let text = outputs.command(&w, &["plan"], 0);
    let plan = json_of(&outputs.command(&w, &["plan", "--json"], 0));
    outputs.command(&w, &["plan", "--detailed-exitcode"], 2);
    let saved = w.root().join("saved-plan.json");
    outputs.command(&w, &["plan", "--out", saved.to_str().unwrap()], 0);
    outputs
        .0
        .push(("the saved plan".into(), std::fs::read(&saved).unwrap()));
    outputs.command(&w, &["status"], 0);
    outputs.command(&w, &["status", "--json"], 0);
    let applied = outputs.command(
        &w,
        &[
            "apply",
            "--plan",
            saved.to_str().unwrap(),
            "--auto-approve",
            "--json",
        ],
        0,
    );
    let applied = json_of(&applied);
    for s in applied["sessions"].as_array().unwrap() {
        assert_eq!(s["outcome"], "restarted", "{s}");
    }
    // Rolled exactly as before: the guessable drift was seen and repaired.
    for s in &sessions {
        let pid = w.pane(&s.name).unwrap().pid;
        wait_for_harness(pid);
        let env = environ(pid);
        assert_eq!(env.get("DEBUG").map(String::as_str), Some("true"));
        assert!(!env.contains_key("DB_PIN"));
    }
    outputs.command(&w, &["plan", "--detailed-exitcode"], 0);
    // The delivered boolean flips back: watch reports it (log, event, metrics).
    w.write_env(&format!(
        "SLACK_BOT_TOKEN={ROTATED}\nDB_PIN={PIN_NOW}\nDEBUG=false\n"
    ));
    let (watch, addr) = start_watch(&w, &["--interval", "1"]);
    wait_for(
        || !w.events_named("env.drift").is_empty(),
        "watch records the drift",
    );
    outputs
        .0
        .push(("/metrics".into(), scrape(addr).into_bytes()));
    drop(watch);
    outputs.0.push((
        "watch's log".into(),
        std::fs::read(w.root().join("watch.log")).unwrap(),
    ));
    outputs.state_files(&w);
    (w, outputs, text, plan)
}

fn json_of(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// No output gives a candidate back, and the key is in none of them.
fn assert_nothing_recovered(w: &World, outputs: &Outputs) {
    let table = candidates();
    assert_eq!(
        table.len(),
        10_000 + BOOLEANS.len(),
        "no two candidates collide"
    );
    // The search finds what it looks for: the plain fingerprint of each
    // value, as every build before issue 28 showed it, is found.
    for value in [PIN_NOW, "true"] {
        let shown = fp(value);
        let planted = format!("    ~ DB_PIN   {shown} → (absent)\n\"have\": \"{shown}\"");
        let expected = format!("{value:?} (as {shown})");
        assert_eq!(
            recovered(planted.as_bytes(), &table),
            [expected.clone(), expected]
        );
    }
    let mut found = Vec::new();
    for (what, bytes) in &outputs.0 {
        for candidate in recovered(bytes, &table) {
            found.push(format!("{candidate} in {what}"));
        }
    }
    assert!(
        found.is_empty(),
        "recovered by trying candidates:\n{}",
        found.join("\n")
    );
    assert_key_in_no_output(w, outputs);
}

fn assert_key_in_no_output(w: &World, outputs: &Outputs) {
    use base64::Engine;
    let path = key_path(w);
    let meta = std::fs::metadata(&path).expect("the key file was made");
    assert_eq!(
        meta.permissions().mode() & 0o777,
        0o600,
        "the key file is 0600"
    );
    let key = std::fs::read(&path).unwrap();
    assert_eq!(key.len(), 32);
    let hex: String = key.iter().map(|b| format!("{b:02x}")).collect();
    let forms: Vec<Vec<u8>> = vec![
        key.clone(),
        hex.clone().into_bytes(),
        hex.to_uppercase().into_bytes(),
        base64::engine::general_purpose::STANDARD
            .encode(&key)
            .into_bytes(),
    ];
    for (what, bytes) in &outputs.0 {
        for form in &forms {
            assert!(
                !bytes.windows(form.len()).any(|w| w == form.as_slice()),
                "the key leaked into {what}"
            );
        }
    }
}

#[test]
fn in_sha256_mode_guessable_values_are_withheld_everywhere_and_still_rolled() {
    let (w, outputs, text, plan) = story("sha256");
    assert_nothing_recovered(&w, &outputs);
    // Said, not shown: the marker in JSON (null still means absent) and
    // the note in text, while long values keep their sha256 fingerprints.
    assert_eq!(plan["env_fingerprints"]["DB_PIN"], "withheld");
    assert_eq!(plan["env_fingerprints"]["DEBUG"], "withheld");
    assert_eq!(plan["env_fingerprints"]["SLACK_BOT_TOKEN"], fp(ROTATED));
    assert_eq!(plan["fingerprints"]["mode"], "sha256");
    assert!(plan["withheld_seal"]
        .as_str()
        .is_some_and(|s| s.len() == 16));
    let first = session_in(&plan, "github:octo/repo#1");
    let change = |name: &str| {
        first["changes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .unwrap_or_else(|| panic!("{name} in {first}"))
            .clone()
    };
    assert_eq!(change("DB_PIN")["have"], "withheld");
    assert!(change("DB_PIN")["want"].is_null(), "withheld, not absent");
    assert_eq!(change("DEBUG")["have"], "withheld");
    assert_eq!(change("DEBUG")["want"], "withheld");
    assert!(
        text.contains("(guessable value: fingerprint withheld, use env.fingerprint: keyed)"),
        "{text}"
    );
    let residue = &plan["residue"]["entries"];
    assert!(residue
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["name"] == "DB_PIN" && e["fingerprint"] == "withheld"));
}

#[test]
fn in_keyed_mode_every_value_is_shown_and_none_can_be_recovered() {
    let (w, outputs, text, plan) = story("keyed");
    assert_nothing_recovered(&w, &outputs);
    assert_eq!(plan["fingerprints"]["mode"], "keyed");
    let key_id = plan["fingerprints"]["key_id"].as_str().unwrap().to_owned();
    assert!(
        text.contains(&key_id),
        "the change of mode names the key: {text}"
    );
    for name in ["DB_PIN", "DEBUG", "SLACK_BOT_TOKEN"] {
        let shown = plan["env_fingerprints"][name].as_str().unwrap();
        assert_eq!(shown.len(), 8, "{name} is shown: {shown}");
    }
    assert_ne!(plan["env_fingerprints"]["SLACK_BOT_TOKEN"], fp(ROTATED));
    assert!(plan["withheld_seal"].is_null());
    assert!(!text.contains("fingerprint withheld"), "{text}");
    // The one who holds the key can check one by hand (openssl, when here).
    let key: String = std::fs::read(key_path(&w))
        .unwrap()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let openssl = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "printf %s {PIN_NOW} | openssl dgst -sha256 -mac HMAC -macopt hexkey:{key}"
        ))
        .output();
    if let Some(out) = openssl.ok().filter(|o| o.status.success()) {
        let digest = stdout(&out);
        let digest = digest.rsplit(' ').next().unwrap().trim();
        assert_eq!(plan["env_fingerprints"]["DB_PIN"], digest[..8]);
    }
}

/// A plan in the default mode of a world of long values: every
/// fingerprint is the first 8 hex digits of the value's SHA-256, exactly
/// as before issue 28 (`sha256sum`, outside the crate, says so too).
#[test]
fn the_default_modes_fingerprints_of_long_values_are_unchanged() {
    let w = World::new();
    let sessions = w.rotated_fleet(1, RETIRED, ROTATED);
    let plan = json(&w.the_loop(&["plan", "--json"]));
    assert_eq!(plan["fingerprints"]["mode"], "sha256");
    assert!(plan["fingerprints"]["key_id"].is_null());
    assert!(plan["withheld_seal"].is_null());
    let s = session_in(&plan, &sessions[0].reference);
    // The config's path is a random directory: its identifier is left out.
    let changes: Vec<&serde_json::Value> = s["changes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["name"] != "THE_LOOP_CLI_CONFIG")
        .collect();
    let shown = serde_json::json!({
        "env_fingerprints": plan["env_fingerprints"],
        "changes": changes,
    });
    assert_eq!(shown["env_fingerprints"]["SLACK_BOT_TOKEN"], fp(ROTATED));
    assert_eq!(shown["changes"][0]["have"], fp(RETIRED));
    assert_eq!(shown["changes"][1]["want"], fp(&sessions[0].reference));
    insta::assert_json_snapshot!("default_mode_long_values", shown);
    // Nothing guessable, nothing keyed: no key file is made.
    assert!(!key_path(&w).exists());
}
