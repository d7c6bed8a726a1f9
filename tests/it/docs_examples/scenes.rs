//! The worlds the documented examples run in, and the setup steps a page
//! may ask for before a block (`<!-- docs-test: setup: … -->`).

use super::background::{self, Background};
use crate::support::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread::JoinHandle;

/// A world, and what its setups left running: the tmux clients attached
/// to it, the-loop commands in the background, timed steps.
pub struct Scene {
    pub w: World,
    clients: Vec<Child>,
    pub background: Vec<Background>,
    timers: Vec<JoinHandle<()>>,
    /// The other program a tool scene's blocks run (`docs/fleet.md`).
    pub tools: Option<super::tools::Tools>,
    /// Files as a `snapshot` setup found them (`None`: absent).
    snapshots: BTreeMap<PathBuf, Option<Vec<u8>>>,
}

impl Drop for Scene {
    fn drop(&mut self) {
        for timer in self.timers.drain(..) {
            let _ = timer.join();
        }
        self.background.clear();
        self.tools.take();
        for client in &mut self.clients {
            let _ = client.kill();
            let _ = client.wait();
        }
    }
}

/// The tokens of `cargo run --example rotation`, so the fingerprints the
/// pages show are the example's. Fabricated; never printed, only hashed.
pub const RETIRED: &str = "xoxb-demo-bot-b-retired";
pub const ROTATED: &str = "xoxb-demo-bot-a-rotated";

/// A fresh world for a scene:
/// - `rotation`: the reporter's case. A tmux server started holding
///   `SLACK_BOT_TOKEN` (about to be retired), three work items
///   (`github:octo/repo#15` to `#17`) whose harnesses an older spawner
///   started straight from that server, then the token rotated in the env
///   file. Their checkouts are `~/src/github-octo-repo-15` and so on.
/// - `empty`: a config and an env file (the rotated token), a tmux server
///   with no managed session.
/// - `hooks`: `EXTRA_TOKEN` and `ANTHROPIC_API_KEY` delivered (the key by
///   Claude Code's `apiKeyHelper`); three sessions started by `sessions
///   start`, so their harnesses run the-loop's hooks, then both values
///   rotated in the env file.
///
/// - `fleet`, `prometheus`: the worlds of another program
///   ([`super::tools::build`]); `w` is then an empty world.
///
/// Every scene's config declares `routing.workspace.root` (`~/src`),
/// `routing.authorizedUsers` (`ana`) and `routing.models`, and turns
/// `routing.announce` off (no GitHub here).
pub fn build(name: &str) -> Result<Scene, String> {
    let mut w = World::new();
    if let Some(tools) = super::tools::build(name) {
        return Ok(Scene {
            w,
            clients: Vec::new(),
            background: Vec::new(),
            timers: Vec::new(),
            tools: Some(tools),
            snapshots: BTreeMap::new(),
        });
    }
    w.work = w.home.join("src");
    std::fs::create_dir_all(&w.work).unwrap();
    let deliver = if name == "hooks" {
        "  deliver: [EXTRA_TOKEN, ANTHROPIC_API_KEY]\n"
    } else {
        ""
    };
    w.write_config_with_routing(&format!(
        "  workspace:\n    root: {}\n  authorizedUsers: [ana]\n  announce: false\n  models:\n    opus: [high, max]\n    sonnet: [low, high]\n    haiku: []\n",
        w.work.display()
    ));
    // A 2 s probe, as the default is: a resumed harness reports its
    // conversation within it even on a loaded machine, so the pages can
    // show `conversation confirmed`. A 20 s kill grace for the same reason:
    // the pages show a harness that ended on SIGTERM (`terminated`), and
    // under a load of 13 on two cores one once took longer than 3 s.
    let config = std::fs::read_to_string(&w.config_path)
        .unwrap()
        .replace("  file: .env\n", &format!("  file: .env\n{deliver}"))
        .replace("resumeProbeSeconds: 0.5", "resumeProbeSeconds: 2")
        .replace("harnessKillGraceSeconds: 3", "harnessKillGraceSeconds: 20");
    w.write_raw_config(&config);
    match name {
        "rotation" => {
            w.write_env(&format!("SLACK_BOT_TOKEN={RETIRED}\n"));
            w.start_server_holding(&[("SLACK_BOT_TOKEN", RETIRED)]);
            for n in [15, 16, 17] {
                let slug = format!("github-octo-repo-{n}");
                // The example's conversation ids: fixed, and not random
                // (version 0), so no redaction hides them.
                let id = format!("{n}c0de00-0000-0000-0000-0000000000{n}");
                w.legacy_session_as(&format!("github:octo/repo#{n}"), &slug, &id);
                recent(&w, &slug);
            }
            w.write_env(&format!("SLACK_BOT_TOKEN={ROTATED}\n"));
        }
        "empty" => {
            w.write_env(&format!("SLACK_BOT_TOKEN={ROTATED}\n"));
            w.start_server_holding(&[]);
        }
        "hooks" => {
            w.write_env("EXTRA_TOKEN=extra-token-before\nANTHROPIC_API_KEY=sk-ant-demo-before\n");
            w.start_server_holding(&[]);
            for n in [15, 16, 17] {
                let slug = format!("github-octo-repo-{n}");
                w.started_session(&format!("github:octo/repo#{n}"), &slug);
                wait_ready(&w, &format!("loop-{slug}"));
            }
            w.write_env("EXTRA_TOKEN=extra-token-after\nANTHROPIC_API_KEY=sk-ant-demo-after\n");
        }
        other => return Err(format!("no scene `{other}`")),
    }
    Ok(Scene {
        w,
        clients: Vec::new(),
        background: Vec::new(),
        timers: Vec::new(),
        tools: None,
        snapshots: BTreeMap::new(),
    })
}

/// A record created two and a half hours ago, so its age reads `2h`
/// whenever the example runs.
fn recent(w: &World, slug: &str) {
    let created = the_loop::clock::format_utc(the_loop::clock::now_secs().unwrap() - 9_000);
    w.edit_record(slug, |r| r["createdAt"] = created.into());
}

/// One setup step:
/// - `the-loop ARGS`: run, and it must exit 0;
/// - `tmux ARGS`: run on the world's tmux server;
/// - `env NAME=VALUE …`: the env file now holds exactly these lines;
/// - `ready TMUX-SESSION`: wait until the harness in that session has
///   drawn its screen and said it is ready;
/// - `attach TMUX-SESSION`: a control-mode client attached to it, kept
///   until the scene ends;
/// - `activity REF STATE`: wait until `plan --json` reads that activity
///   for the session (a ref, a standing session's name, or a tmux name);
/// - `backdate`: every record created 2.5 hours ago, its last event an
///   hour and a quarter ago, so `sessions list` reads `2h` and `1h ago`
///   however long the run took;
/// - `record SLUG FIELD JSON`: a record's field set by hand;
/// - `mkdir PATH`: a directory (under HOME with `~`).
/// - `file PATH LINE …`: a file (under HOME with `~`) holding exactly
///   these lines, as a candidate env file an example checks.
/// - `background the-loop ARGS`: started, and left running until the scene
///   ends (an apply that holds the lock, a watch that serves metrics);
/// - `locked`: wait until some process holds the apply lock;
/// - `logged TEXT`: wait until the last background command printed TEXT;
/// - `later SECONDS tmux ARGS` / `later SECONDS env LINE…`: done that long
///   after the setups, while the block's command runs (`/idle` typed into
///   a busy session, a rotation a running watch sees).
/// - `snapshot PATH…` / `unchanged PATH…`: the files' bytes (or their
///   absence) kept, and later found byte for byte the same, or the block
///   fails (what `docs/uninstall.md` promises).
pub fn setup(scene: &mut Scene, action: &str) -> Result<(), String> {
    let w = &scene.w;
    let words = super::shell::words(action, &w.home)?;
    let (first, rest) = words.split_first().ok_or("an empty setup")?;
    let rest: Vec<&str> = rest.iter().map(String::as_str).collect();
    match first.as_str() {
        "the-loop" => {
            let out = w
                .the_loop_bare()
                .args(&rest)
                .env("THE_LOOP_CLI_CONFIG", &w.config_path)
                .current_dir(&w.home)
                .output()
                .unwrap();
            if !out.status.success() {
                return Err(format!("setup `{action}`: {}", explain(&out)));
            }
        }
        "tmux" => {
            w.tmux_ok(&rest);
        }
        "env" => w.write_env(&rest.iter().map(|l| format!("{l}\n")).collect::<String>()),
        "ready" => {
            let session = rest.first().ok_or("ready: which tmux session?")?;
            wait_ready(w, session);
        }
        "attach" => {
            let session = rest.first().ok_or("attach: which tmux session?")?;
            let before = w.clients().len();
            let mut cmd = Command::new("tmux");
            w.configure_tmux(&mut cmd);
            let child = cmd
                .args(["-C", "attach", "-t", session])
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .map_err(|e| e.to_string())?;
            scene.clients.push(child);
            wait_for(|| w.clients().len() > before, "the client attached");
        }
        "activity" => {
            let [reference, state] = rest[..] else {
                return Err("activity REF|STANDING|TMUX-SESSION STATE".into());
            };
            wait_for(
                || {
                    let plan = json(&w.the_loop(&["plan", "--json"]));
                    plan["sessions"].as_array().unwrap().iter().any(|s| {
                        [&s["ref"], &s["standing"], &s["tmux_target"]].contains(&&reference.into())
                            && s["activity"] == state
                    })
                },
                &format!("{reference} is {state}"),
            );
        }
        "backdate" => backdate(&w.state.join("local")),
        "record" => {
            let [slug, field, value] = rest[..] else {
                return Err("record SLUG FIELD JSON".into());
            };
            let value: serde_json::Value =
                serde_json::from_str(value).map_err(|e| e.to_string())?;
            w.edit_record(slug, |r| r[field] = value);
        }
        "mkdir" => {
            for dir in &rest {
                std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
            }
        }
        "file" => {
            let (path, lines) = rest.split_first().ok_or("file PATH LINE…")?;
            let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
            std::fs::write(path, text).map_err(|e| e.to_string())?;
        }
        "background" => {
            let (program, args) = rest.split_first().ok_or("background the-loop ARGS")?;
            if *program != "the-loop" {
                return Err("background runs the-loop only".into());
            }
            let n = scene.background.len();
            scene.background.push(background::start(w, args, n)?);
        }
        "locked" => background::wait_locked(w),
        "logged" => {
            let text = rest.join(" ");
            let last = scene
                .background
                .last()
                .ok_or("logged: nothing in the background")?;
            wait_for(
                || last.output().contains(&text),
                &format!("`{text}` logged"),
            );
        }
        "later" => {
            let (seconds, action) = rest.split_first().ok_or("later SECONDS ACTION…")?;
            scene.timers.push(background::later(w, seconds, action)?);
        }
        "snapshot" => {
            for path in rest {
                scene
                    .snapshots
                    .insert(path.into(), std::fs::read(path).ok());
            }
        }
        "unchanged" => {
            for path in rest {
                let kept = scene.snapshots.get(Path::new(path));
                let kept = kept.ok_or_else(|| format!("unchanged: no snapshot of {path}"))?;
                if std::fs::read(path).ok() != *kept {
                    return Err(format!(
                        "{path} is not byte for byte as the snapshot found it"
                    ));
                }
            }
        }
        other => return Err(format!("no setup action `{other}`")),
    }
    Ok(())
}

fn backdate(dir: &Path) {
    let now = the_loop::clock::now_secs().unwrap();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            backdate(&path);
        } else if path.extension().is_some_and(|e| e == "json") {
            let mut record = read_json(&path);
            record["createdAt"] = the_loop::clock::format_utc(now - 9_000).into();
            record["lastEventAt"] = the_loop::clock::format_utc(now - 4_500).into();
            std::fs::write(&path, serde_json::to_string_pretty(&record).unwrap()).unwrap();
        }
    }
}

/// Waits until the session's harness has written `ready` to its transcript.
fn wait_ready(w: &World, session: &str) {
    let projects = w.home.join(".claude/projects");
    wait_for(
        || {
            let Some(pane) = w.pane(session) else {
                return false;
            };
            let Ok(cwd) = std::fs::read_link(format!("/proc/{}/cwd", pane.pid)) else {
                return false;
            };
            transcripts_of(&projects, &cwd).any(|t| t.contains("\"type\":\"ready\""))
        },
        &format!("{session} is ready"),
    )
}

fn transcripts_of(projects: &Path, cwd: &Path) -> impl Iterator<Item = String> {
    let mangled: String = cwd
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    std::fs::read_dir(projects.join(mangled))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| std::fs::read_to_string(e.path()).ok())
}
