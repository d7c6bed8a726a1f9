//! Shell completion, driven through real shells: the registration script
//! `THE_LOOP_COMPLETE=bash the-loop` prints, and the one `the-loop
//! completions SHELL` writes to a file as the Debian package installs it
//! (`scripts/package-deb.sh`), complete subcommands, flags and registered
//! refs at every depth, and never offer a hidden subcommand.

use crate::support::*;
use std::path::{Path, PathBuf};
use std::process::Command;

const SHELLS: [&str; 5] = ["bash", "zsh", "fish", "elvish", "powershell"];

/// How bash was given the script.
enum Script<'a> {
    /// `source <(THE_LOOP_COMPLETE=bash /path/to/the-loop)`.
    FromTheBinary,
    /// `source FILE`, a file `the-loop completions bash` wrote.
    Installed(&'a Path),
}

fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("the-loop")
}

/// PATH with the built the-loop first: an installed script calls
/// `the-loop` from PATH, as the shell finds the command it completes.
fn path_with_the_loop() -> String {
    format!(
        "{}:{}",
        bin().parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// A shell (or the-loop) in this world: its config, its home, and PATH.
fn in_world(program: &str, w: &World) -> Command {
    let mut cmd = Command::new(program);
    cmd.env("THE_LOOP_CLI_CONFIG", &w.config_path)
        .env("HOME", &w.home)
        .env("PATH", path_with_the_loop())
        .env_remove("THE_LOOP_COMPLETE")
        .env_remove("COMPLETE");
    cmd
}

/// What bash would complete `words` to, calling the registered function the
/// way bash's programmable completion does.
fn bash_complete(w: &World, script: Script, words: &[&str]) -> Vec<String> {
    let source = match script {
        Script::FromTheBinary => format!("source <(THE_LOOP_COMPLETE=bash '{}')", bin().display()),
        Script::Installed(file) => format!("source '{}'", file.display()),
    };
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let program = format!(
        "{source}\n\
         COMP_WORDS=({words}); COMP_CWORD={cword}; COMP_TYPE=9\n\
         _clap_complete_the_loop the-loop {current} x\n\
         printf '%s\\n' \"${{COMPREPLY[@]}}\"\n",
        words = quoted.join(" "),
        cword = words.len() - 1,
        current = quoted.last().unwrap(),
    );
    let out = in_world("bash", w)
        .args(["-c", &program])
        .output()
        .expect("bash runs");
    assert!(out.status.success(), "{}", stderr(&out));
    stdout(&out)
        .lines()
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect()
}

/// A world with two work items and one standing session registered.
fn registered() -> (World, String, String) {
    let w = World::new();
    w.write_env("A=1\n");
    let a = w.legacy_session("github:octo/repo#15", "github-octo-repo-15");
    let b = w.legacy_session("github:octo/other#16", "github-octo-other-16");
    let out = w.the_loop(&[
        "standing",
        "create",
        "triage",
        "--cwd",
        w.work.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    (w, a.reference, b.reference)
}

#[test]
fn bash_completes_registered_refs_and_standing_names() {
    let (w, a, b) = registered();
    let complete = |words: &[&str]| bash_complete(&w, Script::FromTheBinary, words);

    let all = complete(&["the-loop", "sessions", "attach", ""]);
    for want in [a.as_str(), b.as_str(), "triage"] {
        assert!(all.iter().any(|c| c == want), "{want} not in {all:?}");
    }
    assert_eq!(
        complete(&["the-loop", "sessions", "pause", "github:octo/o"]),
        [b.as_str()]
    );
    let filtered = complete(&["the-loop", "sessions", "list", "--work-item", "gith"]);
    assert!(filtered.iter().any(|c| c == &a), "{filtered:?}");
    // Subcommands still complete, from the same binary.
    assert_eq!(complete(&["the-loop", "sessions", "at"]), ["attach"]);
    // Without the switch, nothing changes: the-loop runs as usual.
    let out = w.the_loop(&["completions", "bash"]);
    assert!(stdout(&out).contains("the-loop"), "{}", stderr(&out));
}

#[test]
fn plan_flags_and_every_target_complete() {
    let (w, a, b) = registered();
    let complete = |words: &[&str]| bash_complete(&w, Script::FromTheBinary, words);

    let flags = complete(&["the-loop", "plan", "--"]);
    for want in [
        "--target",
        "--json",
        "--detailed-exitcode",
        "--out",
        "--env-file",
        "--config",
    ] {
        assert!(flags.iter().any(|c| c == want), "{want} not in {flags:?}");
    }
    // --target takes what the REF positionals take: refs and standing names.
    let targets = complete(&["the-loop", "plan", "--target", ""]);
    for want in [a.as_str(), b.as_str(), "triage"] {
        assert!(
            targets.iter().any(|c| c == want),
            "{want} not in {targets:?}"
        );
    }
    assert_eq!(
        complete(&["the-loop", "apply", "--target", "github:octo/o"]),
        [b.as_str()]
    );
    assert_eq!(
        complete(&["the-loop", "apply", "--target", "tri"]),
        ["triage"]
    );
    let restart = complete(&["the-loop", "sessions", "restart", ""]);
    assert!(restart.iter().any(|c| c == &a) && restart.iter().any(|c| c == "triage"));
    // Commands that take a work item offer work items, standing ones names.
    let stop = complete(&["the-loop", "sessions", "stop", ""]);
    assert!(stop.iter().any(|c| c == &a), "{stop:?}");
    assert!(!stop.iter().any(|c| c == "triage"), "{stop:?}");
    let standing = complete(&["the-loop", "standing", "start", ""]);
    let names: Vec<&String> = standing.iter().filter(|c| !c.starts_with('-')).collect();
    assert_eq!(names, ["triage"], "{standing:?}");
    assert_eq!(
        complete(&["the-loop", "sessions", "list", "--standing", "t"]),
        ["triage"]
    );
    let items = complete(&["the-loop", "sessions", "list", "--work-item", ""]);
    assert!(
        items.contains(&a) && !items.iter().any(|c| c == "triage"),
        "{items:?}"
    );
}

#[test]
fn hidden_subcommands_are_never_offered() {
    let w = World::new();
    let complete = |words: &[&str]| bash_complete(&w, Script::FromTheBinary, words);

    let top = complete(&["the-loop", ""]);
    for want in [
        "plan",
        "apply",
        "sessions",
        "standing",
        "completions",
        "man",
    ] {
        assert!(top.iter().any(|c| c == want), "{want} not in {top:?}");
    }
    for hidden in ["exec", "api-key-helper", "hook"] {
        assert!(
            !top.iter().any(|c| c == hidden),
            "{hidden} offered: {top:?}"
        );
    }
    // A prefix only a hidden subcommand matches completes to nothing.
    for prefix in ["e", "ex", "api"] {
        assert_eq!(
            complete(&["the-loop", prefix]),
            Vec::<String>::new(),
            "{prefix}"
        );
    }
    assert_eq!(complete(&["the-loop", "a"]), ["apply"]);
}

#[test]
fn the_installed_script_completes_below_the_top_level() {
    let (w, a, _) = registered();
    let out = w.the_loop(&["completions", "bash"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let file = w.root().join("the-loop.bash");
    std::fs::write(&file, &out.stdout).unwrap();
    let complete = |words: &[&str]| bash_complete(&w, Script::Installed(&file), words);

    assert_eq!(complete(&["the-loop", "sessions", "at"]), ["attach"]);
    assert!(complete(&["the-loop", "sessions", "attach", ""]).contains(&a));
    assert!(complete(&["the-loop", "plan", "--"]).contains(&"--target".to_owned()));
    assert!(complete(&["the-loop", "standing", "say", "t"]) == ["triage"]);
    assert!(!complete(&["the-loop", ""]).contains(&"exec".to_owned()));
}

#[test]
fn completions_prints_what_the_switch_prints_for_every_shell() {
    let w = World::new();
    for shell in SHELLS {
        let printed = in_world("the-loop", &w)
            .args(["completions", shell])
            .output()
            .unwrap();
        assert!(printed.status.success(), "{shell}: {}", stderr(&printed));
        let switched = in_world("the-loop", &w)
            .env("THE_LOOP_COMPLETE", shell)
            .output()
            .unwrap();
        assert!(switched.status.success(), "{shell}: {}", stderr(&switched));
        let (printed, switched) = (stdout(&printed), stdout(&switched));
        if shell == "zsh" {
            // The same script, and the line that lets $fpath autoload it.
            let (same, bridge) = printed.split_at(switched.len());
            assert_eq!(same, switched);
            assert!(bridge.contains("${funcstack[1]}"), "{bridge}");
        } else {
            assert_eq!(printed, switched, "{shell}");
        }
        // Not clap_complete's static script (`the__loop`), no build path,
        // and the switch is the-loop's own variable, never clap's COMPLETE.
        assert!(!printed.contains("the__loop"), "{shell}: {printed}");
        assert!(!printed.contains(&*bin().to_string_lossy()), "{shell}");
        assert_eq!(
            printed.matches("COMPLETE=").count(),
            printed.matches("THE_LOOP_COMPLETE=").count(),
            "{shell}: {printed}"
        );
    }
}

/// Whether `shell` runs; when it does not, the test says SKIP (and fails
/// under THE_LOOP_REQUIRE_TOOLS, as CI sets it: `.ci/run` installs it).
fn installed(shell: &str) -> bool {
    let runs = Command::new(shell)
        .args(["-c", "exit 0"])
        .output()
        .is_ok_and(|o| o.status.success());
    let found = runs.then(|| PathBuf::from(shell));
    required_tool(found, shell, "apt-get install zsh fish, or run .ci/run").is_some()
}

/// zsh, when it is installed: the script as the Debian package installs it
/// (`_the-loop` in a directory on `$fpath`) completes on the first Tab, and
/// sourced, it registers the dynamic completer. `_describe`, which only a
/// completion widget may call, is stood in for by one that prints.
#[test]
fn zsh_completes_from_fpath_and_sourced_if_installed() {
    if !installed("zsh") {
        return;
    }
    let (w, a, _) = registered();
    let dir = w.root().join("zsh-functions");
    std::fs::create_dir_all(&dir).unwrap();
    let out = w.the_loop(&["completions", "zsh"]);
    std::fs::write(dir.join("_the-loop"), &out.stdout).unwrap();
    let zsh = |program: &str| {
        let out = in_world("zsh", &w)
            .args(["-f", "-c", program])
            .output()
            .unwrap();
        assert!(out.status.success(), "{program}: {}", stderr(&out));
        stdout(&out)
    };
    let setup = format!(
        "fpath=('{}' $fpath); autoload -Uz compinit && compinit -u -D\n\
         _describe() {{ print -rl -- \"${{(@P)3}}\" }}\n",
        dir.display()
    );
    // zsh's candidates are `value:help`, a colon in the value escaped.
    let first_tab = zsh(&format!(
        "{setup}words=(the-loop sessions attach ''); CURRENT=4; _the-loop"
    ));
    let escaped = format!("{}:", a.replace(':', "\\:"));
    assert!(
        first_tab.lines().any(|l| l.starts_with(&escaped)),
        "{first_tab}"
    );
    let sourced = zsh(&format!(
        "{setup}source '{}'; print -r -- ${{_comps[the-loop]}}",
        dir.join("_the-loop").display()
    ));
    assert_eq!(sourced.trim(), "_the_loop_complete_the_loop");
}

/// fish, when it is installed: the script as the package installs it
/// completes below the top level.
#[test]
fn fish_completes_below_the_top_level_if_installed() {
    if !installed("fish") {
        return;
    }
    let (w, a, _) = registered();
    let out = w.the_loop(&["completions", "fish"]);
    let file = w.root().join("the-loop.fish");
    std::fs::write(&file, &out.stdout).unwrap();
    let fish = |line: &str| {
        let program = format!("source '{}'; complete -C '{line}'", file.display());
        let out = in_world("fish", &w)
            .args(["-c", &program])
            .output()
            .unwrap();
        assert!(out.status.success(), "{line}: {}", stderr(&out));
        let words: Vec<String> = stdout(&out)
            .lines()
            .map(|l| l.split('\t').next().unwrap_or_default().to_owned())
            .collect();
        words
    };
    assert_eq!(fish("the-loop sessions at"), ["attach"]);
    assert!(fish("the-loop plan --target ").contains(&a));
    assert!(!fish("the-loop e").contains(&"exec".to_owned()));
}
