//! Issue 11, class 10: tmux builds that refuse part of what a spawn asks.
//! Each test puts a `tmux` on PATH that forwards to the real one but
//! refuses one thing, as an older or patched tmux does.

use crate::support::*;

fn world() -> World {
    let w = World::new();
    w.write_env("EXAMPLE_SETTING=not-secret\n");
    w
}

/// Puts a `tmux` ahead of the real one that runs `prelude` (shell) first.
fn install_tmux(w: &World, prelude: &str) {
    w.install_bin_settled(
        "tmux",
        &format!(
            "#!/bin/bash\n{prelude}\nexec '{}' \"${{args[@]}}\"\n",
            real_tmux().display()
        ),
        "-V",
    );
}

#[test]
fn a_tmux_that_refuses_remain_on_exit_leaves_no_unrecorded_session() {
    let w = world();
    // The real tmux, asked for an option it does not have, refuses it
    // after new-session has already run in the same invocation.
    install_tmux(
        &w,
        "args=(); for a in \"$@\"; do [ \"$a\" = remain-on-exit ] && a=remain-on-exit-unknown; args+=(\"$a\"); done",
    );
    let cwd = w.work.join("roe");
    std::fs::create_dir_all(&cwd).unwrap();
    let out = w.the_loop(&[
        "sessions",
        "start",
        "github:octo/repo#91",
        "--cwd",
        cwd.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", explain(&out));
    assert!(stderr(&out).contains("remain-on-exit"), "{}", explain(&out));
    let name = "loop-github-octo-repo-91";
    assert_eq!(w.tmux_sessions(), [name], "the session runs");
    let record = w.record("github-octo-repo-91").expect("and is recorded");
    assert_eq!(record["status"], "active");
    assert_eq!(record["tmuxTarget"], name);
    let listed = w.the_loop(&["sessions", "list", "--json"]);
    assert!(stdout(&listed).contains(name), "{}", explain(&listed));
}

#[test]
fn a_tmux_without_new_session_e_warns_once_and_every_command_goes_on() {
    let w = world();
    w.write_config("  sessionPassthrough: [EXAMPLE_PASS]\n");
    // tmux 3.1 has no `new-session -e`.
    install_tmux(
        &w,
        "args=(\"$@\")\n[ \"$1\" = -V ] && { echo 'tmux 3.1c'; exit 0; }\n\
         for a in \"$@\"; do [ \"$a\" = -e ] && { echo 'new-session: unknown option -- e' >&2; exit 1; }; done",
    );
    let env = [("EXAMPLE_PASS", "not-a-secret")];
    let plan = w.the_loop_with(&["plan"], &env);
    assert_eq!(plan.status.code(), Some(0), "{}", explain(&plan));
    let status = w.the_loop_with(&["status"], &env);
    assert!(
        !stderr(&status).contains("too old") && status.status.code().is_some_and(|c| c < 2),
        "{}",
        explain(&status)
    );

    let cwd = w.work.join("old");
    std::fs::create_dir_all(&cwd).unwrap();
    let out = w.the_loop_with(
        &[
            "sessions",
            "start",
            "github:octo/repo#92",
            "--cwd",
            cwd.to_str().unwrap(),
            "--json",
        ],
        &env,
    );
    assert_eq!(out.status.code(), Some(0), "{}", explain(&out));
    assert_eq!(
        stderr(&out).matches("new-session -e").count(),
        1,
        "one warning: {}",
        explain(&out)
    );
    assert_eq!(w.tmux_sessions(), ["loop-github-octo-repo-92"]);
    assert_eq!(w.record("github-octo-repo-92").unwrap()["status"], "active");
}
