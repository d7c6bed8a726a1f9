//! The world a real CLI needs to run offline (`tests/it/real_claude*.rs`,
//! `tests/it/real_codex_turns.rs`): Claude Code's config dir past its
//! onboarding, and the tmux server holding it. Set up here once, so every
//! real-CLI test starts the CLI the same way and a change of what the
//! pinned CLI needs is made in one place.

use super::api::StandInApi;
use super::World;
use std::path::{Path, PathBuf};

impl World {
    /// `<root>/claude-config`, a Claude Code config dir that has done its
    /// onboarding. Offline, a fresh config dir makes the CLI exit at once
    /// ("Unable to connect"); with onboarding done it stays at its prompt.
    /// The-loop adds the trust keys itself before the spawn.
    pub fn onboarded_claude_config(&self) -> PathBuf {
        let dir = self.root().join("claude-config");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join(".claude.json"),
            r#"{"hasCompletedOnboarding": true}"#,
        )
        .unwrap();
        dir
    }

    /// Starts the tmux server a real CLI is spawned from: Claude Code's
    /// config dir is `claude_config`, the auto-updater is off (the pinned
    /// CLI is the one under test, and offline an update can only fail),
    /// Claude Code is pointed at the Messages API stand-in `api` when one
    /// is given, and the server holds `more` besides.
    pub fn start_real_cli_server(
        &self,
        claude_config: &Path,
        api: Option<&StandInApi>,
        more: &[(&str, &str)],
    ) {
        let base_url = api.map(|api| format!("http://127.0.0.1:{}", api.port));
        let mut vars = vec![
            ("CLAUDE_CONFIG_DIR", claude_config.to_str().unwrap()),
            ("DISABLE_AUTOUPDATER", "1"),
        ];
        if let Some(base_url) = &base_url {
            vars.extend([
                ("ANTHROPIC_BASE_URL", base_url.as_str()),
                ("ANTHROPIC_AUTH_TOKEN", "stand-in-token"),
            ]);
        }
        vars.extend_from_slice(more);
        self.start_server_holding(&vars);
    }
}

/// Where Claude Code keeps conversation `id` begun in `cwd`, under its
/// config dir `claude_config`.
pub fn claude_transcript(claude_config: &Path, cwd: &Path, id: &str) -> PathBuf {
    claude_config
        .join("projects")
        .join(the_loop::harness::project_dir_name(
            &cwd.canonicalize().unwrap(),
        ))
        .join(format!("{id}.jsonl"))
}

/// One session of the real Claude Code, started by `sessions start` with no
/// prompt in `work/repo`, on a server started for the real CLI (holding
/// `server_holds` besides), with `EXTRA_TOKEN` delivered as `token`.
pub struct RealSession {
    pub w: World,
    pub config_dir: PathBuf,
    pub cwd: PathBuf,
    pub name: String,
    pub id: String,
}

impl RealSession {
    pub fn start(claude: &Path, token: &str, server_holds: &[(&str, &str)]) -> RealSession {
        let w = World::new();
        let config_dir = w.onboarded_claude_config();
        w.start_real_cli_server(&config_dir, None, server_holds);
        w.configure_harness(claude, token);
        let cwd = w.work.join("repo");
        std::fs::create_dir_all(&cwd).unwrap();
        let started = w.start_session("github:octo/repo#1", &cwd);
        let name = started["tmux_target"].as_str().unwrap().to_owned();
        let id = started["harness_session_id"].as_str().unwrap().to_owned();
        RealSession {
            w,
            config_dir,
            cwd,
            name,
            id,
        }
    }
}
