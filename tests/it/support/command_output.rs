//! A command's output read for assertions (its streams, exit code, JSON,
//! text without layout), the canary check on what it printed, and every
//! subcommand path of the CLI.

use std::path::Path;
use std::process::Output;

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A command's exit code; `None` when a signal ended it.
pub fn code(out: &Output) -> Option<i32> {
    out.status.code()
}

/// Everything a failed assertion about a command should show.
pub fn explain(out: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        stdout(out),
        stderr(out)
    )
}

/// The command's stdout as JSON; a panic that shows both streams if it is not.
pub fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", explain(out)))
}

/// The command succeeded (exit 0); its output, for a chained read.
pub fn ok(out: Output) -> Output {
    assert_eq!(out.status.code(), Some(0), "{}", explain(&out));
    out
}

/// A JSON file, parsed; a panic that names the file if it cannot be read.
pub fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(
        &std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
    )
    .unwrap_or_else(|e| panic!("{}: not JSON ({e})", path.display()))
}

/// The entry for `reference` in a JSON document's `sessions` array (an
/// apply report, a plan, `status --json`).
pub fn session_in<'a>(doc: &'a serde_json::Value, reference: &str) -> &'a serde_json::Value {
    doc["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["ref"] == reference)
        .unwrap_or_else(|| panic!("{reference} not in {doc}"))
}

/// Text with its white space and table rules removed, so an assertion does
/// not depend on where a rendered report wraps.
pub fn flat(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_whitespace() && *c != '│')
        .collect()
}

/// Fails if any canary (or its base64 or hex form) appears in `haystack`.
pub fn assert_no_canary(haystack: &[u8], canaries: &[&str], context: &str) {
    use base64::Engine;
    for canary in canaries {
        let forms = [
            canary.to_string(),
            base64::engine::general_purpose::STANDARD.encode(canary),
            canary
                .bytes()
                .map(|b| format!("{b:02x}"))
                .collect::<String>(),
        ];
        for form in forms {
            let found = haystack.windows(form.len()).any(|w| w == form.as_bytes());
            assert!(!found, "a canary value leaked into {context}");
        }
    }
}

/// Every subcommand path, e.g. `["sessions", "restart"]`, hidden ones excluded.
pub fn subcommand_paths() -> Vec<Vec<String>> {
    fn walk(cmd: &clap::Command, prefix: &[String], out: &mut Vec<Vec<String>>) {
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            let mut path = prefix.to_vec();
            path.push(sub.get_name().to_owned());
            out.push(path.clone());
            walk(sub, &path, out);
        }
    }
    let mut out = Vec::new();
    let root = <the_loop::cli::Cli as clap::CommandFactory>::command();
    walk(&root, &[], &mut out);
    out
}
