//! `apply --replace-server`: the tmux server keeps, in its own process
//! environment and its global environment, whatever the client that
//! started it held, for its whole life; no respawn can clear that. This
//! moves the running managed fleet to a new server on the same socket:
//!
//! 1. refuse, naming them, while the server holds sessions the-loop does
//!    not manage (ending the server ends them), unless each is named to be
//!    ended (`--end-session`);
//! 2. wait until every managed session is at a safe point (the drain), so
//!    no turn, dialog, background shell or draft is cut;
//! 3. note the sessions in a journal (`<state root>/replace-server.json`),
//!    end each harness gracefully, then end the server;
//! 4. bring every session back as `sessions start --all` does, on a new
//!    server started by the-loop's own launch (credentials and the env
//!    file's names withheld from it), each resumed and verified.
//!
//! A crash after step 3 is completed by the next `apply --replace-server`
//! or `sessions start --all`: the records still say what should run.

use crate::apply::lock::ApplyLock;
use crate::observed::Probe;
use crate::ops::sessions::start_all::{start_all, Revival, StartAllOptions, StartAllReport};
use crate::ops::Context;
use crate::plan::gather::{plan_now, Looks};
use crate::plan::safe_point::{safe_point, Drain};
use crate::plan::{SafePoint, SessionKind, SessionPlan, Targets};
use crate::runner::signal::{end_gracefully, ProcessHandle};
use serde::Serialize;
use std::path::PathBuf;
use std::time::{Duration, Instant};

pub struct ReplaceOptions {
    pub dry_run: bool,
    /// Sessions the-loop does not manage that the person agrees to end.
    pub end_sessions: Vec<String>,
    pub drain: Drain,
    pub parallelism: usize,
}

/// What `apply --replace-server` did (its `--json` document).
#[derive(Debug, Serialize)]
pub struct Replaced {
    pub format_version: String,
    pub dry_run: bool,
    pub tmux_server: Option<PathBuf>,
    /// The managed sessions that were running, ended and brought back.
    pub moved: Vec<String>,
    /// Sessions the-loop does not manage, ended with the server (named).
    pub ended: Vec<String>,
    /// The old server's pid, when one ran.
    pub old_server_pid: Option<i32>,
    /// How each session came back; `None` on a dry run.
    pub started: Option<StartAllReport>,
}

impl Replaced {
    pub fn succeeded(&self) -> bool {
        self.started.as_ref().is_none_or(StartAllReport::succeeded)
    }
}

/// Where a replacement in progress is noted.
fn journal_path(ctx: &Context) -> PathBuf {
    crate::registry::server::replacement_journal(&ctx.config.state_root)
}

pub fn replace_server(
    ctx: &Context,
    options: &ReplaceOptions,
    progress: &(dyn Fn(&str) + Sync),
    started: &(dyn Fn(&Revival) + Sync),
) -> miette::Result<Replaced> {
    let _lock = ApplyLock::acquire(&ctx.config.state_root, "apply --replace-server")
        .map_err(miette::Report::new)?;
    let policy = crate::desired::load_policy(&ctx.config, false)?;
    let (plan, observed) = plan_now(
        &policy,
        &ctx.registry,
        &ctx.tmux,
        &Targets::all(),
        Looks::Every,
    );
    if let Some(failed) = &plan.observation_failed {
        if !crate::plan::down::server_down(&observed) {
            miette::bail!(
                code = "the_loop::replace_server::blind",
                help =
                    "check that the tmux server answers (`tmux ls`) and retry; nothing was ended",
                "{failed}"
            );
        }
    }
    let old_server_pid = match &plan.residue {
        Some(residue) => residue.server_pid,
        None => None,
    };
    let others = foreign_sessions(&observed);
    let unnamed: Vec<&String> = others
        .iter()
        .filter(|name| !options.end_sessions.contains(name))
        .collect();
    if !unnamed.is_empty() {
        let names: Vec<&str> = unnamed.iter().map(|n| n.as_str()).collect();
        miette::bail!(
            code = "the_loop::replace_server::foreign_sessions",
            help = format!(
                "ending the server would end them; end them yourself, or name each to be ended with --end-session {}; nothing was ended",
                names.join(" --end-session ")
            ),
            "the tmux server holds {} session(s) the-loop does not manage: {}",
            names.len(),
            names.join(", ")
        );
    }
    same_home(ctx)?;
    let running: Vec<&SessionPlan> = running_managed(&plan.sessions);
    let mut replaced = Replaced {
        format_version: "1".into(),
        dry_run: options.dry_run,
        tmux_server: ctx.tmux.socket().map(PathBuf::from),
        moved: running.iter().map(|s| s.label().to_owned()).collect(),
        ended: others.clone(),
        old_server_pid,
        started: None,
    };
    if options.dry_run {
        return Ok(replaced);
    }
    let running = drain(ctx, &policy, options, progress)?;
    write_journal(ctx, &running)?;
    progress(&format!(
        "ending {} harness(es) and the tmux server",
        running.len()
    ));
    let grace = ctx.config.routing.tmux.harness_kill_grace;
    for (label, pid) in &running {
        // A handle first, then the check that the pid is still the pane's:
        // a reused pid is never signalled.
        match ProcessHandle::open(*pid) {
            Ok(handle) => {
                let _ = end_gracefully(&handle, grace);
            }
            Err(_) => tracing::debug!("{label}: its harness had already exited"),
        }
    }
    let _ = ctx.tmux.run(["kill-server"]);
    progress("starting a new tmux server and bringing every session back");
    let report = start_all(
        ctx,
        &StartAllOptions {
            dry_run: false,
            parallelism: options.parallelism,
        },
        started,
    )?;
    let _ = std::fs::remove_file(journal_path(ctx));
    replaced.moved = running.into_iter().map(|(label, _)| label).collect();
    replaced.started = Some(report);
    Ok(replaced)
}

/// Managed sessions whose harness runs: the ones to move.
fn running_managed(sessions: &[SessionPlan]) -> Vec<&SessionPlan> {
    sessions
        .iter()
        .filter(|s| s.kind != SessionKind::Unmanaged && s.probe == Probe::Live)
        .filter(|s| s.pane_pid.is_some() && s.record.is_some())
        .collect()
}

/// Every tmux session on the server that no live record claims.
fn foreign_sessions(observed: &crate::observed::Observation) -> Vec<String> {
    let crate::observed::FleetView::Answered(fleet) = &observed.fleet else {
        return Vec::new();
    };
    let managed: std::collections::BTreeSet<&str> = observed
        .sessions
        .iter()
        .filter(|s| s.record_live)
        .map(|s| s.tmux_target.as_str())
        .collect();
    let mut names: Vec<String> = fleet
        .session_names()
        .chain(fleet.outside_panes().iter().map(|p| p.session.as_str()))
        .filter(|name| !managed.contains(name))
        .map(str::to_owned)
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Waits until every running managed session is at a safe point (looked
/// at as a roll looks: hooks and screen), or the drain's time is up.
/// Returns each one's label and harness pid, from the last look.
fn drain(
    ctx: &Context,
    policy: &crate::desired::policy::Policy,
    options: &ReplaceOptions,
    progress: &(dyn Fn(&str) + Sync),
) -> miette::Result<Vec<(String, i32)>> {
    let deadline = crate::clock::deadline(options.drain.timeout);
    let mut said = String::new();
    loop {
        let (mut plan, _) = plan_now(
            policy,
            &ctx.registry,
            &ctx.tmux,
            &Targets::all(),
            Looks::Every,
        );
        let running: Vec<usize> = (0..plan.sessions.len())
            .filter(|i| running_managed(std::slice::from_ref(&plan.sessions[*i])).len() == 1)
            .collect();
        let chosen: Vec<&SessionPlan> = running.iter().map(|i| &plan.sessions[*i]).collect();
        let screens = crate::plan::screen::look(
            &|commands| crate::runner::batch::run_each(&ctx.tmux, &commands),
            &chosen,
        );
        for (i, screen) in running.iter().zip(screens) {
            plan.sessions[*i].screen = Some(screen);
        }
        let waiting: Vec<String> = running
            .iter()
            .map(|i| &plan.sessions[*i])
            .filter(|s| {
                !matches!(
                    safe_point(s, s.activity, &options.drain),
                    SafePoint::RollNow | SafePoint::LeaveEnded
                )
            })
            .map(|s| s.label().to_owned())
            .collect();
        if waiting.is_empty() {
            return Ok(running
                .iter()
                .map(|i| &plan.sessions[*i])
                .filter_map(|s| Some((s.label().to_owned(), s.pane_pid?)))
                .collect());
        }
        let now = format!(
            "waiting for {} session(s) to reach a safe point: {}",
            waiting.len(),
            waiting.join(", ")
        );
        if now != said {
            progress(&now);
            said = now;
        }
        if Instant::now() >= deadline {
            miette::bail!(
                code = "the_loop::replace_server::drain",
                help = "wait for them, or pass --drain-timeout with a longer time, or --now to cut their turns; nothing was ended",
                "{} session(s) were not at a safe point when the drain timed out: {}",
                waiting.len(),
                waiting.join(", ")
            );
        }
        std::thread::sleep(Duration::from_secs(1));
    }
}

fn write_journal(ctx: &Context, running: &[(String, i32)]) -> miette::Result<()> {
    let journal = serde_json::json!({
        "socket": ctx.tmux.socket(),
        "at": crate::clock::now_utc(),
        "sessions": running.iter().map(|(label, _)| label).collect::<Vec<_>>(),
    });
    let mut bytes = serde_json::to_vec_pretty(&journal).expect("journal serialises");
    bytes.push(b'\n');
    crate::fsutil::write_atomic(&journal_path(ctx), &bytes, crate::fsutil::PRIVATE_FILE).map_err(
        |e| {
            miette::miette!(
                code = "the_loop::replace_server::journal",
                help = "make the state root writable, with space free; nothing was ended",
                "cannot note the replacement in {}: {}",
                journal_path(ctx).display(),
                crate::fsutil::describe(&e)
            )
        },
    )
}

/// The new server is started from the-loop's own environment: a harness
/// there must find its files (conversations, trust, settings) where the
/// old server's panes found them, or no conversation would resume. Refused,
/// naming the variable, when `HOME`, `CLAUDE_CONFIG_DIR` or `CODEX_HOME`
/// differ (paths only, never a value of the env file).
fn same_home(ctx: &Context) -> miette::Result<()> {
    let passthrough = crate::lifecycle::spawn::passthrough(ctx);
    let old = crate::harness::home_for_new_pane(&ctx.tmux, &passthrough);
    let new = crate::harness::home_for_new_server(&passthrough);
    if old == new {
        return Ok(());
    }
    let mut differ: Vec<String> = Vec::new();
    if old.home != new.home {
        differ.push(describe("HOME", old.home.as_deref(), new.home.as_deref()));
    }
    let names: std::collections::BTreeSet<&&str> = old.dirs.keys().chain(new.dirs.keys()).collect();
    for name in names {
        let (was, will) = (old.dir(name), new.dir(name));
        if was != will {
            differ.push(describe(name, was, will));
        }
    }
    miette::bail!(
        code = "the_loop::replace_server::home",
        help = "run it from a shell whose variables match the server's (or pass them through with env.sessionPassthrough); nothing was ended",
        "a new server started from here would give its harnesses another home, so no conversation would be found: {}",
        differ.join("; ")
    )
}

fn describe(name: &str, was: Option<&std::path::Path>, will: Option<&std::path::Path>) -> String {
    let show =
        |p: Option<&std::path::Path>| p.map_or("unset".to_owned(), |p| p.display().to_string());
    format!("{name} is {} on the server, {} here", show(was), show(will))
}
