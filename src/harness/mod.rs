//! What the-loop needs from a harness (the [`Harness`] trait), the one
//! list of harnesses it can host ([`HARNESSES`]), and what every harness
//! shares: the launch, its arguments and the session id rule.

pub mod capture;
pub mod claude;
pub mod claude_background;
pub mod claude_sessions;
pub mod codex;
pub mod content_memo;
pub mod hooks;
pub mod ledger;
pub mod models;
pub mod prepare;
pub mod resumable;
pub mod screens;
pub mod seed;
pub mod seed_holds;
pub mod turn_screen;
pub mod user_files;

use crate::desired::config::Config;
use crate::events::EventLog;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

pub use crate::registry::{is_valid_session_id, LaunchArgs};

pub use claude::{
    harness_argv, project_dir_name, transcript_path, ClaudeCode, CLAUDE, CLAUDE_CODE,
    PROMPT_SEPARATOR,
};
pub use codex::{Codex, CODEX};

/// What a running harness says itself of its conversation
/// ([`Harness::said_conversation`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SaidConversation {
    /// It says nothing: the harness keeps no such file, or none for this
    /// process.
    Nothing,
    /// The conversation it says it is in now.
    Conversation(String),
    /// It says something that cannot be trusted, and why: then nothing
    /// else (its argv) is taken for its conversation either.
    Unclear(String),
}

/// What the harness should do when it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Launch {
    /// A new conversation with a pre-assigned id, optionally with a first prompt.
    Fresh {
        session_id: String,
        prompt: Option<String>,
    },
    /// Continue the recorded conversation.
    Resume { session_id: String },
}

/// Everything about one kind of harness that the-loop depends on. A record's
/// `harness` field picks the implementation ([`by_name`]); the config keys
/// its settings by the same name (`routing.harnessArgs.<name>`,
/// `routing.harnessBinary.<name>`).
pub trait Harness: std::fmt::Debug + Sync {
    /// The name records and config use.
    fn name(&self) -> &'static str;
    /// The binary run when the config names none.
    fn default_binary(&self) -> &'static str;
    /// The variables besides `HOME` that say where the harness keeps its
    /// own files (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`), read as the session
    /// will see them ([`user_files::HarnessHome`]).
    fn home_variables(&self) -> &'static [&'static str];
    /// Whether a fresh launch can be told the id of its new conversation.
    /// Claude Code takes `--session-id`; Codex makes its own id when the
    /// first prompt is submitted, so the record learns it afterwards
    /// ([`Harness::conversations_held`], the hooks' `SessionStart`) and names
    /// none until then. A harness that cannot is never started on a fresh
    /// conversation in place of one that would not resume.
    fn names_fresh_conversations(&self) -> bool {
        true
    }
    /// The conversations the running process `pid` holds open, read from
    /// what the harness itself opened (`/proc/<pid>/fd`); empty when it
    /// holds none or the harness keeps no file open. A resume is confirmed
    /// by this, or by the hooks' `SessionStart` with source `resume`.
    fn conversations_held(&self, _pid: i32) -> Vec<String> {
        Vec::new()
    }
    /// What the running process `pid` (started at `start`, `/proc` stat
    /// field 22) says itself of the conversation it is in, in a file the
    /// harness keeps for each of its processes; `env` reads the process's
    /// own environment. A harness that keeps none says
    /// [`SaidConversation::Nothing`].
    fn said_conversation(
        &self,
        _env: &dyn Fn(&str) -> Option<PathBuf>,
        _pid: i32,
        _start: Option<u64>,
    ) -> SaidConversation {
        SaidConversation::Nothing
    }
    /// Whether the harness takes its API key from the-loop's key helper
    /// (`apiKeyHelper` in its settings layer) when the env file delivers
    /// [`hooks::HELPER_DELIVERED`].
    fn uses_key_helper(&self) -> bool {
        false
    }
    /// The argv after the binary for a launch.
    fn argv(&self, launch: &Launch, args: &LaunchArgs) -> Vec<OsString>;
    /// Where a conversation's transcript lives. `env` reads a variable as
    /// the session itself holds it (its home, the harness's own config
    /// directory): which variables matter is the harness's business.
    fn transcript_path(
        &self,
        env: &dyn Fn(&str) -> Option<PathBuf>,
        cwd: &Path,
        session_id: &str,
    ) -> PathBuf;
    /// Writes the-loop's hook settings under `state_root` and returns the
    /// words that add them, placed right after the binary.
    fn hook_settings(
        &self,
        state_root: &Path,
        the_loop: &Path,
        key_helper: Option<&[OsString]>,
    ) -> std::io::Result<Vec<OsString>>;
    /// The known screen, if any, that stops the harness before its prompt.
    fn blocking_screen(&self, screen: &str) -> Option<screens::BlockingScreen>;
    /// What the screen says about a turn: running, asking a person, between
    /// turns, or nothing known (then the hooks' word stands).
    fn turn_screen(&self, _screen: &str) -> turn_screen::TurnScreen {
        turn_screen::TurnScreen::Unknown
    }
    /// How many of the child processes of the harness at `pid` are work a
    /// person started through it that outlives a turn: a tool's shell still
    /// running once the turn has ended is a background shell, which ending
    /// the harness would end. Its servers and hooks are not. A harness
    /// that cannot tell reads nothing and says 0.
    fn background_children(&self, _pid: i32) -> usize {
        0
    }
    /// Reads the-loop's launch back from a running harness's argv (as
    /// `/proc` shows it, interpreter or wrapper included); `None` when the
    /// argv shows no launch of the-loop's. Argument drift compares what
    /// this returns, never the raw argv.
    fn read_launch(&self, argv: &[String]) -> Option<ObservedLaunch>;
    /// Whether a process with this argv (as `/proc` shows it) is this
    /// harness itself, however it was started: by hand in an operator's
    /// shell, through an interpreter, or by the-loop's launcher after its
    /// exec. The launcher before its exec, a shell, an editor with a file
    /// of the harness's name, or a child the harness runs are not.
    fn recognises(&self, argv: &[String]) -> bool;
    /// The words [`Harness::argv`] puts after the conversation choice for
    /// `args`: what [`ObservedLaunch::tail`] holds for an unchanged launch.
    fn launch_tail(&self, args: &LaunchArgs) -> Vec<String>;
    /// Splits an observed tail back into arguments, model and effort, so a
    /// drift is shown field by field.
    fn read_args(&self, tail: &[String]) -> LaunchArgs;
    /// Prepares the harness's own files before every spawn and respawn in
    /// `cwd` with `args` (trust, onboarding, the-loop's plugin), so the
    /// session opens straight into work. Best-effort: a spawn never waits
    /// on it, so a failure is said through `events`, not returned.
    fn prepare(
        &self,
        config: &Config,
        home: &user_files::HarnessHome,
        cwd: &Path,
        args: &LaunchArgs,
        events: &EventLog,
    );
}

/// A launch as read back from a harness's argv ([`Harness::read_launch`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObservedLaunch {
    /// A new conversation rather than a resumed one.
    pub fresh: bool,
    /// The conversation it was launched on; `None` for a fresh launch of
    /// a harness that makes its own id ([`Harness::names_fresh_conversations`]).
    pub conversation: Option<String>,
    /// Every word after the conversation choice, less a first prompt.
    pub tail: Vec<String>,
}

/// Every harness the-loop can host. A record's `harness` and the config's
/// `routing.harnessArgs.<name>` / `routing.harnessBinary.<name>` are looked up
/// here by [`Harness::name`], so a new harness is one more entry.
pub static HARNESSES: &[&dyn Harness] = &[&CLAUDE_CODE, &CODEX];

/// `HOME` and every harness's own variables as a pane started now will
/// see them ([`user_files::HarnessHome::for_new_pane`]).
pub fn home_for_new_pane(
    tmux: &dyn crate::tmux::Run,
    passthrough: &[(String, String)],
) -> user_files::HarnessHome {
    let variables: Vec<&'static str> = HARNESSES
        .iter()
        .flat_map(|h| h.home_variables().iter().copied())
        .collect();
    user_files::HarnessHome::for_new_pane(tmux, passthrough, &variables)
}

/// [`home_for_new_pane`] for a new tmux server the-loop starts from its
/// own environment ([`user_files::HarnessHome::for_new_server`]).
pub fn home_for_new_server(passthrough: &[(String, String)]) -> user_files::HarnessHome {
    let variables: Vec<&'static str> = HARNESSES
        .iter()
        .flat_map(|h| h.home_variables().iter().copied())
        .collect();
    user_files::HarnessHome::for_new_server(passthrough, &variables)
}

/// The harness a process is, by its argv ([`Harness::recognises`]); `None`
/// for any other process.
pub fn recognise(argv: &[String]) -> Option<&'static dyn Harness> {
    HARNESSES
        .iter()
        .copied()
        .find(|harness| harness.recognises(argv))
}

/// The harness a record or the config names; `None` for one the-loop cannot
/// host ([`refusal`] says why).
pub fn by_name(name: &str) -> Option<&'static dyn Harness> {
    HARNESSES
        .iter()
        .copied()
        .find(|harness| harness.name() == name)
}

/// Why a spawn refuses `name`, for a name [`by_name`] does not know. Known
/// harnesses that cannot be hosted get their own reason, so the operator
/// learns it is the harness and not a typo.
pub fn refusal(name: &str) -> String {
    match name {
        "cursor-agent" => "cursor-agent cannot be hosted in tmux: it has no pre-assignable \
                           session id, so its conversation could never be resumed. Use claude."
            .into(),
        _ => {
            let names: Vec<&str> = HARNESSES.iter().map(|h| h.name()).collect();
            match names.as_slice() {
                [only] => format!("unknown harness; the only supported harness is {only}"),
                all => format!(
                    "unknown harness; the supported harnesses are {}",
                    all.join(", ")
                ),
            }
        }
    }
}

/// The hidden subcommand of the-loop that a pane runs: the launcher, which
/// execs the harness. Observing a pane recognises it by this word.
pub const LAUNCHER_SUBCOMMAND: &str = "exec";

pub fn new_session_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_record_name_picks_the_implementation() {
        let claude = by_name("claude").unwrap();
        assert_eq!(
            (claude.name(), claude.default_binary()),
            ("claude", "claude")
        );
        let launch = Launch::Resume {
            session_id: "abc".into(),
        };
        assert_eq!(
            claude.argv(&launch, &LaunchArgs::default()),
            harness_argv(&launch, &LaunchArgs::default())
        );
        assert_eq!(
            claude.blocking_screen("No conversation found with session ID: abc"),
            Some(screens::BlockingScreen::NoConversation)
        );
        assert!(by_name("cursor-agent").is_none());
        assert!(refusal("cursor-agent").contains("cannot be hosted in tmux"));
        assert!(by_name("other").is_none());
        assert_eq!(
            refusal("other"),
            "unknown harness; the supported harnesses are claude, codex"
        );
    }

    #[test]
    fn every_harness_has_its_own_name() {
        let mut names: Vec<&str> = HARNESSES.iter().map(|h| h.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), HARNESSES.len(), "{names:?}");
    }

    #[test]
    fn session_id_rule() {
        assert!(is_valid_session_id("3f2a6c1e-8f7b-4e0a-9d3c-1b2a3c4d5e6f"));
        assert!(is_valid_session_id("a"));
        assert!(!is_valid_session_id(""));
        assert!(!is_valid_session_id("--model"));
        assert!(!is_valid_session_id("-x"));
        assert!(!is_valid_session_id("a b"));
        assert!(!is_valid_session_id(&"a".repeat(129)));
        assert!(is_valid_session_id(&"a".repeat(128)));
    }
}
