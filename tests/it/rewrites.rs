//! Issue 35, points 3 and 4: the env file rewritten while a roll runs. The
//! launcher reads the file when it starts the harness, so a rewrite during
//! `apply` must be said, never reported as the newest holder being stale;
//! and `watch --apply` under a burst of rewrites rolls each session at most
//! once per settled value, never counting a superseded value as a failure.

use crate::support::*;
use std::collections::BTreeMap;
use std::process::Stdio;
use std::time::Duration;

const RETIRED: &str = "xoxb-RETIRED-rewrite-canary-4c1d";
const ROTATED: &str = "xoxb-ROTATED-rewrite-canary-80e2";
const NEWEST: &str = "xoxb-NEWEST-rewrite-canary-b9a7";
const DELIVER: &str = "  deliver: [SLACK_BOT_TOKEN]\n";

/// Writes the env file as an editor or a secrets agent does: a new file
/// renamed over the old one, so no reader ever sees it half written.
pub(crate) fn save_env(w: &World, text: &str) {
    let tmp = w.root().join(".env.swp");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, &w.env_path).unwrap();
}

pub(crate) fn token(pid: i32) -> Option<String> {
    environ(pid).get("SLACK_BOT_TOKEN").cloned()
}

/// How many times each session's harness was ended by a roll.
pub(crate) fn terminations(w: &World) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for event in w.events_named("session.harness_terminated") {
        if let Some(reference) = event["ref"].as_str() {
            *counts.entry(reference.to_owned()).or_default() += 1;
        }
    }
    counts
}

#[test]
fn a_rewrite_during_apply_is_said_and_the_newest_holder_is_not_called_stale() {
    let w = World::new();
    w.write_raw_config(&format!(
        "state:\n  root: {}\nenv:\n  file: .env\n{DELIVER}routing:\n  tmux:\n    resumeProbeSeconds: 0.5\n    harnessKillGraceSeconds: 2\n",
        w.state.display()
    ));
    let sessions = w.rotated_fleet(3, RETIRED, ROTATED);
    // The second session ignores SIGTERM: the roll sits in its grace
    // period, after the plan read ROTATED and before its launcher reads.
    w.ignore_term(&sessions[1]);
    let untouched = w.pane(&sessions[2].name).unwrap().pid;
    let child = w
        .the_loop_command(&["apply", "--auto-approve", "--parallelism", "1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for(
        || w.transcript_text(&sessions[1]).contains("TERM-ignored"),
        "the second session's roll is in its grace period",
    );
    save_env(&w, &format!("SLACK_BOT_TOKEN={NEWEST}\n"));
    let out = child.wait_with_output().unwrap();
    let all = stdout(&out);
    // The report, after the plan it printed first.
    let text = all
        .split_once("apply will respawn")
        .map(|(_, report)| report.to_owned())
        .unwrap_or_else(|| panic!("{all}"));
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    assert!(
        text.contains(
            "the env file changed during apply: 1 session rolled to the superseded value; run apply again"
        ),
        "{text}"
    );
    assert!(
        !text.contains("stale: not the file's current value") && !text.contains("mismatch ("),
        "the session holding the file's current value is not a mismatch: {text}"
    );
    assert!(w.events_named("env.verify_mismatch").is_empty());
    let canary = w.pane(&sessions[0].name).unwrap().pid;
    assert_eq!(
        token(canary).as_deref(),
        Some(ROTATED),
        "rolled on the plan's value"
    );
    let newest = w.pane(&sessions[1].name).unwrap().pid;
    wait_for_harness(newest);
    assert_eq!(
        token(newest).as_deref(),
        Some(NEWEST),
        "its launcher read the rewrite"
    );
    let finished = w.events_named("apply.finished");
    let outcomes = &finished.last().unwrap()["sessions"];
    let outcome = |s: &LegacySession| {
        outcomes
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["ref"] == s.reference.as_str())
            .map(|o| o["outcome"].clone())
    };
    assert_eq!(
        outcome(&sessions[1]),
        Some("superseded".into()),
        "{outcomes}"
    );
    // Not reached: the newer value superseded the roll before it.
    assert_eq!(
        outcome(&sessions[2]),
        Some("superseded".into()),
        "{outcomes}"
    );
    assert_eq!(w.pane(&sessions[2].name).unwrap().pid, untouched);

    // Run again, as it says: one value for the whole fleet.
    let again = w.the_loop(&["apply", "--auto-approve"]);
    assert_eq!(code(&again), Some(0), "{}", explain(&again));
    for s in &sessions {
        let pid = w.pane(&s.name).unwrap().pid;
        wait_for_harness(pid);
        assert_eq!(token(pid).as_deref(), Some(NEWEST), "{}", s.reference);
    }
    let canaries = [RETIRED, ROTATED, NEWEST];
    for out in [&out, &again] {
        assert_no_canary(&out.stdout, &canaries, "stdout");
        assert_no_canary(&out.stderr, &canaries, "stderr");
    }
}

#[test]
fn a_burst_of_rewrites_rolls_each_session_at_most_twice_and_onto_the_last_value() {
    let w = World::new();
    w.write_config(DELIVER);
    let sessions = w.rotated_fleet(2, RETIRED, ROTATED);
    let out = w.the_loop(&["apply", "--auto-approve"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let (watch, addr) = crate::metrics::start_watch(
        &w,
        &["--apply", "--interval", "3600", "--debounce-ms", "500"],
    );
    watch.wait_for_log("no drift", Duration::from_secs(10));
    let before = terminations(&w);

    // 200 rewrites over about ten seconds, each a new value.
    let values: Vec<String> = (1..=200)
        .map(|i| format!("xoxb-burst-{i:03}-canary-7f3e"))
        .collect();
    for value in &values {
        save_env(&w, &format!("SLACK_BOT_TOKEN={value}\n"));
        std::thread::sleep(Duration::from_millis(50));
    }
    let last = values.last().unwrap();
    wait_for(
        || {
            sessions.iter().all(|s| {
                w.pane(&s.name)
                    .is_some_and(|p| !p.dead && token(p.pid).as_ref() == Some(last))
            })
        },
        "every session holds the last value",
    );
    // Long enough for another roll, had one been coming, to start and end.
    std::thread::sleep(Duration::from_secs(3));
    let after = terminations(&w);
    for s in &sessions {
        let rolled = after.get(&s.reference).copied().unwrap_or(0)
            - before.get(&s.reference).copied().unwrap_or(0);
        assert!(
            (1..=2).contains(&rolled),
            "{} rolled {rolled} times:\n{}",
            s.reference,
            watch.text()
        );
        let pid = w.pane(&s.name).unwrap().pid;
        assert_eq!(token(pid).as_ref(), Some(last), "{}", s.reference);
    }
    assert!(
        w.events_named("env.verify_mismatch").is_empty(),
        "{}",
        watch.text()
    );
    let text = crate::metrics::scrape(addr);
    for failed in ["mismatch", "resume_failed", "left_alone"] {
        let series = format!("the_loop_rolls_total{{outcome=\"{failed}\"}}");
        assert_eq!(
            crate::metrics::sample(&text, &series),
            Some(0.0),
            "{series}:\n{text}\n{}",
            watch.text()
        );
    }
    let plan = w.the_loop(&["plan", "--detailed-exitcode"]);
    assert_eq!(code(&plan), Some(0), "{}", explain(&plan));
    let mut canaries: Vec<&str> = values.iter().map(String::as_str).collect();
    canaries.extend([RETIRED, ROTATED]);
    assert_no_canary(watch.text().as_bytes(), &canaries, "the watch log");
    assert_no_canary(text.as_bytes(), &canaries, "the exposition");
}

/// A rewrite while watch's canary is being rolled: the canary's launcher
/// reads the newer value, which is `superseded`, not a failure, and the
/// next cycle rolls the rest onto it.
#[test]
fn a_value_superseded_during_a_watch_roll_is_its_own_outcome_and_converges() {
    let w = World::new();
    w.write_raw_config(&format!(
        "state:\n  root: {}\nenv:\n  file: .env\n{DELIVER}routing:\n  tmux:\n    resumeProbeSeconds: 0.5\n    harnessKillGraceSeconds: 2\n",
        w.state.display()
    ));
    let sessions = w.rotated_fleet(2, RETIRED, ROTATED);
    // The canary ignores SIGTERM, so its roll sits in the grace period.
    w.ignore_term(&sessions[0]);
    let out = w.the_loop(&["apply", "--auto-approve"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let ignored = || {
        w.transcript_text(&sessions[0])
            .matches("TERM-ignored")
            .count()
    };
    let before = (ignored(), terminations(&w));
    let (watch, addr) = crate::metrics::start_watch(
        &w,
        &["--apply", "--interval", "3600", "--debounce-ms", "200"],
    );
    watch.wait_for_log("no drift", Duration::from_secs(10));
    let first = "xoxb-FIRST-rewrite-canary-20c5";
    save_env(&w, &format!("SLACK_BOT_TOKEN={first}\n"));
    wait_for(
        || ignored() > before.0,
        "watch's canary is in its grace period",
    );
    save_env(&w, &format!("SLACK_BOT_TOKEN={NEWEST}\n"));
    wait_for(
        || {
            sessions.iter().all(|s| {
                w.pane(&s.name)
                    .is_some_and(|p| !p.dead && token(p.pid).as_deref() == Some(NEWEST))
            })
        },
        "both sessions hold the newest value",
    );
    watch.wait_for_log(
        "superseded (the env file changed during the roll; it holds the file's current value)",
        Duration::from_secs(10),
    );
    watch.wait_for_log(
        "watch roll: github:octo/repo#2: restarted (verified)",
        Duration::from_secs(20),
    );
    let text = crate::metrics::scrape(addr);
    let rolls = |outcome: &str| {
        crate::metrics::sample(
            &text,
            &format!("the_loop_rolls_total{{outcome=\"{outcome}\"}}"),
        )
    };
    // The canary, respawned onto the value the file had by then, and the
    // second session, which the roll stopped before for that newer value:
    // both superseded, neither counted as not attempted (an alert on
    // not_attempted must not fire on an ordinary rotation).
    assert_eq!(rolls("superseded"), Some(2.0), "{text}\n{}", watch.text());
    assert_eq!(
        rolls("not_attempted"),
        Some(0.0),
        "{text}\n{}",
        watch.text()
    );
    assert_eq!(rolls("mismatch"), Some(0.0), "{text}\n{}", watch.text());
    let after = terminations(&w);
    for s in &sessions {
        let rolled = after.get(&s.reference).copied().unwrap_or(0)
            - before.1.get(&s.reference).copied().unwrap_or(0);
        assert_eq!(rolled, 1, "{}:\n{}", s.reference, watch.text());
    }
    assert!(
        !watch.text().contains("WARN watch roll"),
        "{}",
        watch.text()
    );
    let canaries = [RETIRED, ROTATED, NEWEST, first];
    assert_no_canary(watch.text().as_bytes(), &canaries, "the watch log");
}
