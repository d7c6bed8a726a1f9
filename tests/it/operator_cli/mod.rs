//! Terraform's command-line habits, checked on the built binary and a real
//! tmux: usage errors exit 1, `--no-color` everywhere, no empty help text,
//! `--lock-timeout`, `apply PLANFILE`, JSON-lines progress, and footers that
//! say what actually happens.

mod json_output;
mod plan_apply_restart;
mod terminal;

use crate::support::*;
use clap::CommandFactory;

#[test]
fn no_command_argument_or_subcommand_has_an_empty_help_text() {
    fn check(cmd: &clap::Command, path: &str, empty: &mut Vec<String>) {
        if cmd
            .get_about()
            .is_none_or(|a| a.to_string().trim().is_empty())
        {
            empty.push(format!("{path} (command)"));
        }
        for arg in cmd.get_arguments() {
            let id = arg.get_id().as_str();
            if matches!(id, "help" | "version") || arg.is_hide_set() {
                continue;
            }
            if arg
                .get_help()
                .is_none_or(|h| h.to_string().trim().is_empty())
            {
                empty.push(format!("{path} {id}"));
            }
        }
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            check(sub, &format!("{path} {}", sub.get_name()), empty);
        }
    }
    let mut root = the_loop::cli::Cli::command();
    root.build();
    let mut empty = Vec::new();
    check(&root, "the-loop", &mut empty);
    assert!(empty.is_empty(), "empty help texts: {empty:#?}");
}

/// Usage errors exit 1, as Terraform's do: exit 2 is reserved for drift
/// (`plan --detailed-exitcode`) and "not delivered by rule" (`deliver`).
#[test]
fn usage_errors_exit_1_on_every_command() {
    let w = World::new();
    for path in subcommand_paths() {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--no-such-flag");
        let out = w.the_loop(&args);
        assert_eq!(code(&out), Some(1), "{args:?}: {}", explain(&out));
        assert!(
            stderr(&out).contains("--no-such-flag"),
            "{args:?} names the flag: {}",
            explain(&out)
        );
    }
    // A missing argument, a bad value, an unknown and a missing subcommand.
    for args in [
        &["sessions", "deliver"][..],
        &["apply", "--parallelism", "0"],
        &["apply", "--parallelism", "lots"],
        &["frobnicate"],
        &["sessions"],
        &[],
    ] {
        let out = w.the_loop(args);
        assert_eq!(code(&out), Some(1), "{args:?}: {}", explain(&out));
    }
    // Help and version are not errors.
    for args in [&["--help"][..], &["--version"], &["plan", "--help"]] {
        let out = w.the_loop(args);
        assert_eq!(code(&out), Some(0), "{args:?}: {}", explain(&out));
        assert!(!stdout(&out).is_empty());
    }
}

/// `--help` of the commands an operator scripts ends with examples: the
/// saved-plan recipe, watch under systemd, a Codex start; `sessions start`
/// says what it writes into the harness's settings and how to stop it.
/// `-h` stays short.
#[test]
fn long_help_has_examples_and_says_what_start_writes() {
    let w = World::new();
    let help = |args: &[&str]| {
        let out = w.the_loop(args);
        assert_eq!(code(&out), Some(0), "{args:?}: {}", explain(&out));
        stdout(&out)
    };
    for (command, wanted) in [
        (
            &["plan"][..],
            &[
                "Examples:",
                "the-loop plan --out tfplan",
                "the-loop apply tfplan",
                "plan --env-file .env.new",
            ][..],
        ),
        (
            &["apply"],
            &[
                "Examples:",
                "the-loop plan --out tfplan && the-loop apply tfplan",
            ],
        ),
        (
            &["watch"],
            &[
                "Examples:",
                "systemctl --user enable --now the-loop-watch.service",
            ],
        ),
        (
            &["sessions", "start"],
            &[
                "Examples:",
                "--harness codex --cwd ~/src/repo --prompt",
                "routing.harnessTrust: false",
                "routing.harnessPlugins: false",
            ],
        ),
    ] {
        let long = help(&[command, &["--help"]].concat());
        for want in wanted {
            assert!(
                long.contains(want),
                "{command:?} --help lacks {want:?}:\n{long}"
            );
        }
        let short = help(&[command, &["-h"]].concat());
        assert!(short.contains("Exit codes:"), "{command:?} -h:\n{short}");
        assert!(!short.contains("Examples:"), "{command:?} -h:\n{short}");
    }
}
