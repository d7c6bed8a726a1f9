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

/// The README's install lines (the block marked as run here), each run by
/// bash in this world's home, which holds nothing yet: the scripts land
/// where the README says, or the test fails.
fn install_as_the_readme_says(w: &World) {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"));
    let readme = readme.unwrap();
    let marker = "tests/it/completion_shells.rs runs these lines";
    let block = &readme[readme.find(marker).expect("the README's install block")..];
    let block = &block[block.find("```console").unwrap()..];
    let block = &block[..block[3..].find("```").unwrap() + 3];
    let lines: Vec<&str> = block.lines().filter_map(|l| l.strip_prefix("$ ")).collect();
    assert_eq!(lines.len(), 4, "{block}");
    for line in lines {
        let out = std::process::Command::new("bash")
            .args(["--noprofile", "--norc", "-c", line])
            .env("HOME", &w.home)
            .env("PATH", path_with_the_loop())
            .env("THE_LOOP_CLI_CONFIG", &w.config_path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "`{line}` in a fresh home: {}",
            explain(&out)
        );
    }
}

fn path_with_the_loop() -> String {
    let the_loop = assert_cmd::cargo::cargo_bin("the-loop");
    format!(
        "{}:{}",
        the_loop.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

#[test]
fn the_readmes_install_lines_work_in_a_fresh_home() {
    let w = World::new();
    assert!(
        std::fs::read_dir(&w.home).unwrap().next().is_none(),
        "a fresh home"
    );
    install_as_the_readme_says(&w);
    for (file, shell) in [
        (".local/share/bash-completion/completions/the-loop", "bash"),
        (".zfunc/_the-loop", "zsh"),
        (".config/fish/completions/the-loop.fish", "fish"),
    ] {
        let written = std::fs::read(w.home.join(file)).unwrap();
        let expected = ok(w.the_loop(&["completions", shell])).stdout;
        assert_eq!(written, expected, "{file}");
    }
}

/// Starts `argv` in a pane of this world's tmux server, in an environment
/// holding only what a login would (the built the-loop first on PATH).
fn start_shell(w: &World, argv: &[&str]) {
    let path = format!("PATH={}", path_with_the_loop());
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
    // Right after the colon (bash's word is then empty, or `:`).
    keys(w, &["-l", "the-loop apply --target github:"]);
    keys(w, &["Tab"]);
    wait_screen(w, "github:<Tab> completes the owner, one colon", |s| {
        command_line(s).ends_with("--target github:octo/")
    });
    keys(w, &["C-u"]);
    wait_screen(w, "the line is cleared", |s| command_line(s) == "READY>");
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
    // As the README installs it: bash-completion loads it at the first Tab.
    install_as_the_readme_says(&w);
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
    // As the README installs it, with the fpath line it says to add.
    install_as_the_readme_says(&w);
    let functions = w.home.join(".zfunc");
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
    // As the README installs it: fish loads it at the first Tab.
    install_as_the_readme_says(&w);
    let prompt = "function fish_prompt; echo -n 'READY> '; end; set -g fish_greeting";
    start_shell(&w, &["fish", "-C", prompt]);
    complete_a_ref_at_every_depth(&w, &[]);
}
