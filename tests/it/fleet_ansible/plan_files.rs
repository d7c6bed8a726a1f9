//! Each host applies the plan file it saved and the play tabulated, not a
//! fresh plan; the variables reach the command lines, and an unset one adds
//! no flag.

use super::*;

const NEWER: &str = "xoxb-NEWER-canary-f1ee";

#[test]
fn each_host_applies_its_own_saved_plan_with_the_flags_its_variables_give() {
    let test = "each_host_applies_its_own_saved_plan_with_the_flags_its_variables_give";
    let Some(bin) = ansible_playbook(test) else {
        return;
    };
    let scratch = tempfile::tempdir().unwrap();
    let plans_a = scratch.path().join("host-plans-a");
    let mut a = host("agents-1", 2);
    a.vars = format!(
        "      the_loop_targets: [\"github:octo/repo#1\"]\n      the_loop_lock_timeout: 30s\n      the_loop_drain_timeout: 3s\n      the_loop_host_plans_dir: {}\n",
        plans_a.display()
    );
    // agents-2's env file is rotated again after its plan was saved and
    // before its apply: a fresh `apply` would roll onto the newer value,
    // but the saved plan is stale and refused.
    let mut b = host("agents-2", 1);
    b.before_apply = format!(
        "printf 'SLACK_BOT_TOKEN=%s\\n' '{NEWER}' > '{}'",
        b.w.env_path.display()
    );
    let inv = inventory(&[&a, &b], scratch.path());
    let before = [pids(&a), pids(&b)];

    let out = run_playbook(&bin, &inv, scratch.path(), &["-e", "the_loop_apply=true"]);
    let text = said(&out);
    assert_eq!(out.status.code(), Some(2), "{text}");
    // --target narrowed agents-1's plan, so its table too.
    assert!(
        has_row(&text, "agents-1", "github:octo/repo#1", "SLACK_BOT_TOKEN"),
        "{text}"
    );
    assert!(!text.contains("github:octo/repo#2"), "{text}");
    assert_eq!(changed_failed(&text, "agents-1"), (1, 0), "{text}");
    assert_eq!(changed_failed(&text, "agents-2"), (0, 1), "{text}");
    let log = calls(scratch.path());

    // agents-1: the variables' flags, on its own plan file.
    let file_a = plans_a.join("agents-1.tfplan");
    let target = "--target=github:octo/repo#1";
    assert_eq!(
        started(&log, "agents-1", "plan"),
        [
            format!(
                "plan --detailed-exitcode --json --out {} {target}",
                file_a.display()
            ),
            format!("plan --detailed-exitcode {target}"),
        ],
        "{log:#?}"
    );
    assert_eq!(
        started(&log, "agents-1", "apply"),
        [format!(
            "apply {} --json --lock-timeout=30s --drain-timeout=3s {target}",
            file_a.display()
        )],
        "{log:#?}"
    );
    assert_eq!(respawns_in(&file_a), 1);
    let [first, second] = [&a.sessions[0], &a.sessions[1]];
    assert_ne!(a.w.pane(&first.name).unwrap().pid, before[0][0]);
    assert_eq!(
        a.w.pane(&second.name).unwrap().pid,
        before[0][1],
        "#2 was not targeted"
    );
    assert_eq!(
        code(&a.w.the_loop(&[
            "plan",
            "--detailed-exitcode",
            "--target",
            "github:octo/repo#1"
        ])),
        Some(0)
    );
    assert_eq!(plan_code(&a), Some(2), "#2 is still drifted");

    // agents-2: no variable, no flag; its own saved plan, refused as stale
    // once agents-1 (the canary) had finished.
    let file_b = b.plan_file();
    assert_eq!(
        started(&log, "agents-2", "plan"),
        [format!(
            "plan --detailed-exitcode --json --out {}",
            file_b.display()
        )],
        "{log:#?}"
    );
    assert_eq!(
        started(&log, "agents-2", "apply"),
        [format!("apply {} --json", file_b.display())],
        "{log:#?}"
    );
    assert!(
        at(&log, "end agents-1 apply 0") < at(&log, "end agents-2 apply 1"),
        "{log:#?}"
    );
    assert!(text.contains("fatal: [agents-2]"), "{text}");
    assert!(text.contains("the_loop::plan::stale"), "{text}");
    assert_eq!(pids(&b), before[1], "agents-2 was not rolled");
    for out in [&out.stdout, &out.stderr] {
        assert_no_canary(out, &[RETIRED, ROTATED, NEWER], "ansible-playbook");
    }
}
