//! `the-loop apply` (and the engine behind `sessions restart`).

use super::output::{print_json, stderr_style, stdout_style};
use super::plan::resolve_targets;
use crate::apply::fleet::DEFAULT_PARALLELISM;
use crate::apply::lock::ApplyLock;
use crate::apply::roll::Roller;
use crate::apply::scrub::scrub;
use crate::apply::{execute, interrupt, ApplyOptions, Mode, SessionReport};
use crate::ops::Context;
use crate::plan::gather::plan_now;
use crate::plan::render::{render_plan_for, Next};
use crate::plan::saved::{self, SavedPlanError};
use crate::plan::Targets;
use clap::Args;
use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct ApplyArgs {
    /// A plan saved with `plan --out FILE`, as Terraform takes it (the same as --plan).
    #[arg(value_name = "PLANFILE", conflicts_with = "plan")]
    pub planfile: Option<PathBuf>,
    /// Apply a plan saved with `plan --out FILE`; refused if anything changed since.
    #[arg(long, value_name = "FILE")]
    pub plan: Option<PathBuf>,
    /// Only this session (a work-item ref or standing name). Repeatable.
    #[arg(long = "target", value_name = "REF")]
    pub targets: Vec<String>,
    /// Do not ask for confirmation (required when stdin is not a terminal).
    #[arg(long)]
    pub auto_approve: bool,
    /// Report what would be respawned, and why, without touching anything.
    #[arg(long)]
    pub dry_run: bool,
    /// Print the report as JSON.
    #[arg(long, conflicts_with = "json_stream")]
    pub json: bool,
    /// Print the roll as JSON lines, one event per line as it happens
    /// (planned, respawning, verified, failed, skipped, left_alone, finished).
    /// Needs --auto-approve. Schema: schemas/apply-stream.schema.json.
    #[arg(long)]
    pub json_stream: bool,
    /// Whether apply may ask for confirmation (Terraform's -input). With
    /// --input=false it never prompts, even on a terminal, and refuses
    /// unless --auto-approve is given. Without a terminal it never prompts either.
    #[arg(long, value_name = "BOOL", default_value_t = true, action = clap::ArgAction::Set)]
    pub input: bool,
    /// How many sessions may be in flight at once after the canary.
    ///
    /// A session is in flight from the end of its harness until its new
    /// process is verified; the probe waits of sessions in flight overlap.
    /// The roll stops at the first failed verification: no new respawn
    /// starts, those in flight finish, the rest are "not attempted".
    /// From 1 to 65535.
    #[arg(long, default_value_t = DEFAULT_PARALLELISM, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub parallelism: u16,
    /// Also unset withheld names from tmux's global environment and from
    /// managed sessions' environments (`set-environment -u`, names only), so
    /// panes created later do not inherit them. The tmux server's own process
    /// environment and argv cannot be changed in place; `plan` lists them.
    #[arg(long)]
    pub scrub_tmux_env: bool,
    /// Wait up to this long (30s, 5m, 1h; at most 24h) for a running apply
    /// or restart to release the apply lock, instead of refusing at once.
    #[arg(long, value_name = "DURATION", default_value = "0s", value_parser = crate::cli::duration::lock_timeout)]
    pub lock_timeout: std::time::Duration,
}

/// What differs between `apply` and `sessions restart`.
pub struct Roll<'a> {
    pub mode: Mode,
    pub targets: Targets,
    pub saved_plan: Option<&'a Path>,
    pub dry_run: bool,
    pub json: bool,
    /// `--json-stream`: JSON lines as the roll happens, instead of a report.
    pub json_stream: bool,
    /// False under `--input=false`: never prompt.
    pub input: bool,
    pub parallelism: usize,
    /// `apply` asks; `sessions restart` takes its explicit target as approval.
    pub ask: bool,
    pub command: &'static str,
    /// `apply --scrub-tmux-env`.
    pub scrub_tmux_env: bool,
    /// `--lock-timeout`: how long to wait for another roll's lock.
    pub lock_timeout: std::time::Duration,
}

pub fn run(config: Option<&Path>, args: ApplyArgs) -> miette::Result<ExitCode> {
    let ctx = Context::load(config)?;
    let targets = resolve_targets(&ctx, &args.targets)?;
    roll(
        &ctx,
        Roll {
            mode: Mode::Apply,
            targets,
            saved_plan: args.planfile.as_deref().or(args.plan.as_deref()),
            dry_run: args.dry_run,
            json: args.json,
            json_stream: args.json_stream,
            input: args.input,
            parallelism: args.parallelism.into(),
            ask: !args.auto_approve,
            command: "apply",
            scrub_tmux_env: args.scrub_tmux_env,
            lock_timeout: args.lock_timeout,
        },
    )
}

pub fn roll(ctx: &Context, roll: Roll) -> miette::Result<ExitCode> {
    // The lock comes before the plan, as Terraform's state lock comes before
    // its refresh: a roll that waited for another must plan the world that
    // roll left behind, not the one it found when it started waiting.
    let _lock = if roll.dry_run {
        None
    } else {
        let waiting = |holder: &str, left: std::time::Duration| {
            crate::errln!(
                "{} waiting up to {}s for the apply lock, held by {holder}",
                stderr_style().dim("…"),
                // Rounded up: "up to 0s" would read as giving up.
                left.as_millis().div_ceil(1000)
            );
        };
        Some(ApplyLock::acquire_waiting(
            &ctx.config.state_root,
            roll.command,
            roll.lock_timeout,
            &waiting,
        )?)
    };
    // Re-read the env file now: the roll is against the file as it is.
    let policy = crate::desired::load_policy(&ctx.config, true)?;
    let saved = match roll.saved_plan {
        Some(path) => Some((path, saved::read(path)?)),
        None => None,
    };
    // A saved plan is applied as saved: to its own sessions, or to the
    // --target subset of them, never to sessions it did not plan for.
    let targets = match &saved {
        Some((path, saved)) => saved::targets_within(path, saved, &roll.targets)?,
        None => roll.targets.clone(),
    };
    let (plan, observed) = plan_now(&policy, &ctx.registry, &ctx.tmux, &targets);
    if let Some((path, saved)) = &saved {
        let changes = saved::staleness(&saved.restricted_to(&targets), &plan);
        if !changes.is_empty() {
            return Err(SavedPlanError::Stale {
                path: path.to_path_buf(),
                changes,
            }
            .into());
        }
    }
    if roll.json_stream {
        crate::apply::stream::planned(&plan);
    } else if !roll.json {
        let next = match roll.mode {
            Mode::Apply => Next::Apply {
                dry_run: roll.dry_run,
            },
            Mode::Restart => Next::Restart {
                command: roll.command,
                dry_run: roll.dry_run,
            },
        };
        crate::out!("{}", render_plan_for(&plan, next, stdout_style()));
    }
    let will_scrub = roll.scrub_tmux_env
        && plan
            .residue
            .as_ref()
            .is_some_and(|r| r.scrubbable().next().is_some());
    let will_act = will_scrub
        || plan.sessions.iter().any(|s| match roll.mode {
            Mode::Apply => s.action.acts(),
            Mode::Restart => s.action != crate::plan::Action::Skip,
        });
    if will_act && roll.ask && !roll.dry_run {
        // A prompt would land in the middle of the JSON lines.
        confirm(roll.input && !roll.json_stream)?;
    }
    if !roll.dry_run {
        interrupt::install();
        ctx.events.emit(
            "apply.started",
            serde_json::json!({"command": roll.command, "sessions": plan.summary.respawn}),
        );
    }
    let roller = Roller {
        config: &ctx.config,
        policy: &policy,
        tmux: &ctx.tmux,
        events: &ctx.events,
        respawning: roll
            .json_stream
            .then_some(&crate::apply::stream::respawning as &(dyn Fn(&_) + Sync)),
    };
    let show_progress = std::io::stderr().is_terminal() && !roll.dry_run;
    let style = stderr_style();
    let progress = |r: &SessionReport| {
        if roll.json_stream {
            crate::apply::stream::session(r);
        } else if show_progress && r.outcome.respawned() {
            crate::errln!(
                "{} {}",
                style.dim("…"),
                format_args!("{}: {}", r.label(), r.verdict())
            );
        }
    };
    let options = ApplyOptions {
        mode: roll.mode,
        parallelism: roll.parallelism,
        dry_run: roll.dry_run,
    };
    // Before the roll, so nothing tmux starts meanwhile inherits the names.
    let scrubbed = roll.scrub_tmux_env.then(|| {
        scrub(
            &ctx.tmux,
            &policy,
            plan.residue.as_ref(),
            &ctx.events,
            roll.dry_run,
        )
    });
    let mut report = execute(&roller, &ctx.registry, &plan, &observed, options, &progress);
    report.tmux_env_scrub = scrubbed;
    if !roll.dry_run {
        if let crate::observed::FleetView::Answered(fleet) = &observed.fleet {
            // The panes as listed before the roll plus each respawn's new
            // pid: no further tmux call, and the replaced harness is gone.
            let panes = fleet
                .pane_pids()
                .chain(report.sessions.iter().filter_map(|s| s.new_pid))
                .collect();
            report.detached_residue = crate::plan::gather::detached_now(&policy, &panes);
        }
    }
    if !roll.dry_run {
        ctx.events.emit("apply.finished", serde_json::json!({"command": roll.command, "failed": report.failed(), "interrupted": report.interrupted}));
    }
    if roll.json_stream {
        crate::apply::stream::finished(&report);
    } else if roll.json {
        print_json(&report);
    } else {
        crate::outln!();
        crate::out!("{}", report.render(stdout_style()));
    }
    Ok(if report.failed() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// Terraform's rule: only the word "yes" approves. `input` false is
/// Terraform's `-input=false`: never ask, and say which flag approves.
fn confirm(input: bool) -> miette::Result<()> {
    if !input || !std::io::stdin().is_terminal() {
        miette::bail!(
            code = "the_loop::apply::needs_approval",
            help =
                "review `the-loop plan`, then add --auto-approve: `the-loop apply --auto-approve`",
            "refusing to respawn sessions without confirmation: {}",
            if input {
                "this run is not interactive (stdin is not a terminal)"
            } else {
                "--input=false forbids asking"
            }
        );
    }
    crate::out!("\nRespawn these sessions? Each conversation is resumed in place. Only 'yes' will be accepted: ");
    let _ = std::io::stdout().flush();
    let mut answer = String::new();
    let _ = std::io::stdin().lock().read_line(&mut answer);
    if answer.trim() != "yes" {
        miette::bail!(
            code = "the_loop::apply::cancelled",
            "apply cancelled; nothing was changed"
        );
    }
    Ok(())
}
