//! I/O errors are said in an operator's words, never in Rust's ("entity
//! not found"), and point at what to fix (issue 36).

use crate::support::*;

/// Whether `text` says `want`, wherever a diagnostic wrapped it.
fn has(text: &str, want: &str) -> bool {
    flat(text).contains(&flat(want))
}

/// Rust's own wording of `io::ErrorKind`s that reach a person otherwise.
const RUST_WORDS: &[&str] = &["entity not found", "other error", "uncategorized error"];

fn assert_plain(out: &std::process::Output) {
    let text = explain(out);
    for words in RUST_WORDS {
        assert!(!text.contains(words), "Rust's words {words:?}: {text}");
    }
}

/// A missing env file names the config line that set it, and how to fix it.
#[test]
fn a_missing_env_file_names_the_config_line_that_set_it() {
    let w = World::new();
    // No env file was written: the config's `env.file: .env` (line 4) names none.
    for args in [&["plan"][..], &["apply", "--auto-approve"], &["validate"]] {
        let out = w.the_loop(args);
        assert_eq!(code(&out), Some(1), "{args:?}: {}", explain(&out));
        assert_plain(&out);
        let err = stderr(&out);
        let set_at = format!("set at {}:4:9", w.config_path.display());
        assert!(
            has(
                &err,
                &format!("cannot read env file {}", w.env_path.display())
            ),
            "{args:?}: {err}"
        );
        assert!(
            has(&err, "no such file") && has(&err, &set_at),
            "{args:?}: {err}"
        );
        assert!(has(&err, "point env.file at"), "{args:?}: {err}");
    }
}

/// A `--cwd` that does not exist is said in words, with what to do.
#[test]
fn a_missing_cwd_says_so() {
    let w = World::new();
    w.write_env("A=1\n");
    let missing = w.work.join("not-made-yet");
    let out = w.the_loop(&[
        "sessions",
        "start",
        "github:octo/repo#1",
        "--cwd",
        missing.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    assert_plain(&out);
    let err = stderr(&out);
    assert!(
        has(
            &err,
            &format!("--cwd {}: no such directory", missing.display())
        ),
        "{err}"
    );
    assert!(has(&err, "mkdir -p"), "{err}");
}

/// A config, a saved plan and an env file named on the command line that
/// are not there: each says "no such file or directory".
#[test]
fn missing_files_named_on_the_command_line_are_said_in_words() {
    let w = World::new();
    w.write_env("A=1\n");
    let gone = w.root().join("gone");
    let gone = gone.to_str().unwrap();
    let out = w.the_loop_as_given(&["--config", gone, "plan"]);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    assert_plain(&out);
    assert!(has(&stderr(&out), "no such file or directory"));
    for args in [
        ["apply", gone].as_slice(),
        &["show", gone],
        &["plan", "--env-file", gone],
        &["validate", "--env-file", gone],
    ] {
        let out = w.the_loop(args);
        assert_eq!(code(&out), Some(1), "{args:?}: {}", explain(&out));
        assert_plain(&out);
        assert!(
            has(&stderr(&out), "no such file or directory"),
            "{args:?}: {}",
            explain(&out)
        );
    }
}

/// A name in another script (日) is a letter to a person, so the fix says
/// which letters a name takes; the name itself is never quoted (issue 47).
#[test]
fn a_name_that_is_not_ascii_is_told_which_letters_a_name_takes() {
    let w = World::new();
    w.write_env("日=1\n");
    let out = w.the_loop(&["validate"]);
    assert_eq!(code(&out), Some(1), "{}", explain(&out));
    let text = explain(&out);
    assert!(has(&text, ".env:1:1: invalid variable name"), "{text}");
    assert!(
        has(&text, "ASCII letters (A-Z, a-z), digits and `_`"),
        "{text}"
    );
    assert!(!text.contains('日'), "the file is never quoted: {text}");
}
