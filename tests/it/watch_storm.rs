//! Issue 46: a storm of rotations under `watch --apply`. Each rotation cuts
//! the roll short (the sessions it had not reached are `superseded`), and
//! the next roll goes on with the sessions still holding the oldest values
//! rather than from the head of the plan again: every session is reached
//! before any is reached again, none is respawned more than 3 times, and
//! the roll after the last rotation leaves the whole fleet on its value.

use crate::rewrites::{save_env, terminations, token};
use crate::support::*;
use std::collections::BTreeMap;
use std::time::Duration;

const RETIRED: &str = "xoxb-RETIRED-storm-canary-51e0";
const ROTATED: &str = "xoxb-ROTATED-storm-canary-a2c4";
const DELIVER: &str = "  deliver: [SLACK_BOT_TOKEN]\n";
const FLEET: usize = 12;
const ROTATIONS: usize = 4;

fn total(counts: &BTreeMap<String, usize>) -> usize {
    counts.values().sum()
}

#[test]
fn a_storm_of_rotations_reaches_every_session_before_any_again_and_ends_on_the_last_value() {
    let w = World::new();
    w.write_raw_config(&format!(
        "state:\n  root: {}\nenv:\n  file: .env\n{DELIVER}routing:\n  tmux:\n    resumeProbeSeconds: 0.5\n",
        w.state.display()
    ));
    let sessions = w.rotated_fleet(FLEET, RETIRED, ROTATED);
    let out = w.the_loop(&["apply", "--auto-approve"]);
    assert_eq!(code(&out), Some(0), "{}", explain(&out));
    let (watch, addr) = crate::metrics::start_watch(
        &w,
        &[
            "--apply",
            "--parallelism",
            "2",
            "--interval",
            "3600",
            "--debounce-ms",
            "200",
        ],
    );
    watch.wait_for_log("no drift", Duration::from_secs(10));
    let before = terminations(&w);

    // Each rotation lands once the roll for the one before has ended two
    // harnesses: with two in flight, each roll is cut short after a few of
    // the twelve.
    let values: Vec<String> = (1..=ROTATIONS + 1)
        .map(|i| format!("xoxb-storm-{i:02}-canary-6d1b"))
        .collect();
    for value in &values[..ROTATIONS] {
        let ended = total(&terminations(&w));
        save_env(&w, &format!("SLACK_BOT_TOKEN={value}\n"));
        wait_for(
            || total(&terminations(&w)) >= ended + 2,
            "the roll for this rotation has ended two harnesses",
        );
    }
    let cleaned = w.events_named("env.clean").len();
    let last = values.last().unwrap();
    save_env(&w, &format!("SLACK_BOT_TOKEN={last}\n"));
    wait_for(
        || {
            w.events_named("env.clean").len() > cleaned
                && sessions.iter().all(|s| {
                    w.pane(&s.name)
                        .is_some_and(|p| !p.dead && token(p.pid).as_ref() == Some(last))
                })
        },
        "watch says the fleet is clean, every session on the last value",
    );

    let after = terminations(&w);
    let respawns: BTreeMap<&str, usize> = sessions
        .iter()
        .map(|s| {
            let n = after.get(&s.reference).copied().unwrap_or(0)
                - before.get(&s.reference).copied().unwrap_or(0);
            (s.reference.as_str(), n)
        })
        .collect();
    for (reference, n) in &respawns {
        assert!(
            (1..=3).contains(n),
            "{reference} respawned {n} times in the storm ({respawns:?}):\n{}",
            watch.text()
        );
    }
    // Fair: the respawns are spread over the fleet, not piled on its head.
    let (least, most) = (
        respawns.values().min().unwrap(),
        respawns.values().max().unwrap(),
    );
    assert!(most - least <= 2, "{respawns:?}:\n{}", watch.text());
    // The rolls were cut short: more respawns than one roll of the fleet.
    assert!(
        respawns.values().sum::<usize>() > FLEET,
        "{respawns:?}:\n{}",
        watch.text()
    );

    let text = crate::metrics::scrape(addr);
    let rolls = |outcome: &str| {
        crate::metrics::sample(
            &text,
            &format!("the_loop_rolls_total{{outcome=\"{outcome}\"}}"),
        )
    };
    assert!(rolls("superseded") > Some(0.0), "{text}");
    for failed in ["not_attempted", "mismatch", "resume_failed", "left_alone"] {
        assert_eq!(rolls(failed), Some(0.0), "{failed}:\n{text}");
    }
    let plan = w.the_loop(&["plan", "--detailed-exitcode"]);
    assert_eq!(code(&plan), Some(0), "{}", explain(&plan));
    let mut canaries: Vec<&str> = values.iter().map(String::as_str).collect();
    canaries.extend([RETIRED, ROTATED]);
    assert_no_canary(watch.text().as_bytes(), &canaries, "the watch log");
}
