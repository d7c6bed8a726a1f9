//! On a terminal: `--no-color` and the one colour choice of every stream; `--input=false`.

use super::*;

/// Runs `the-loop <args>` in a pseudo-terminal (tests/it/support/in-pty) with
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
    // A terminal that takes colour, unless `env` says otherwise. A CI
    // machine sets `CI`, which anstream reads as "colour on a terminal even
    // when TERM is dumb"; the child sees an operator's shell instead.
    cmd.env("TERM", "xterm").env_remove("CI");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.arg(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/it/support/in-pty"
    ))
    .arg(&log)
    .arg("--")
    .arg(base.get_program())
    .args(base.get_args())
    .stdin(std::process::Stdio::null());
    let status = cmd.status().expect("python3 runs tests/it/support/in-pty");
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

/// One colour choice for every stream: miette's diagnostics (once painted
/// whatever `--no-color` said) follow `--no-color`, `NO_COLOR`, `CLICOLOR`,
/// `CLICOLOR_FORCE` and `TERM=dumb` exactly as the views and clap do.
#[test]
fn every_diagnostic_follows_the_one_colour_choice() {
    let w = World::new();
    w.write_env("SLACK_BOT_TOKEN=xoxb-cf-0\n");
    let unknown = ["plan", "--target", "nope"];
    let with = |extra: &[&str], env: &[(&str, &str)]| {
        let args: Vec<&str> = unknown.iter().chain(extra).copied().collect();
        let (code, screen) = in_pty(&w, &args, env);
        assert_eq!(code, Some(1), "{args:?} {env:?}");
        let text = String::from_utf8_lossy(&screen).into_owned();
        assert!(text.contains("the_loop::target::unknown"), "{text}");
        has_ansi(&screen)
    };
    let auto = [("NO_COLOR", "")];
    assert!(with(&[], &auto), "a diagnostic is painted on a terminal");
    assert!(!with(&["--no-color"], &auto), "--no-color reaches miette");
    assert!(!with(&[], &[("NO_COLOR", "1")]), "NO_COLOR");
    assert!(
        !with(&[], &[("NO_COLOR", ""), ("CLICOLOR", "0")]),
        "CLICOLOR=0"
    );
    assert!(
        !with(&[], &[("NO_COLOR", ""), ("TERM", "dumb")]),
        "TERM=dumb"
    );
    assert!(
        !with(
            &["--no-color"],
            &[("NO_COLOR", ""), ("CLICOLOR_FORCE", "1")]
        ),
        "--no-color wins over CLICOLOR_FORCE"
    );
    // CLICOLOR_FORCE colours a pipe, diagnostics and plans alike.
    let forced = [("NO_COLOR", ""), ("CLICOLOR_FORCE", "1")];
    let out = w.the_loop_with(&unknown, &forced);
    assert!(has_ansi(&out.stderr), "{}", explain(&out));
    let _s = w.rotated_fleet(1, "xoxb-RETIRED-cf-1", "xoxb-ROTATED-cf-2");
    let out = w.the_loop_with(&["plan"], &forced);
    assert!(has_ansi(&out.stdout), "{}", explain(&out));
    let out = w.the_loop_with(&["plan", "--no-color"], &forced);
    assert!(!has_ansi(&out.stdout), "{}", explain(&out));
}

/// `--input=false`: even on a terminal, apply never prompts; it refuses and
/// names the flag to add.
#[test]
fn input_false_never_prompts_and_names_the_flag() {
    let w = World::new();
    let _s = w.rotated_fleet(1, "xoxb-RETIRED-in-1", "xoxb-ROTATED-in-2");
    let (status, screen) = in_pty(&w, &["apply", "--input=false"], &[]);
    let screen = String::from_utf8_lossy(&screen);
    assert_eq!(status, Some(1), "{screen}");
    assert!(!screen.contains("Only 'yes'"), "no prompt: {screen}");
    assert!(screen.contains("--input=false forbids asking"), "{screen}");
    assert!(screen.contains("add --auto-approve"), "{screen}");
    // Not a terminal: the same refusal, saying why.
    let out = w.the_loop(&["apply"]);
    assert_eq!(code(&out), Some(1));
    let flat = |t: String| {
        t.split_whitespace()
            .filter(|w| *w != "│")
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert!(
        flat(stderr(&out)).contains("this run is not interactive"),
        "{}",
        explain(&out)
    );
    assert!(
        flat(stderr(&out)).contains("add --auto-approve"),
        "{}",
        explain(&out)
    );
}
