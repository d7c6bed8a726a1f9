//! `ansible-playbook --check`: the same run as without it, touching no
//! session. The plans are made and saved; the apply is `apply PLANFILE
//! --dry-run`, and a host that would roll reports `changed`.

use super::*;

#[test]
fn check_mode_touches_nothing_and_says_which_hosts_would_roll() {
    let test = "check_mode_touches_nothing_and_says_which_hosts_would_roll";
    let Some(bin) = ansible_playbook(test) else {
        return;
    };
    let a = host("agents-1", 2);
    let b = host("agents-2", 1);
    // A host with nothing to roll.
    let c = host("agents-3", 0);
    let scratch = tempfile::tempdir().unwrap();
    let inv = inventory(&[&a, &b, &c], scratch.path());
    let before = [pids(&a), pids(&b)];

    // As the run without --check: the table, and the run fails.
    let planned = run_playbook(&bin, &inv, scratch.path(), &["--check"]);
    let text = said(&planned);
    assert_eq!(planned.status.code(), Some(2), "{text}");
    assert!(
        has_row(&text, "agents-2", "github:octo/repo#1", "SLACK_BOT_TOKEN"),
        "{text}"
    );
    assert!(
        text.contains("3 drifted session(s) on 2 host(s): agents-1, agents-2."),
        "{text}"
    );
    assert!(!text.contains("PLAY [Apply host by host]"), "{text}");
    let log = calls(scratch.path());
    assert!(!log.iter().any(|l| l.contains(" apply")), "{log:#?}");

    // As the roll, host by host, with each host's apply a dry run of its
    // own saved plan.
    let checked = run_playbook(
        &bin,
        &inv,
        scratch.path(),
        &["--check", "-e", "the_loop_apply=true"],
    );
    let text = said(&checked);
    assert_eq!(checked.status.code(), Some(0), "{text}");
    assert_eq!(changed_failed(&text, "agents-1"), (1, 0), "{text}");
    assert_eq!(changed_failed(&text, "agents-2"), (1, 0), "{text}");
    assert_eq!(changed_failed(&text, "agents-3"), (0, 0), "{text}");
    assert!(text.contains("would_restart"), "{text}");
    let log = calls(scratch.path());
    for h in [&a, &b] {
        assert_eq!(
            started(&log, h.name, "apply"),
            [format!(
                "apply {} --json --dry-run",
                h.plan_file().display()
            )],
            "{log:#?}"
        );
        assert_eq!(respawns_in(&h.plan_file()), h.sessions.len(), "{}", h.name);
    }
    assert!(started(&log, "agents-3", "apply").is_empty(), "{log:#?}");
    // No re-plan after the dry run: nothing was rolled.
    assert_eq!(started(&log, "agents-1", "plan").len(), 1, "{log:#?}");
    let second = log
        .iter()
        .position(|l| l.starts_with("start agents-2 apply "))
        .unwrap();
    assert!(at(&log, "end agents-1 apply 0") < second, "{log:#?}");

    // Nothing was touched: the same processes, still drifted, no roll logged.
    assert_eq!([pids(&a), pids(&b)], before);
    assert_eq!(plan_code(&a), Some(2));
    assert_eq!(plan_code(&b), Some(2));
    assert_eq!(plan_code(&c), Some(0));
    for h in [&a, &b, &c] {
        let now = h.w.events();
        assert!(
            !now.iter()
                .any(|e| e["event"].as_str().is_some_and(|n| n.starts_with("apply."))),
            "{}: {now:#?}",
            h.name
        );
    }
    for out in [&planned, &checked] {
        assert_no_canary(&out.stdout, CANARIES, "ansible-playbook stdout");
        assert_no_canary(&out.stderr, CANARIES, "ansible-playbook stderr");
    }
}
