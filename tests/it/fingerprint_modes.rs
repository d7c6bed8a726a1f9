//! Issue 28, continued: a change of `env.fingerprint` or of the key is said
//! once and is no drift; a saved plan is applied only under the mode and
//! key it was made with; `the-loop fingerprint NAME` checks a value by hand.

use crate::fingerprints::{guessable_world, key_path, PIN_NOW, RETIRED, ROTATED};
use crate::support::*;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// A change of mode, or of key, makes every fingerprint differ: the text
/// plan says so once, the JSON says which fingerprints it holds, and none
/// of it is drift.
#[test]
fn a_change_of_mode_or_key_is_said_once_and_is_no_drift() {
    let w = World::new();
    let _s = w.rotated_fleet(1, RETIRED, ROTATED);
    ok(w.the_loop(&["apply", "--auto-approve"]));
    let said = |w: &World| {
        let out = w.the_loop(&["plan", "--detailed-exitcode"]);
        assert_eq!(code(&out), Some(0), "no drift: {}", explain(&out));
        stdout(&out)
    };
    assert!(
        !said(&w).contains("Fingerprints changed"),
        "sha256 is where it starts"
    );
    w.write_config("  fingerprint: keyed\n");
    let first = said(&w);
    assert!(
        first.contains("Fingerprints changed: they are now HMAC-SHA-256 under key")
            && first.contains("no longer plain SHA-256 (env.fingerprint: sha256)"),
        "{first}"
    );
    assert!(first.contains("No drift"), "{first}");
    assert!(!said(&w).contains("Fingerprints changed"), "said once");
    // JSON never says it, and carries the mode on every plan instead.
    let plan = json(&w.the_loop(&["plan", "--json"]));
    assert_eq!(plan["fingerprints"]["mode"], "keyed");
    // A new key: said once again.
    std::fs::remove_file(key_path(&w)).unwrap();
    let again = said(&w);
    assert!(again.contains("Fingerprints changed"), "{again}");
    assert!(!said(&w).contains("Fingerprints changed"));
    // And back.
    w.write_config("");
    let back = said(&w);
    assert!(back.contains("they are now plain SHA-256"), "{back}");
}

fn apply_saved(w: &World, saved: &Path) -> std::process::Output {
    w.the_loop(&["apply", "--plan", saved.to_str().unwrap(), "--auto-approve"])
}

/// A saved plan records how its fingerprints were made, and is applied
/// only under the same mode and key; a guessable value that changed behind
/// its withheld fingerprint still makes it stale.
#[test]
fn a_saved_plan_is_refused_under_another_mode_or_key() {
    let (w, _sessions) = guessable_world("sha256");
    let saved = w.root().join("saved.json");
    let save = |w: &World| ok(w.the_loop(&["plan", "--out", saved.to_str().unwrap()]));

    save(&w);
    w.write_config("  deliver: [DEBUG]\n  fingerprint: keyed\n");
    let refused = apply_saved(&w, &saved);
    assert_eq!(code(&refused), Some(1), "{}", explain(&refused));
    let said = stderr(&refused);
    assert!(
        said.contains("the_loop::plan::other_fingerprints"),
        "{said}"
    );
    assert!(
        flat(&said).contains(&flat(
            "names values by sha256 fingerprints, and they are keyed (key"
        )),
        "{said}"
    );

    save(&w);
    let key = std::fs::read(key_path(&w)).unwrap();
    std::fs::remove_file(key_path(&w)).unwrap();
    let refused = apply_saved(&w, &saved);
    assert_eq!(code(&refused), Some(1), "{}", explain(&refused));
    assert!(stderr(&refused).contains("the_loop::plan::other_fingerprints"));
    std::fs::write(key_path(&w), &key).unwrap();
    std::fs::set_permissions(key_path(&w), std::fs::Permissions::from_mode(0o600)).unwrap();

    // Back in sha256 mode: the 4-digit value changes behind "withheld".
    w.write_config("  deliver: [DEBUG]\n  fingerprint: sha256\n");
    save(&w);
    w.write_env(&format!(
        "SLACK_BOT_TOKEN={ROTATED}\nDB_PIN=4822\nDEBUG=true\n"
    ));
    let stale = apply_saved(&w, &saved);
    assert_eq!(code(&stale), Some(1), "{}", explain(&stale));
    assert!(
        flat(&stderr(&stale)).contains(&flat(
            "a guessable value in the env file (its fingerprint withheld) changed"
        )),
        "{}",
        explain(&stale)
    );
    // Unchanged, it applies.
    save(&w);
    let applied = apply_saved(&w, &saved);
    assert_eq!(code(&applied), Some(0), "{}", explain(&applied));
}

/// `the-loop fingerprint NAME` prints what the plan shows, from stdin only.
#[test]
fn the_fingerprint_command_checks_a_value_by_hand_in_either_mode() {
    let w = World::new();
    w.write_env(&format!("SLACK_BOT_TOKEN={ROTATED}\nDB_PIN={PIN_NOW}\n"));
    let run = |args: &[&str], value: &str| {
        let mut child = w
            .the_loop_command(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(value.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    };
    let long = ok(run(&["fingerprint", "SLACK_BOT_TOKEN"], ROTATED));
    let text = stdout(&long);
    assert!(
        text.starts_with(&format!("SLACK_BOT_TOKEN  {}\n", fp(ROTATED))),
        "{text}"
    );
    assert!(text.contains("the env file's current value of SLACK_BOT_TOKEN: this one"));
    let pin = ok(run(&["fingerprint", "DB_PIN", "--json"], "4822"));
    let report = json(&pin);
    assert_eq!(report["fingerprint"], "withheld");
    assert_eq!(report["env_file_value"], "different");
    assert!(!key_path(&w).exists(), "sha256 mode writes nothing");
    let newline = ok(run(&["fingerprint", "DB_PIN"], "4821\n"));
    assert!(stderr(&newline).contains("ends with a newline"));

    w.write_config("  fingerprint: keyed\n");
    let keyed = json(&ok(run(&["fingerprint", "DB_PIN", "--json"], PIN_NOW)));
    assert_eq!(keyed["env_file_value"], "same");
    let plan = json(&w.the_loop(&["plan", "--json"]));
    assert_eq!(keyed["fingerprint"], plan["env_fingerprints"]["DB_PIN"]);
    assert_eq!(keyed["fingerprints"], plan["fingerprints"]);
    // A value never comes from the command line.
    let refused = w.the_loop(&["fingerprint", "DB_PIN", PIN_NOW]);
    assert_eq!(code(&refused), Some(1), "{}", explain(&refused));
}
