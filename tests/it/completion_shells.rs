//! Ref completion typed into real shells: bash (with bash-completion, and
//! without it), zsh and fish run in a pane of this test's own tmux server,
//! the completion script installed where the README says, and keys are sent
//! as a person types them. `the-loop apply --target github:oc<Tab>` must
//! reach a registered ref over the Tabs that follow, which clap_complete's
//! own scripts do not (bash splits at `:`, zsh hands over `\#`; see
//! `src/cli/complete_shells.rs`). What the shell finally runs is read back
//! with `printf`, so an escaped `\#` on the line counts as the `#` it is.
//!
//! A shell that is not installed skips with a SKIP line, and fails under
//! THE_LOOP_REQUIRE_TOOLS, as CI sets it (`.ci/run` installs all three).

use crate::support::*;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const BASH_COMPLETION: &str = "/usr/share/bash-completion/bash_completion";

/// Three registered work items, two sharing `github:octo/repo#`.
fn three_registered() -> World {
    let w = World::new();
    w.write_env("A=1\n");
    for (reference, slug) in [
        ("github:octo/repo#12", "github-octo-repo-12"),
        ("github:octo/repo#34", "github-octo-repo-34"),
        ("github:octo/tools#5", "github-octo-tools-5"),
    ] {
        let session = LegacySession {
            reference: reference.into(),
            slug: slug.into(),
            name: format!("loop-{slug}"),
            session_id: format!("0000-{slug}"),
            cwd: w.work.clone(),
        };
        w.write_record(&session, "active");
    }
    w
}

fn found(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
}

fn installed(shell: &str, extra: Option<&str>) -> bool {
    let what = format!("{shell} (for the completion tests)");
    let how = "apt-get install zsh fish bash-completion, or run .ci/run";
    let shell_found = required_tool(found(shell), &what, how).is_some();
    let extra_found = extra.is_none_or(|file| {
        let file = Some(PathBuf::from(file)).filter(|p| p.is_file());
        required_tool(file, "bash-completion", how).is_some()
    });
    shell_found && extra_found
}

/// `the-loop completions SHELL` written to `path`, as the README installs it.
fn install_script(w: &World, shell: &str, path: &Path) {
    let out = ok(w.the_loop(&["completions", shell]));
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, &out.stdout).unwrap();
}

/// Starts `argv` in a pane of this world's tmux server, in an environment
/// holding only what a login would (the built the-loop first on PATH).
fn start_shell(w: &World, argv: &[&str]) {
    let the_loop = assert_cmd::cargo::cargo_bin("the-loop");
    let path = format!(
        "PATH={}:{}",
        the_loop.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let home = format!("HOME={}", w.home.display());
    let config = format!("THE_LOOP_CLI_CONFIG={}", w.config_path.display());
    let mut args = vec!["new-session", "-d", "-s", "shell", "-x", "160", "-y", "40"];
    args.extend(["--", "env", "-i", "TERM=screen", "LANG=C.UTF-8"]);
    args.extend([home.as_str(), path.as_str(), config.as_str()]);
    args.extend(argv);
    w.tmux_ok(&args);
}

fn screen(w: &World) -> String {
    stdout(&w.tmux(&["capture-pane", "-p", "-t", "=shell:"]))
}

/// Waits until the pane's screen passes `check`; fails with the screen.
fn wait_screen(w: &World, what: &str, check: impl Fn(&str) -> bool) {
    let deadline = Instant::now() + HANG_GUARD;
    loop {
        let shown = screen(w);
        if check(&shown) {
            return;
        }
        assert!(Instant::now() < deadline, "{what}; the screen:\n{shown}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The command line being edited (the last line showing the prompt),
/// with the shell's quoting backslashes taken out.
fn command_line(shown: &str) -> String {
    let line = shown.lines().rfind(|l| l.contains("READY>")).unwrap_or("");
    line.replace('\\', "").trim_end().to_owned()
}

fn keys(w: &World, keys: &[&str]) {
    let mut args = vec!["send-keys", "-t", "=shell:"];
    args.extend(keys);
    w.tmux_ok(&args);
}

/// Types the ref Tab by Tab and checks each step, then has the shell run
/// `printf` on the completed line. `list` is what makes this shell list
/// the candidates left after an insert (bash: a second Tab; zsh: one; fish
/// lists them as it inserts).
fn complete_a_ref_at_every_depth(w: &World, list: &[&str]) {
    wait_screen(w, "the shell shows its prompt", |s| s.contains("READY>"));
    keys(w, &["-l", "the-loop apply --target github:oc"]);
    keys(w, &["Tab"]);
    wait_screen(w, "github:oc<Tab> completes the owner", |s| {
        command_line(s).ends_with("--target github:octo/")
    });
    keys(w, &["r", "Tab"]);
    wait_screen(w, "github:octo/r<Tab> completes to the common part", |s| {
        command_line(s).ends_with("--target github:octo/repo#")
    });
    keys(w, list);
    wait_screen(w, "the two refs left are listed", |s| {
        let listed: Vec<&str> = s.lines().filter(|l| !l.contains("READY>")).collect();
        ["repo#12", "repo#34"]
            .iter()
            .all(|want| listed.iter().any(|l| l.contains(want)))
    });
    keys(w, &["1", "Tab"]);
    wait_screen(w, "github:octo/repo#1<Tab> completes the ref", |s| {
        command_line(s).ends_with("--target github:octo/repo#12")
    });
    // The completed word was closed (a space after it), and is the ref.
    keys(w, &["X", "C-a"]);
    keys(w, &["-l", "printf '[%s]\\n' "]);
    keys(w, &["Enter"]);
    wait_screen(w, "the shell runs the completed line", |s| {
        s.contains("[--target]\n[github:octo/repo#12]\n[X]")
    });
}

#[test]
fn bash_with_bash_completion_completes_a_ref_at_every_depth() {
    if !installed("bash", Some(BASH_COMPLETION)) {
        return;
    }
    let w = three_registered();
    // Where the README installs it: bash-completion loads it at the first Tab.
    let dir = w.home.join(".local/share/bash-completion/completions");
    install_script(&w, "bash", &dir.join("the-loop"));
    let rc = w.root().join("bashrc");
    std::fs::write(&rc, format!("PS1='READY> '\nsource {BASH_COMPLETION}\n")).unwrap();
    let rc = rc.to_str().unwrap();
    start_shell(&w, &["bash", "--noprofile", "--rcfile", rc, "-i"]);
    complete_a_ref_at_every_depth(&w, &["Tab", "Tab"]);
}

#[test]
fn bash_alone_completes_a_ref_at_every_depth_and_after_an_equals_sign() {
    if !installed("bash", None) {
        return;
    }
    let w = three_registered();
    let rc = w.root().join("bashrc");
    std::fs::write(
        &rc,
        "PS1='READY> '\nsource <(THE_LOOP_COMPLETE=bash the-loop)\n",
    )
    .unwrap();
    let rc = rc.to_str().unwrap();
    start_shell(&w, &["bash", "--noprofile", "--rcfile", rc, "-i"]);
    complete_a_ref_at_every_depth(&w, &["Tab", "Tab"]);

    keys(&w, &["-l", "the-loop apply --target=github:octo/t"]);
    keys(&w, &["Tab", "X", "C-a"]);
    keys(&w, &["-l", "printf '[%s]\\n' "]);
    keys(&w, &["Enter"]);
    wait_screen(&w, "--target=github:octo/t<Tab> completes the ref", |s| {
        s.contains("[--target=github:octo/tools#5]\n[X]")
    });
}

#[test]
fn zsh_completes_a_ref_at_every_depth() {
    if !installed("zsh", None) {
        return;
    }
    let w = three_registered();
    // `"${fpath[1]}/_the-loop"`, as the README installs it.
    let functions = w.home.join(".zsh/functions");
    install_script(&w, "zsh", &functions.join("_the-loop"));
    let zdotdir = w.root().join("zdotdir");
    std::fs::create_dir_all(&zdotdir).unwrap();
    std::fs::write(
        zdotdir.join(".zshrc"),
        format!(
            "PS1='READY> '\nfpath=('{}' $fpath)\nautoload -Uz compinit && compinit -u -D\n",
            functions.display()
        ),
    )
    .unwrap();
    let zdotdir = format!("ZDOTDIR={}", zdotdir.display());
    start_shell(&w, &[&zdotdir, "zsh", "-i"]);
    complete_a_ref_at_every_depth(&w, &["Tab"]);
}

#[test]
fn fish_completes_a_ref_at_every_depth() {
    if !installed("fish", None) {
        return;
    }
    let w = three_registered();
    // Where the README installs it: fish loads it at the first Tab.
    let file = w.home.join(".config/fish/completions/the-loop.fish");
    install_script(&w, "fish", &file);
    let prompt = "function fish_prompt; echo -n 'READY> '; end; set -g fish_greeting";
    start_shell(&w, &["fish", "-C", prompt]);
    complete_a_ref_at_every_depth(&w, &[]);
}
