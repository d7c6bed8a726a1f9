//! Claude Code, the harness the-loop was built around: its argv, where it
//! keeps its conversations, its hook settings and its blocking screens.

use super::user_files::HarnessHome;
use super::{hooks, prepare, screens, Harness, Launch, LaunchArgs, ObservedLaunch};
use crate::desired::config::Config;
use crate::events::EventLog;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

pub const CLAUDE: &str = "claude";

pub use super::user_files::CLAUDE_CONFIG_DIR as CONFIG_DIR_VARIABLE;

/// Claude Code.
#[derive(Debug)]
pub struct ClaudeCode;

pub static CLAUDE_CODE: ClaudeCode = ClaudeCode;

impl Harness for ClaudeCode {
    fn name(&self) -> &'static str {
        CLAUDE
    }
    fn default_binary(&self) -> &'static str {
        CLAUDE
    }
    fn home_variables(&self) -> &'static [&'static str] {
        &[CONFIG_DIR_VARIABLE]
    }
    fn argv(&self, launch: &Launch, args: &LaunchArgs) -> Vec<OsString> {
        harness_argv(launch, args)
    }
    fn transcript_path(
        &self,
        env: &dyn Fn(&str) -> Option<PathBuf>,
        cwd: &Path,
        session_id: &str,
    ) -> PathBuf {
        // Without a home, `/`: the lookup then fails and says where it looked.
        let home = env("HOME").unwrap_or_else(|| PathBuf::from("/"));
        let config_dir = env(CONFIG_DIR_VARIABLE);
        transcript_path(config_dir.as_deref(), &home, cwd, session_id)
    }
    fn hook_settings(
        &self,
        state_root: &Path,
        the_loop: &Path,
        key_helper: Option<&[OsString]>,
    ) -> std::io::Result<Vec<OsString>> {
        hooks::write(state_root, the_loop, key_helper)
    }
    fn blocking_screen(&self, screen: &str) -> Option<screens::BlockingScreen> {
        screens::blocking_screen(screen)
    }
    fn turn_screen(&self, screen: &str) -> super::turn_screen::TurnScreen {
        super::turn_screen::turn_screen(screen)
    }
    fn background_children(&self, pid: i32) -> usize {
        tool_shells(&crate::proc_env::children_argv(pid))
    }
    fn uses_key_helper(&self) -> bool {
        true
    }
    fn said_conversation(
        &self,
        env: &dyn Fn(&str) -> Option<PathBuf>,
        pid: i32,
        start: Option<u64>,
    ) -> super::SaidConversation {
        super::claude_sessions::said(env, pid, start)
    }
    fn read_launch(&self, argv: &[String]) -> Option<ObservedLaunch> {
        read_launch(argv)
    }
    fn recognises(&self, argv: &[String]) -> bool {
        recognises(argv)
    }
    fn launch_tail(&self, args: &LaunchArgs) -> Vec<String> {
        let launch = Launch::Resume {
            session_id: String::new(),
        };
        // Past `--resume ID`.
        harness_argv(&launch, args)
            .into_iter()
            .skip(2)
            .map(|w| w.to_string_lossy().into_owned())
            .collect()
    }
    fn read_args(&self, tail: &[String]) -> LaunchArgs {
        split(tail)
    }
    fn prepare(
        &self,
        config: &Config,
        home: &HarnessHome,
        cwd: &Path,
        args: &LaunchArgs,
        events: &EventLog,
    ) {
        prepare::before_spawn(config, home, cwd, args, events)
    }
}

/// Finds the-loop's launch in an argv: the words after the first
/// `--session-id ID` or `--resume ID`. Whatever runs the harness (an
/// interpreter, a wrapper, the launcher before its exec, the hook settings
/// layer) comes before them.
fn read_launch(cmdline: &[String]) -> Option<ObservedLaunch> {
    let at = cmdline
        .iter()
        .position(|w| w == "--session-id" || w == "--resume")
        .filter(|i| i + 1 < cmdline.len())?;
    let fresh = cmdline[at] == "--session-id";
    let mut tail = cmdline[at + 2..].to_vec();
    if fresh && tail.len() >= 2 && tail[tail.len() - 2] == PROMPT_SEPARATOR {
        tail.truncate(tail.len() - 2);
    }
    Some(ObservedLaunch {
        fresh,
        conversation: Some(cmdline[at + 1].clone()),
        tail,
    })
}

/// Programs that run a script named as their first argument: Claude Code
/// installed with npm runs as `node …/cli.js`, a wrapper as `bash …/claude`.
const INTERPRETERS: &[&str] = &["node", "nodejs", "bun", "deno", "bash", "sh", "dash", "zsh"];

fn is_command_flag(word: &str) -> bool {
    matches!(word, "-c" | "-e" | "--eval" | "-p" | "--print")
}

/// Whether an argv is Claude Code's: its program is named `claude` (the
/// native build, a link to it, or a script of that name run through an
/// interpreter), or an interpreter runs the npm package's `cli.js`.
fn recognises(argv: &[String]) -> bool {
    let file_name = |word: &String| {
        std::path::Path::new(word)
            .file_name()
            .and_then(|n| n.to_str())
            .map(str::to_owned)
    };
    let Some(program) = argv.first().and_then(file_name) else {
        return false;
    };
    if program == CLAUDE {
        return true;
    }
    if !INTERPRETERS.contains(&program.as_str()) {
        return false;
    }
    // The script is the first word that is not an option of the
    // interpreter; `-c`/`-e` run a command string instead of a script.
    let mut words = argv.iter().skip(1);
    let Some(script) = words.find(|w| !w.starts_with('-') || is_command_flag(w)) else {
        return false;
    };
    if is_command_flag(script) {
        return false;
    }
    file_name(script).as_deref() == Some(CLAUDE)
        || (script.ends_with("/cli.js") && script.contains("claude-code"))
}

/// Splits a tail into harness args, model and effort, reading the-loop's
/// layout from the end: `[args…] [--model M] [--effort E]`.
fn split(tail: &[String]) -> LaunchArgs {
    let mut words = tail.to_vec();
    let effort = take_last_flag(&mut words, "--effort");
    let model = take_last_flag(&mut words, "--model");
    LaunchArgs {
        harness_args: words,
        model,
        effort,
    }
}

/// Removes a trailing `FLAG VALUE` pair and returns the value.
fn take_last_flag(words: &mut Vec<String>, flag: &str) -> Option<String> {
    let n = words.len();
    if n >= 2 && words[n - 2] == flag {
        let value = words.pop();
        words.pop();
        value
    } else {
        None
    }
}

/// Separates the options from a first prompt in a fresh launch's argv.
pub const PROMPT_SEPARATOR: &str = "--";

/// The harness argv after the binary: `--session-id ID` or `--resume ID`,
/// then harness args, `--model M`, `--effort E`, and a first prompt last
/// (after `--`).
pub fn harness_argv(launch: &Launch, args: &LaunchArgs) -> Vec<OsString> {
    let mut argv: Vec<OsString> = Vec::new();
    match launch {
        Launch::Fresh { session_id, .. } => argv.extend(["--session-id".into(), session_id.into()]),
        Launch::Resume { session_id } => argv.extend(["--resume".into(), session_id.into()]),
    }
    argv.extend(args.harness_args.iter().map(OsString::from));
    if let Some(model) = &args.model {
        argv.extend(["--model".into(), model.into()]);
    }
    if let Some(effort) = &args.effort {
        argv.extend(["--effort".into(), effort.into()]);
    }
    if let Launch::Fresh {
        prompt: Some(prompt),
        ..
    } = launch
    {
        // `--` ends the options, so a prompt can never be read as a flag,
        // and the prompt is told apart from harness args when argv is read back.
        argv.push(PROMPT_SEPARATOR.into());
        argv.push(prompt.into());
    }
    argv
}

/// Claude Code's project directory name for a cwd: every character that is
/// not ASCII alphanumeric becomes `-`.
pub fn project_dir_name(cwd: &Path) -> String {
    let cwd = cwd.to_string_lossy();
    let mut name = String::with_capacity(cwd.len());
    name.extend(
        cwd.chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }),
    );
    name
}

/// `${CLAUDE_CONFIG_DIR:-$HOME/.claude}/projects/<cwd mangled>/<id>.jsonl`,
/// with `CLAUDE_CONFIG_DIR` and `HOME` as the session itself holds them.
pub fn transcript_path(
    config_dir: Option<&Path>,
    home: &Path,
    cwd: &Path,
    session_id: &str,
) -> PathBuf {
    // One buffer, pushed onto: a plan builds one of these per session.
    let mut path = PathBuf::with_capacity(
        home.as_os_str().len() + 2 * cwd.as_os_str().len() + session_id.len() + 32,
    );
    match config_dir {
        Some(dir) if !dir.as_os_str().is_empty() => path.push(dir),
        _ => {
            path.push(home);
            path.push(".claude");
        }
    }
    path.push("projects");
    path.push(project_dir_name(cwd));
    path.push(format!("{session_id}.jsonl"));
    path
}

/// A shell Claude Code runs a tool's command in (its Bash tool, a `!`
/// command, one sent to the background): `<shell> -c 'source
/// <config dir>/shell-snapshots/snapshot-….sh … && eval …'`, seen on
/// 2.1.328 and 2.1.332. Its MCP servers and the hooks' shells do not source
/// a snapshot.
/// How many of these child processes' argv are tool shells.
pub fn tool_shells(children: &[Vec<String>]) -> usize {
    children.iter().filter(|argv| is_tool_shell(argv)).count()
}

pub(crate) fn is_tool_shell(argv: &[String]) -> bool {
    let shell = argv
        .first()
        .and_then(|a| a.rsplit('/').next())
        .is_some_and(|name| name.ends_with("sh"));
    let script = argv.iter().skip(1).find(|a| !a.starts_with('-'));
    shell
        && argv.iter().skip(1).any(|a| a == "-c")
        && script
            .is_some_and(|s| s.starts_with("source ") && s.contains("/shell-snapshots/snapshot-"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_launch_behind_any_interpreter() {
        let cases = [
            "bash /opt/bin/claude --session-id abc --model opus -- fix-the-bug",
            "node /usr/lib/claude/cli.js --resume abc --verbose --model opus --effort high",
            "/usr/bin/the-loop exec --config /c.yaml --work-item github:o/r#1 -- claude --resume abc",
            "claude --session-id abc",
            "claude --model opus",
            "claude --resume",
        ];
        let read: Vec<(&str, Option<ObservedLaunch>)> = cases
            .iter()
            .map(|c| {
                let argv: Vec<String> = c.split(' ').map(String::from).collect();
                (*c, CLAUDE_CODE.read_launch(&argv))
            })
            .collect();
        insta::assert_debug_snapshot!(read);
    }

    #[test]
    fn claude_code_is_recognised_by_its_argv_and_nothing_else_is() {
        let argv = |line: &str| -> Vec<String> { line.split(' ').map(String::from).collect() };
        for yes in [
            "claude",
            "/home/op/.local/bin/claude --resume abc",
            "/opt/claude-code-linux-x64/claude --session-id abc --model opus",
            "bash /tmp/w/bin/claude --session-id abc",
            "/usr/bin/node --no-warnings /usr/lib/node_modules/@anthropic-ai/claude-code/cli.js",
        ] {
            assert!(CLAUDE_CODE.recognises(&argv(yes)), "{yes}");
        }
        for no in [
            "",
            "bash",
            "-bash",
            "vim claude",
            "less /tmp/claude",
            "/usr/bin/the-loop exec --config /c.yaml --work-item github:o/r#1 -- claude --resume abc",
            "sh -c claude --resume abc",
            "node server.js",
            "claude-helper --x",
        ] {
            assert!(!CLAUDE_CODE.recognises(&argv(no)), "{no}");
        }
    }

    #[test]
    fn the_tail_is_what_argv_writes_after_the_conversation() {
        let args = LaunchArgs {
            harness_args: vec!["--verbose".into()],
            model: Some("opus".into()),
            effort: Some("high".into()),
        };
        let tail = CLAUDE_CODE.launch_tail(&args);
        assert_eq!(tail, ["--verbose", "--model", "opus", "--effort", "high"]);
        assert_eq!(CLAUDE_CODE.read_args(&tail), args);
    }

    #[test]
    fn argv_order() {
        let args = LaunchArgs {
            harness_args: vec!["--dangerously-skip-permissions".into()],
            model: Some("opus".into()),
            effort: Some("high".into()),
        };
        let fresh = harness_argv(
            &Launch::Fresh {
                session_id: "abc".into(),
                prompt: Some("go".into()),
            },
            &args,
        );
        insta::assert_debug_snapshot!(fresh);
        let resume = harness_argv(
            &Launch::Resume {
                session_id: "abc".into(),
            },
            &LaunchArgs::default(),
        );
        assert_eq!(
            resume,
            vec![OsString::from("--resume"), OsString::from("abc")]
        );
    }

    #[test]
    fn transcript_location() {
        let p = transcript_path(
            None,
            Path::new("/home/op"),
            Path::new("/work/octo.repo"),
            "id1",
        );
        assert_eq!(
            p,
            Path::new("/home/op/.claude/projects/-work-octo-repo/id1.jsonl")
        );
        let p = transcript_path(
            Some(Path::new("/cfg")),
            Path::new("/home/op"),
            Path::new("/w"),
            "id1",
        );
        assert_eq!(p, Path::new("/cfg/projects/-w/id1.jsonl"));
    }

    #[test]
    fn the_transcript_follows_the_sessions_own_variables() {
        let at = |vars: &[(&str, &str)]| {
            let env = |name: &str| {
                vars.iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| PathBuf::from(v))
            };
            CLAUDE_CODE.transcript_path(&env, Path::new("/w"), "id1")
        };
        assert_eq!(
            at(&[("HOME", "/home/op")]),
            Path::new("/home/op/.claude/projects/-w/id1.jsonl")
        );
        assert_eq!(
            at(&[("HOME", "/home/op"), ("CLAUDE_CONFIG_DIR", "/cfg")]),
            Path::new("/cfg/projects/-w/id1.jsonl")
        );
        assert_eq!(at(&[]), Path::new("/.claude/projects/-w/id1.jsonl"));
    }

    #[test]
    fn a_tool_shell_is_told_from_a_hook_and_a_server() {
        let argv = |words: &[&str]| words.iter().map(|w| w.to_string()).collect::<Vec<_>>();
        let tool = argv(&[
            "/bin/bash",
            "-c",
            "source /home/a/.claude/shell-snapshots/snapshot-bash-17-x.sh 2>/dev/null || true && eval 'npm run dev'",
        ]);
        let login_zsh = argv(&[
            "/usr/bin/zsh",
            "-l",
            "-c",
            "source /c/shell-snapshots/snapshot-zsh-1.sh && eval 'x'",
        ]);
        let hook = argv(&[
            "/bin/sh",
            "-c",
            "/usr/bin/the-loop hook --harness claude Stop",
        ]);
        let server = argv(&["node", "/srv/mcp-server.js"]);
        let named_like_one = argv(&["vim", "-c", "source /c/shell-snapshots/snapshot-bash-1.sh"]);
        assert!(super::is_tool_shell(&tool));
        assert!(super::is_tool_shell(&login_zsh));
        assert!(!super::is_tool_shell(&hook));
        assert!(!super::is_tool_shell(&server));
        assert!(!super::is_tool_shell(&named_like_one));
        assert_eq!(super::tool_shells(&[tool, hook, server]), 1);
    }
}
