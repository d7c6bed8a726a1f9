//! Issue 11, class 3: every numeric config key and every numeric flag has a
//! documented range, and a value outside it is a clear error, never a panic
//! (exit 101) and never a signal. `harnessKillGraceSeconds: 1e19` once
//! panicked after the SIGTERM was sent, `1e20` silently became a grace of
//! zero, and `watch --interval 9223372036854775807` panicked.

use crate::support::*;

/// The extremes every number is swept through (YAML spellings).
const EXTREMES: &[&str] = &[
    "0",
    "-1",
    "-0.5",
    "1e19",
    "1e20",
    "18446744073709551615",
    "18446744073709551616",
    ".nan",
    ".inf",
    "-.inf",
];

/// Every numeric config key: its YAML path (as nested sections), the name
/// an error must show, and whether a value is in its documented range.
struct Key {
    sections: &'static [&'static str],
    name: &'static str,
    valid: fn(f64) -> bool,
}

const KEYS: &[Key] = &[
    Key {
        sections: &["routing", "tmux"],
        name: "resumeProbeSeconds",
        valid: |v| (0.0..=300.0).contains(&v),
    },
    Key {
        sections: &["routing", "tmux"],
        name: "harnessKillGraceSeconds",
        valid: |v| (0.0..=600.0).contains(&v),
    },
    Key {
        sections: &["routing", "webTerminal"],
        name: "port",
        valid: |v| (1.0..=65535.0).contains(&v) && v.fract() == 0.0,
    },
];

fn as_number(yaml: &str) -> f64 {
    match yaml {
        ".nan" => f64::NAN,
        ".inf" => f64::INFINITY,
        "-.inf" => f64::NEG_INFINITY,
        other => other.parse().unwrap(),
    }
}

fn config_with(w: &World, key: &Key, value: &str) -> String {
    let mut text = format!(
        "state:\n  root: {}\nenv:\n  file: .env\n",
        w.state.display()
    );
    let mut indent = String::new();
    for section in key.sections {
        text.push_str(&format!("{indent}{section}:\n"));
        indent.push_str("  ");
    }
    text.push_str(&format!("{indent}{}: {value}\n", key.name));
    text
}

#[test]
fn every_numeric_config_key_refuses_out_of_range_values_before_any_signal() {
    let w = World::new();
    let sessions = w.rotated_fleet(1, "xoxb-RETIRED-3xtr3m3", "xoxb-ROTATED-3xtr3m3");
    let pid = w.pane(&sessions[0].name).unwrap().pid;
    let mut swept = 0;
    for key in KEYS {
        for value in EXTREMES {
            let config = config_with(&w, key, value);
            w.write_raw_config(&config);
            let valid = (key.valid)(as_number(value));
            let what = format!("{}: {value}", key.name);
            // plan reads the config, and never signals anything.
            let out = w.the_loop(&["plan"]);
            assert_ne!(out.status.code(), Some(101), "{what}: {}", stderr(&out));
            assert!(
                !stderr(&out).contains("panicked"),
                "{what}: {}",
                stderr(&out)
            );
            if valid {
                continue;
            }
            assert_eq!(out.status.code(), Some(1), "{what}: {}", stderr(&out));
            let err = stderr(&out);
            assert!(
                err.contains(key.name),
                "{what}: the error names no key: {err}"
            );
            assert!(
                err.contains("cli-config.yaml"),
                "{what}: the error names no file: {err}"
            );
            // apply with the same config: refused before the drifted session is touched.
            let out = w.the_loop(&["apply", "--auto-approve"]);
            assert_eq!(out.status.code(), Some(1), "{what}: {}", stderr(&out));
            assert!(stderr(&out).contains(key.name), "{what}: {}", stderr(&out));
            let pane = w.pane(&sessions[0].name).unwrap();
            assert!(
                pane.pid == pid && !pane.dead,
                "{what}: the session was touched"
            );
            swept += 1;
        }
    }
    assert!(
        w.events_named("session.harness_terminated").is_empty(),
        "a harness was signalled"
    );
    assert!(swept >= 20, "only {swept} invalid values were swept");
}

/// The top of each seconds range is accepted, and one past it is refused:
/// the documented range is the enforced one.
#[test]
fn the_documented_ranges_are_the_enforced_ones() {
    let w = World::new();
    for (key, top) in [(&KEYS[0], "300"), (&KEYS[1], "600")] {
        w.write_raw_config(&config_with(&w, key, top));
        let out = w.the_loop(&["plan"]);
        assert!(!stderr(&out).contains(key.name), "{top}: {}", stderr(&out));
        w.write_raw_config(&config_with(&w, key, &format!("{top}.001")));
        let out = w.the_loop(&["plan"]);
        assert_eq!(out.status.code(), Some(1));
        // miette wraps the message in a box: read it as one line of words.
        let err = stderr(&out).replace('│', " ");
        let err = err.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(err.contains(key.name), "{err}");
        assert!(err.contains(&format!("from 0 to {top}")), "{err}");
    }
}

/// A command, one of its numeric flags, and that flag's documented range.
type Flag = (&'static [&'static str], &'static str, fn(f64) -> bool);

/// Every numeric flag, with the extremes as the command line spells them.
/// A value in range is skipped: it would be a real run.
#[test]
fn every_numeric_flag_refuses_out_of_range_values_with_a_usage_error() {
    let w = World::new();
    let sessions = w.rotated_fleet(1, "xoxb-RETIRED-fl4g", "xoxb-ROTATED-fl4g");
    let pid = w.pane(&sessions[0].name).unwrap().pid;
    let flags: &[Flag] = &[
        (&["watch"], "--interval", |v| (1.0..=86_400.0).contains(&v)),
        (&["watch"], "--debounce-ms", |v| {
            (0.0..=600_000.0).contains(&v)
        }),
        (&["watch"], "--parallelism", |v| {
            (1.0..=65_535.0).contains(&v)
        }),
        (&["apply", "--auto-approve"], "--parallelism", |v| {
            (1.0..=65_535.0).contains(&v)
        }),
        (
            &["sessions", "restart", "github:octo/repo#1"],
            "--parallelism",
            |v| (1.0..=65_535.0).contains(&v),
        ),
        (&["apply", "--auto-approve"], "--lock-timeout", |v| {
            (0.0..=86_400.0).contains(&v)
        }),
        (
            &["sessions", "restart", "github:octo/repo#1"],
            "--lock-timeout",
            |v| (0.0..=86_400.0).contains(&v),
        ),
        (
            &[
                "sessions",
                "deliver",
                "github:octo/repo#1",
                "--message",
                "x",
            ],
            "--ready-timeout",
            |v| (0.0..=600.0).contains(&v),
        ),
        (
            &["standing", "say", "triage", "--message", "x"],
            "--ready-timeout",
            |v| (0.0..=600.0).contains(&v),
        ),
    ];
    let values = [
        "0",
        "-1",
        "1e20",
        "18446744073709551615",
        "9223372036854775807",
        "65536",
        "NaN",
        "inf",
        "1.5",
        "25h",
        "18446744073709551615h",
        "9223372036854775807s",
    ];
    let mut swept = 0;
    for (command, flag, valid) in flags {
        for value in values {
            if value.parse::<f64>().is_ok_and(valid) {
                continue; // in range: a real run, not this test's business
            }
            let arg = format!("{flag}={value}");
            let mut args: Vec<&str> = command.to_vec();
            args.push(&arg);
            let out = w.the_loop(&args);
            let what = format!("{args:?}");
            let code = out.status.code();
            assert!(
                code.is_some() && code != Some(0) && code != Some(101),
                "{what}: exit {code:?}: {}",
                stderr(&out)
            );
            assert!(
                !stderr(&out).contains("panicked"),
                "{what}: {}",
                stderr(&out)
            );
            assert!(
                stderr(&out).contains(flag),
                "{what}: the error names no flag: {}",
                stderr(&out)
            );
            swept += 1;
        }
    }
    let pane = w.pane(&sessions[0].name).unwrap();
    assert!(pane.pid == pid && !pane.dead, "the session was touched");
    assert!(w.events_named("session.harness_terminated").is_empty());
    assert!(swept >= 35, "only {swept} flag values were swept");
}
