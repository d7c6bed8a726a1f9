//! Codex's argv: what the-loop writes after the binary, and how it is read
//! back from a running process.
//!
//! A resume is `codex resume <id> [args…] [-m MODEL] [-c
//! model_reasoning_effort="E"]`; a fresh launch is the same without
//! `resume <id>` (Codex makes the conversation's id itself, when the first
//! prompt is submitted). The hook layer's `-c hooks.<Event>=…` pairs come
//! right after the binary ([`super::hooks`]), before either. Codex has no
//! `--effort`: the reasoning effort is a config override.

use crate::harness::{Launch, LaunchArgs, ObservedLaunch, PROMPT_SEPARATOR};
use std::ffi::OsString;

pub const CODEX: &str = "codex";

/// The subcommand that reopens a recorded conversation.
pub const RESUME: &str = "resume";

/// The config override Codex reads the reasoning effort from.
const EFFORT_KEY: &str = "model_reasoning_effort=";

/// The argv after the binary (and after the hook layer).
pub fn argv(launch: &Launch, args: &LaunchArgs) -> Vec<OsString> {
    let mut argv: Vec<OsString> = Vec::new();
    if let Launch::Resume { session_id } = launch {
        argv.extend([RESUME.into(), session_id.into()]);
    }
    argv.extend(tail(args).into_iter().map(OsString::from));
    if let Launch::Fresh {
        prompt: Some(prompt),
        ..
    } = launch
    {
        // `--` ends the options: a prompt is never read as a flag.
        argv.extend([PROMPT_SEPARATOR.into(), prompt.into()]);
    }
    argv
}

/// The words after the conversation choice for `args`.
pub fn tail(args: &LaunchArgs) -> Vec<String> {
    let mut words = args.harness_args.clone();
    if let Some(model) = &args.model {
        words.extend(["-m".into(), model.clone()]);
    }
    if let Some(effort) = &args.effort {
        words.extend(["-c".into(), format!("{EFFORT_KEY}{effort}")]);
    }
    words
}

/// Splits a tail back into arguments, model and effort, reading the-loop's
/// layout from the end.
pub fn read_args(tail: &[String]) -> LaunchArgs {
    let mut words = tail.to_vec();
    let n = words.len();
    let effort = (n >= 2 && words[n - 2] == "-c")
        .then(|| words[n - 1].strip_prefix(EFFORT_KEY).map(str::to_owned))
        .flatten();
    if effort.is_some() {
        words.truncate(n - 2);
    }
    let n = words.len();
    let model = (n >= 2 && words[n - 2] == "-m").then(|| words[n - 1].clone());
    if model.is_some() {
        words.truncate(n - 2);
    }
    LaunchArgs {
        harness_args: words,
        model,
        effort,
    }
}

/// Reads the-loop's launch from an argv as `/proc` shows it: the words
/// after the Codex program (the native binary, or npm's `codex.js` under
/// node), less the hook layer. `None` when no Codex program is in it.
pub fn read_launch(argv: &[String]) -> Option<ObservedLaunch> {
    // The launcher names the harness (`--harness codex`) before its `--`.
    let program = (0..argv.len())
        .find(|&i| is_codex_program(&argv[i]) && (i == 0 || argv[i - 1] != "--harness"))?;
    let mut rest = &argv[program + 1..];
    while rest.len() >= 2 && rest[0] == "-c" && rest[1].starts_with("hooks.") {
        rest = &rest[2..];
    }
    if rest.len() >= 2 && rest[0] == RESUME {
        return Some(ObservedLaunch {
            fresh: false,
            conversation: Some(rest[1].clone()),
            tail: rest[2..].to_vec(),
        });
    }
    let mut tail = rest.to_vec();
    if tail.len() >= 2 && tail[tail.len() - 2] == PROMPT_SEPARATOR {
        tail.truncate(tail.len() - 2);
    }
    Some(ObservedLaunch {
        fresh: true,
        conversation: None,
        tail,
    })
}

fn file_name(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// The native binary (`codex`) or npm's wrapper script (`bin/codex.js`).
fn is_codex_program(word: &str) -> bool {
    matches!(file_name(word), CODEX | "codex.js")
}

/// Programs that run a script named as their first argument.
const INTERPRETERS: &[&str] = &["node", "nodejs", "bun", "deno"];

/// Whether an argv is Codex's own process: its program is named `codex`,
/// or node runs npm's `codex.js`. The-loop's launcher before its exec, a
/// shell, or an editor with a file named `codex` are not.
pub fn recognises(argv: &[String]) -> bool {
    let Some(program) = argv.first().map(|w| file_name(w)) else {
        return false;
    };
    if program == CODEX {
        return true;
    }
    if !INTERPRETERS.contains(&program) {
        return false;
    }
    argv.iter()
        .skip(1)
        .find(|w| !w.starts_with('-'))
        .is_some_and(|script| file_name(script) == "codex.js")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split(' ').map(String::from).collect()
    }

    #[test]
    fn a_resume_and_a_fresh_launch_read_back_as_written() {
        let args = LaunchArgs {
            harness_args: vec!["--full-auto".into()],
            model: Some("gpt-5".into()),
            effort: Some("high".into()),
        };
        let resume = argv(
            &Launch::Resume {
                session_id: "01a2-x".into(),
            },
            &args,
        );
        let mut line: Vec<String> = ["/opt/codex", "-c", "hooks.Stop=[]"]
            .map(String::from)
            .to_vec();
        line.extend(resume.iter().map(|w| w.to_string_lossy().into_owned()));
        let read = read_launch(&line).unwrap();
        assert!(!read.fresh);
        assert_eq!(read.conversation.as_deref(), Some("01a2-x"));
        assert_eq!(read_args(&read.tail), args);

        let fresh = argv(
            &Launch::Fresh {
                session_id: "ignored".into(),
                prompt: Some("fix it".into()),
            },
            &args,
        );
        let mut line = words("node /usr/lib/node_modules/@openai/codex/bin/codex.js");
        line.extend(fresh.iter().map(|w| w.to_string_lossy().into_owned()));
        let read = read_launch(&line).unwrap();
        assert!(read.fresh);
        assert_eq!(read.conversation, None);
        assert_eq!(read.tail, tail(&args));
        assert!(!line.contains(&"ignored".to_owned()), "Codex takes no id");

        let launcher = words("/bin/the-loop exec --harness codex -- codex resume abc -m o3");
        let read = read_launch(&launcher).unwrap();
        assert_eq!(read.conversation.as_deref(), Some("abc"));
        assert_eq!(read.tail, ["-m", "o3"]);
    }

    #[test]
    fn codex_is_recognised_by_its_argv_and_nothing_else_is() {
        for yes in [
            "codex",
            "/opt/vendor/x86_64-unknown-linux-musl/bin/codex resume abc",
            "node /usr/lib/node_modules/@openai/codex/bin/codex.js",
        ] {
            assert!(recognises(&words(yes)), "{yes}");
        }
        for no in [
            "",
            "bash",
            "vim codex",
            "/usr/bin/the-loop exec --harness codex -- codex resume abc",
            "node server.js",
            "codex-helper",
            "claude --resume abc",
        ] {
            assert!(!recognises(&words(no)), "{no}");
        }
    }
}
