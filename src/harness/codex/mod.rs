//! OpenAI's Codex CLI (npm `@openai/codex`, a native binary inside the
//! package), measured on 0.171.0 offline in tmux (`docs/harness.md` keeps
//! what was found):
//!
//! - a conversation's id is made by Codex when its first prompt is
//!   submitted ([`Harness::names_fresh_conversations`] is false), and the
//!   process holds its rollout file open from then on, which is how the-loop
//!   learns the id and confirms a resume ([`rollout`]);
//! - `codex resume <id>` in the conversation's own directory reopens it;
//! - hooks come as `-c` overrides that Codex must be told to trust
//!   ([`hooks`], [`seed`]).

pub mod hooks;
pub mod launch;
pub mod rollout;
pub mod screen;
pub mod seed;
pub mod seed_holds;

use super::user_files::HarnessHome;
use super::{screens, turn_screen, Harness, Launch, LaunchArgs, ObservedLaunch};
use crate::desired::config::Config;
use crate::events::{Event, EventLog};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

pub use launch::CODEX as NAME;

/// Where Codex keeps its files when set (otherwise `~/.codex`).
pub const HOME_VARIABLE: &str = "CODEX_HOME";

/// The Codex CLI.
#[derive(Debug)]
pub struct Codex;

pub static CODEX: Codex = Codex;

impl Harness for Codex {
    fn name(&self) -> &'static str {
        NAME
    }
    fn default_binary(&self) -> &'static str {
        NAME
    }
    fn home_variables(&self) -> &'static [&'static str] {
        &[HOME_VARIABLE]
    }
    fn names_fresh_conversations(&self) -> bool {
        false
    }
    fn conversations_held(&self, pid: i32) -> Vec<String> {
        rollout::held_by(pid)
    }
    fn said_conversation(
        &self,
        _env: &dyn Fn(&str) -> Option<PathBuf>,
        pid: i32,
        _start: Option<u64>,
    ) -> super::SaidConversation {
        rollout::said(&rollout::held_by(pid))
    }
    fn argv(&self, launch: &Launch, args: &LaunchArgs) -> Vec<OsString> {
        launch::argv(launch, args)
    }
    fn transcript_path(
        &self,
        env: &dyn Fn(&str) -> Option<PathBuf>,
        _cwd: &Path,
        session_id: &str,
    ) -> PathBuf {
        rollout::find(&rollout::codex_home(env), session_id)
    }
    fn hook_settings(
        &self,
        state_root: &Path,
        the_loop: &Path,
        // Codex has no key helper: its key comes from the environment
        // through the provider's `env_key`.
        _key_helper: Option<&[OsString]>,
    ) -> std::io::Result<Vec<OsString>> {
        Ok(hooks::words(
            the_loop,
            &crate::activity::store::dir(state_root),
        ))
    }
    fn blocking_screen(&self, screen: &str) -> Option<screens::BlockingScreen> {
        screen::blocking_screen(screen)
    }
    fn turn_screen(&self, screen: &str) -> turn_screen::TurnScreen {
        screen::turn_screen(screen)
    }
    fn read_launch(&self, argv: &[String]) -> Option<ObservedLaunch> {
        launch::read_launch(argv)
    }
    fn recognises(&self, argv: &[String]) -> bool {
        launch::recognises(argv)
    }
    fn launch_tail(&self, args: &LaunchArgs) -> Vec<String> {
        launch::tail(args)
    }
    fn read_args(&self, tail: &[String]) -> LaunchArgs {
        launch::read_args(tail)
    }
    fn prepare(
        &self,
        config: &Config,
        home: &HarnessHome,
        cwd: &Path,
        _args: &LaunchArgs,
        events: &EventLog,
    ) {
        before_spawn(config, home, cwd, events)
    }
}

/// Seeds `$CODEX_HOME/config.toml` ([`seed`]) under the same turn as
/// Claude Code's files. Best-effort, as every preparation.
fn before_spawn(config: &Config, home: &HarnessHome, cwd: &Path, events: &EventLog) {
    if !config.routing.harness_trust.enabled {
        return;
    }
    let codex_home = match (home.dir(HOME_VARIABLE), &home.home) {
        (Some(dir), _) => dir.to_owned(),
        (None, Some(home)) => home.join(".codex"),
        (None, None) => {
            let why = "neither CODEX_HOME nor HOME is set, so Codex's config cannot be found";
            return super::prepare::failed(events, "trust", None, why);
        }
    };
    let file = codex_home.join("config.toml");
    let activity = crate::activity::store::dir(&config.state_root);
    // The launcher names the same binary: panes run the running the-loop.
    let hooks = std::env::current_exe()
        .map(|the_loop| {
            hooks::EVENTS
                .iter()
                .map(|event| hooks::trust(*event, &hooks::command(&the_loop, &activity, *event)))
                .collect()
        })
        .unwrap_or_default();
    let project = project_root(cwd).to_string_lossy().into_owned();
    let wanted = seed::CodexSeed {
        projects: vec![project.clone()],
        hooks,
    };
    let seed = |existing: Option<&[u8]>| seed::seed_noted(existing, &wanted);
    let holds = |existing: Option<&[u8]>| {
        existing.is_some_and(|text| seed_holds::seed_holds(text, &wanted))
    };
    let format = crate::harness::ledger::Format::Toml;
    match super::prepare::noted_edit_unless(config, &file, format, holds, seed) {
        Ok(true) => events.emit(Event::WorkspaceTrusted {
            directories: Some(vec![project]),
            plugin: None,
            marketplace_repo: None,
            file,
            bypass_accepted: None,
        }),
        Ok(false) => {}
        Err(err) => super::prepare::failed(events, "trust", Some(&file), &err.to_string()),
    }
}

/// The directory Codex asks about: the nearest one at or above `cwd` with
/// a `.git` (its default project root marker), else `cwd` itself.
fn project_root(cwd: &Path) -> PathBuf {
    let real = std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_owned());
    real.ancestors()
        .find(|dir| dir.join(".git").exists())
        .unwrap_or(&real)
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_project_is_the_git_root() {
        let top = tempfile::tempdir().unwrap();
        let sub = top.path().join("a/b");
        std::fs::create_dir_all(&sub).unwrap();
        let real = std::fs::canonicalize(top.path()).unwrap();
        assert_eq!(project_root(&sub), real.join("a/b"));
        std::fs::create_dir(top.path().join(".git")).unwrap();
        assert_eq!(project_root(&sub), real);
    }

    #[test]
    fn codex_is_its_own_harness() {
        let codex = crate::harness::by_name("codex").unwrap();
        assert_eq!((codex.name(), codex.default_binary()), ("codex", "codex"));
        assert!(!codex.names_fresh_conversations());
        let words: Vec<String> = "codex resume abc".split(' ').map(String::from).collect();
        assert_eq!(
            crate::harness::recognise(&words).map(|h| h.name()),
            Some("codex")
        );
    }
}
