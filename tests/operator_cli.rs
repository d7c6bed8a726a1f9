//! Terraform's command-line habits, checked on the built binary and a real
//! tmux: usage errors exit 1, `--no-color` everywhere, no empty help text,
//! `--lock-timeout`, `apply PLANFILE`, JSON-lines progress, and footers that
//! say what actually happens.

mod support;
use clap::CommandFactory;
use support::*;

fn code(out: &std::process::Output) -> Option<i32> {
    out.status.code()
}

fn explain(out: &std::process::Output) -> String {
    format!("stdout:\n{}\nstderr:\n{}", stdout(out), stderr(out))
}

/// Every subcommand path, e.g. `["sessions", "restart"]`, hidden ones excluded.
fn subcommand_paths() -> Vec<Vec<String>> {
    fn walk(cmd: &clap::Command, prefix: &[String], out: &mut Vec<Vec<String>>) {
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            let mut path = prefix.to_vec();
            path.push(sub.get_name().to_owned());
            out.push(path.clone());
            walk(sub, &path, out);
        }
    }
    let mut out = Vec::new();
    let root = the_loop::cli::Cli::command();
    walk(&root, &[], &mut out);
    out
}

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

/// Runs `the-loop <args>` in a pseudo-terminal (tests/support/in-pty) with
/// the world's environment plus `env`, and returns what it wrote there.
fn in_pty(w: &World, args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, Vec<u8>) {
    let base = w.the_loop_command(args);
    let log = w.dir.path().join(format!("pty-{}.log", args.join("-")));
    let _ = std::fs::remove_file(&log);
    let mut cmd = std::process::Command::new("python3");
    for (k, v) in base.get_envs() {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.env("TERM", "xterm")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/in-pty"))
        .arg(&log)
        .arg("--")
        .arg(base.get_program())
        .args(base.get_args())
        .stdin(std::process::Stdio::null());
    let status = cmd.status().expect("python3 runs tests/support/in-pty");
    (status.code(), std::fs::read(&log).unwrap_or_default())
}

fn has_ansi(bytes: &[u8]) -> bool {
    bytes.windows(2).any(|w| w == b"\x1b[")
}

/// `--no-color` is accepted by every command (before or after the
/// subcommand), and on a terminal it turns colour off where it was on.
#[test]
fn no_color_is_accepted_everywhere_and_turns_colour_off_on_a_terminal() {
    let w = World::new();
    for path in subcommand_paths() {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--no-color");
        args.push("--help");
        let out = w.the_loop(&args);
        assert_eq!(code(&out), Some(0), "{args:?}: {}", explain(&out));
        let out = w.the_loop(&["--no-color", &path[0], "--help"]);
        assert_eq!(code(&out), Some(0), "{path:?}: {}", explain(&out));
    }

    // A drifted session, so the plan has something to paint.
    let _s = w.rotated_fleet(1, "xoxb-RETIRED-nc-1", "xoxb-ROTATED-nc-2");
    let (_, screen) = in_pty(&w, &["plan"], &[("NO_COLOR", "")]);
    assert!(has_ansi(&screen), "colour on a terminal by default");
    let (_, screen) = in_pty(&w, &["plan", "--no-color"], &[("NO_COLOR", "")]);
    assert!(screen.windows(5).any(|w| w == b"Plan:"), "the plan printed");
    assert!(!has_ansi(&screen), "--no-color: no escape codes");
    let (_, screen) = in_pty(&w, &["--no-color", "plan"], &[("NO_COLOR", "")]);
    assert!(!has_ansi(&screen), "--no-color before the command");
    let (_, screen) = in_pty(&w, &["plan"], &[("NO_COLOR", "1")]);
    assert!(!has_ansi(&screen), "NO_COLOR keeps working");
    // Errors and clap's own usage errors too.
    let (_, screen) = in_pty(&w, &["plan", "--no-color", "--bogus"], &[("NO_COLOR", "")]);
    assert!(!has_ansi(&screen), "a usage error without colour");
    let (_, screen) = in_pty(&w, &["plan", "--bogus"], &[("NO_COLOR", "")]);
    assert!(has_ansi(&screen), "clap paints usage errors on a terminal");
}
