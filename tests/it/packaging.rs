//! What a packager and a shell use: the manual pages, the completion scripts
//! (static, and dynamic ones that complete registered refs in a real bash).

use crate::support::*;

#[test]
fn man_prints_the_page_and_writes_one_per_command() {
    let w = World::new();
    let out = w.the_loop(&["man"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let page = stdout(&out);
    assert!(page.contains(".TH the-loop 1"), "{page}");
    assert!(page.contains("Keep long\\-lived agent sessions"), "{page}");

    let dir = w.root().join("man1");
    let out = w.the_loop(&["man", "--out-dir", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let list = std::fs::read_to_string(dir.join("the-loop-sessions-list.1")).unwrap();
    assert!(list.contains("\\-\\-work\\-item"), "{list}");
    assert!(dir.join("the-loop-sessions-attach.1").is_file());
    assert!(
        !dir.join("the-loop-exec.1").exists(),
        "the internal launcher gets no page"
    );
    // man itself can read it.
    let man = std::process::Command::new("man")
        .args(["-l", dir.join("the-loop-sessions-list.1").to_str().unwrap()])
        .env("MANPAGER", "cat")
        .env("MANWIDTH", "100")
        .output();
    if let Ok(man) = man {
        if man.status.success() {
            assert!(stdout(&man).contains("--status"), "{}", stdout(&man));
        }
    }
}

/// Asks the registration script `the-loop` prints for bash what it would
/// complete `words` to, the way bash's programmable completion calls it.
fn bash_complete(w: &World, words: &[&str]) -> Vec<String> {
    let bin = assert_cmd::cargo::cargo_bin("the-loop");
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let script = format!(
        "source <(THE_LOOP_COMPLETE=bash '{bin}')\n\
         COMP_WORDS=({words}); COMP_CWORD={cword}; COMP_TYPE=9\n\
         _clap_complete_the_loop the-loop {current} x\n\
         printf '%s\\n' \"${{COMPREPLY[@]}}\"\n",
        bin = bin.display(),
        words = quoted.join(" "),
        cword = words.len() - 1,
        current = quoted.last().unwrap(),
    );
    let out = std::process::Command::new("bash")
        .args(["-c", &script])
        .env("THE_LOOP_CLI_CONFIG", &w.config_path)
        .env("HOME", &w.home)
        .output()
        .expect("bash runs");
    assert!(out.status.success(), "{}", stderr(&out));
    stdout(&out).lines().map(String::from).collect()
}

#[test]
fn bash_completes_registered_refs_and_standing_names() {
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

    let all = bash_complete(&w, &["the-loop", "sessions", "attach", ""]);
    for want in [a.reference.as_str(), b.reference.as_str(), "triage"] {
        assert!(all.iter().any(|c| c == want), "{want} not in {all:?}");
    }
    assert_eq!(
        bash_complete(&w, &["the-loop", "sessions", "pause", "github:octo/o"]),
        [b.reference.as_str()]
    );
    let filtered = bash_complete(&w, &["the-loop", "sessions", "list", "--work-item", "gith"]);
    assert!(filtered.iter().any(|c| c == &a.reference), "{filtered:?}");
    // Subcommands still complete, from the same binary.
    let verbs = bash_complete(&w, &["the-loop", "sessions", "at"]);
    assert_eq!(verbs, ["attach"]);
    // Without the switch, nothing changes: the-loop runs as usual.
    let out = w.the_loop(&["completions", "bash"]);
    assert!(stdout(&out).contains("the-loop"), "{}", stderr(&out));
}
