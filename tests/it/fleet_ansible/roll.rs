//! The play without --check: the drift table, the roll host by host (a
//! canary host first), a second run that changes nothing, and a failed
//! host that stops the roll.

use super::*;

#[test]
fn the_playbook_fails_with_a_drift_table_then_rolls_host_by_host_then_changes_nothing() {
    let test = "the_playbook_fails_with_a_drift_table_then_rolls_host_by_host_then_changes_nothing";
    let Some(bin) = ansible_playbook(test) else {
        return;
    };
    let a = host("agents-1", 2);
    let b = host("agents-2", 1);
    let scratch = tempfile::tempdir().unwrap();
    let inv = inventory(&[&a, &b], scratch.path());
    let before = [pids(&a), pids(&b)];

    let planned = run_playbook(&bin, &inv, scratch.path(), &[]);
    let text = said(&planned);
    assert_eq!(
        planned.status.code(),
        Some(2),
        "drift fails the run:\n{text}"
    );
    assert!(has_row(&text, "HOST", "SESSION", "DRIFT"), "{text}");
    assert!(
        has_row(&text, "agents-1", "github:octo/repo#1", "SLACK_BOT_TOKEN"),
        "{text}"
    );
    assert!(
        has_row(&text, "agents-1", "github:octo/repo#2", "SLACK_BOT_TOKEN"),
        "{text}"
    );
    assert!(
        has_row(&text, "agents-2", "github:octo/repo#1", "SLACK_BOT_TOKEN"),
        "{text}"
    );
    assert!(
        text.contains("3 drifted session(s) on 2 host(s): agents-1, agents-2."),
        "{text}"
    );
    assert!(!text.contains("PLAY [Apply host by host]"), "{text}");
    assert_eq!([pids(&a), pids(&b)], before, "planning touched nothing");
    let log = calls(scratch.path());
    assert!(started(&log, "agents-1", "apply").is_empty(), "{log:#?}");
    // Each host saved its plan on the host, and the controller has a copy
    // of that very file, which `show` reads there.
    for (h, n) in [(&a, 2), (&b, 1)] {
        let saved = h.plan_file();
        let collected = scratch.path().join(format!("plans/{}.tfplan", h.name));
        assert_eq!(respawns_in(&saved), n, "{}", h.name);
        assert_eq!(
            std::fs::read(&saved).unwrap(),
            std::fs::read(&collected).unwrap(),
            "{}: the controller's copy is the host's plan",
            h.name
        );
        let shown = ok(Command::new(assert_cmd::cargo::cargo_bin("the-loop"))
            .arg("show")
            .arg(&collected)
            .env("NO_COLOR", "1")
            .output()
            .unwrap());
        assert!(
            stdout(&shown).contains(&format!("Plan: {n} to respawn")),
            "{}",
            stdout(&shown)
        );
    }

    let applied = run_playbook(&bin, &inv, scratch.path(), &["-e", "the_loop_apply=true"]);
    let text = said(&applied);
    assert_eq!(applied.status.code(), Some(0), "{text}");
    assert_eq!(changed_failed(&text, "agents-1"), (1, 0), "{text}");
    assert_eq!(changed_failed(&text, "agents-2"), (1, 0), "{text}");
    let log = calls(scratch.path());
    for h in [&a, &b] {
        // The plan file this run's plan play wrote, applied as it is, with
        // no flag the inventory did not ask for.
        let file = h.plan_file();
        assert_eq!(
            started(&log, h.name, "plan"),
            [
                format!("plan --detailed-exitcode --json --out {}", file.display()),
                "plan --detailed-exitcode".to_owned()
            ],
            "{log:#?}"
        );
        assert_eq!(
            started(&log, h.name, "apply"),
            [format!("apply {} --json", file.display())],
            "{log:#?}"
        );
    }
    // serial: [1, "25%"]: agents-1 is the canary; agents-2's apply starts
    // after agents-1's apply and its re-plan have ended.
    let canary_done = log
        .iter()
        .rposition(|l| l == "end agents-1 plan 0")
        .unwrap();
    assert!(at(&log, "end agents-1 apply 0") < canary_done, "{log:#?}");
    let second = log
        .iter()
        .position(|l| l.starts_with("start agents-2 apply "))
        .unwrap();
    assert!(canary_done < second, "{log:#?}");
    assert!(
        text.find("TASK [The host is clean after its roll]")
            .unwrap()
            < text.find("changed: [agents-2]").unwrap(),
        "{text}"
    );
    for (h, old) in [&a, &b].into_iter().zip(&before) {
        for (s, old_pid) in h.sessions.iter().zip(old) {
            let pid = h.w.pane(&s.name).unwrap().pid;
            assert_ne!(pid, *old_pid, "{} {} was respawned", h.name, s.reference);
            assert_eq!(
                environ(pid).get("SLACK_BOT_TOKEN").map(String::as_str),
                Some(ROTATED),
                "{} {}: the new process holds the rotated value",
                h.name,
                s.reference
            );
            assert!(
                cmdline(pid)
                    .windows(2)
                    .any(|w| w[0] == "--resume" && w[1] == s.session_id),
                "{} {}: the conversation was resumed",
                h.name,
                s.reference
            );
        }
        assert_eq!(plan_code(h), Some(0), "{} is clean", h.name);
    }

    // Idempotent: a second run finds nothing to roll and changes nothing.
    let after = [pids(&a), pids(&b)];
    let again = run_playbook(&bin, &inv, scratch.path(), &["-e", "the_loop_apply=true"]);
    let text2 = said(&again);
    assert_eq!(again.status.code(), Some(0), "{text2}");
    assert_eq!(changed_failed(&text2, "agents-1"), (0, 0), "{text2}");
    assert_eq!(changed_failed(&text2, "agents-2"), (0, 0), "{text2}");
    let log = calls(scratch.path());
    assert!(!log.iter().any(|l| l.contains(" apply")), "{log:#?}");
    assert_eq!(
        [pids(&a), pids(&b)],
        after,
        "the second run touched nothing"
    );
    for h in [&a, &b] {
        assert_eq!(respawns_in(&h.plan_file()), 0, "{}", h.name);
        assert_eq!(plan_code(h), Some(0), "{} is clean", h.name);
    }
    for out in [&planned, &applied, &again] {
        assert_no_canary(&out.stdout, CANARIES, "ansible-playbook stdout");
        assert_no_canary(&out.stderr, CANARIES, "ansible-playbook stderr");
    }
}

#[test]
fn a_failed_apply_stops_the_roll_before_the_next_host() {
    let test = "a_failed_apply_stops_the_roll_before_the_next_host";
    let Some(bin) = ansible_playbook(test) else {
        return;
    };
    let a = host("agents-1", 1);
    let b = host("agents-2", 1);
    // agents-1's harness refuses to resume: its apply exits 1.
    std::fs::write(
        a.w.transcript(&a.sessions[0]),
        "{\"test\":\"fail-resume\"}\n",
    )
    .unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let inv = inventory(&[&a, &b], scratch.path());
    let untouched = pids(&b);

    let out = run_playbook(&bin, &inv, scratch.path(), &["-e", "the_loop_apply=true"]);
    let text = said(&out);
    assert_ne!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("fatal: [agents-1]"), "{text}");
    assert!(!text.contains("changed: [agents-2]"), "{text}");
    let log = calls(scratch.path());
    assert!(log.contains(&"end agents-1 apply 1".to_owned()), "{log:#?}");
    assert!(started(&log, "agents-2", "apply").is_empty(), "{log:#?}");
    assert_eq!(pids(&b), untouched, "agents-2 was not rolled");
    assert_eq!(
        plan_code(&b),
        Some(2),
        "agents-2 is still drifted, for a person to look at"
    );
    assert_no_canary(&out.stdout, CANARIES, "ansible-playbook stdout");
}
