//! `the-loop apply`, and the terminal side of every roll a command runs
//! (`sessions restart` and `standing restart` too): arguments → options →
//! [`crate::ops::apply`] → the report's view.

use super::output::{print_json, stderr_style, stdout_style};
use super::plan::resolve_targets;
use crate::apply::fleet::DEFAULT_PARALLELISM;
use crate::apply::{Mode, SessionReport};
use crate::ops::apply::{apply, ApplyError, ApplyOptions, ApplySink, RollCommand, Source};
use crate::ops::Context;
use crate::plan::safe_point::Drain;
use crate::plan::{Plan, SessionPlan, Targets};
use crate::views::plan::{render_plan_for, Next};
use clap::Args;
use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct ApplyArgs {
    /// A plan saved with `plan --out FILE`, as Terraform takes it (the same
    /// as --plan). The file is the approval: it is applied without asking,
    /// and refused if anything changed since it was saved.
    #[arg(value_name = "PLANFILE", conflicts_with = "plan")]
    pub planfile: Option<PathBuf>,
    /// Apply a plan saved with `plan --out FILE`, without asking; refused if
    /// anything changed since.
    #[arg(long, value_name = "FILE")]
    pub plan: Option<PathBuf>,
    /// Only this session (a work-item ref or standing name). Repeatable.
    #[arg(long = "target", value_name = "REF", add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::session_refs))]
    pub targets: Vec<String>,
    /// Do not ask for confirmation (required when stdin is not a terminal,
    /// unless a saved plan is applied: that needs no confirmation).
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
    /// Needs --auto-approve or a saved plan. Schema:
    /// schemas/apply-stream.schema.json.
    #[arg(long)]
    pub json_stream: bool,
    /// Whether apply may ask for confirmation (Terraform's -input). With
    /// --input=false it never prompts, even on a terminal, and refuses
    /// unless --auto-approve or a saved plan is given. Without a terminal it
    /// never prompts either.
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
    #[command(flatten)]
    pub drain: DrainArgs,
    /// Move the running managed fleet to a new tmux server on the same
    /// socket, so no tmux layer holds a retired value: wait for every
    /// session's safe point, end the harnesses and the server, start a new
    /// server from the-loop's own launch, and bring every session back,
    /// resumed and verified (docs/recovery.md). Refused while the server
    /// holds sessions the-loop does not manage, unless each is named with
    /// --end-session. Needs --auto-approve or --dry-run.
    #[arg(long, conflicts_with_all = ["planfile", "plan", "targets", "json_stream", "scrub_tmux_env"])]
    pub replace_server: bool,
    /// With --replace-server: a tmux session the-loop does not manage that
    /// may be ended with the server. Repeatable.
    #[arg(long, value_name = "SESSION", requires = "replace_server")]
    pub end_session: Vec<String>,
}

/// Safe points, shared by `apply`, `sessions restart` and `standing restart`
/// (docs/contracts.md, "Safe points"; docs/safe-points.md).
#[derive(Debug, Clone, Copy, Args)]
pub struct DrainArgs {
    /// How long to wait (30s, 5m, 1h; at most 24h) for busy or waiting
    /// sessions to end their turn. Each is rolled the moment its turn ends;
    /// one still in a turn at the end is reported `deferred` (exit 1).
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = crate::cli::duration::lock_timeout)]
    pub drain_timeout: std::time::Duration,
    /// Roll busy and waiting sessions at once, interrupting their turn.
    #[arg(long)]
    pub now: bool,
    /// Also roll sessions a tmux client is attached to (otherwise deferred).
    #[arg(long)]
    pub include_attached: bool,
}

impl From<DrainArgs> for Drain {
    fn from(args: DrainArgs) -> Drain {
        Drain {
            timeout: args.drain_timeout,
            now: args.now,
            include_attached: args.include_attached,
        }
    }
}

/// What differs between `apply` and the restarts, on the command line.
pub struct Roll<'a> {
    pub command: RollCommand,
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
    /// `apply --scrub-tmux-env`.
    pub scrub_tmux_env: bool,
    /// `--lock-timeout`: how long to wait for another roll's lock.
    pub lock_timeout: std::time::Duration,
    /// `--drain-timeout`, `--now`, `--include-attached`.
    pub drain: Drain,
}

pub fn run(config: Option<&Path>, args: ApplyArgs) -> miette::Result<ExitCode> {
    let ctx = Context::load(config)?;
    if args.replace_server {
        let replace = super::replace_server::ReplaceArgs {
            auto_approve: args.auto_approve,
            dry_run: args.dry_run,
            json: args.json,
            end_sessions: args.end_session,
            drain: args.drain.into(),
            parallelism: args.parallelism.into(),
        };
        return super::replace_server::run(&ctx, replace);
    }
    let targets = resolve_targets(&ctx, &args.targets)?;
    let saved_plan = args.planfile.as_deref().or(args.plan.as_deref());
    roll(
        &ctx,
        Roll {
            command: RollCommand::Apply,
            mode: Mode::Apply,
            targets,
            saved_plan,
            dry_run: args.dry_run,
            json: args.json,
            json_stream: args.json_stream,
            input: args.input,
            parallelism: args.parallelism.into(),
            // Terraform's rule: the saved plan is what was approved. Its
            // staleness checks, under the lock, refuse it if the world moved.
            ask: !args.auto_approve && saved_plan.is_none(),
            scrub_tmux_env: args.scrub_tmux_env,
            lock_timeout: args.lock_timeout,
            drain: args.drain.into(),
        },
    )
}

/// Arguments → options → the roll engine → the report's view.
pub fn roll(ctx: &Context, roll: Roll) -> miette::Result<ExitCode> {
    let options = ApplyOptions {
        command: roll.command,
        mode: roll.mode,
        source: Source::Plan {
            targets: roll.targets.clone(),
            saved: roll.saved_plan,
        },
        dry_run: roll.dry_run,
        parallelism: roll.parallelism,
        scrub_tmux_env: roll.scrub_tmux_env,
        lock_timeout: roll.lock_timeout,
        drain: roll.drain,
    };
    let sink = Terminal {
        roll: &roll,
        progress: std::io::stderr().is_terminal() && !roll.dry_run,
    };
    let report = apply(ctx, &options, &sink)?;
    if roll.json_stream {
        crate::views::apply_stream::finished(&report);
    } else if roll.json {
        print_json(&report);
    } else {
        crate::outln!();
        crate::out!("{}", crate::views::apply::render(&report, stdout_style()));
    }
    Ok(if report.failed() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// What the operator sees while a roll runs: the plan, the prompt, and a
/// line per session (or the `--json-stream` lines).
struct Terminal<'a> {
    roll: &'a Roll<'a>,
    /// One line per respawned session on stderr, when it is a terminal.
    progress: bool,
}

impl ApplySink for Terminal<'_> {
    fn lock_waiting(&self, holder: &str, left: std::time::Duration) {
        crate::errln!(
            "{} waiting up to {}s for the apply lock, held by {holder}",
            stderr_style().dim("…"),
            // Rounded up: "up to 0s" would read as giving up.
            left.as_millis().div_ceil(1000)
        );
    }

    fn planned(&self, plan: &Plan, acts: bool) -> Result<(), ApplyError> {
        let roll = self.roll;
        if roll.json_stream {
            crate::views::apply_stream::planned(plan);
        } else if !roll.json {
            let next = match roll.mode {
                Mode::Apply => Next::Apply {
                    dry_run: roll.dry_run,
                },
                Mode::Restart => Next::Restart {
                    command: roll.command.as_str(),
                    dry_run: roll.dry_run,
                },
            };
            crate::out!("{}", render_plan_for(plan, next, stdout_style()));
        }
        if acts && roll.ask && !roll.dry_run {
            // A prompt would land in the middle of the JSON lines.
            confirm(roll.input && !roll.json_stream)?;
        }
        Ok(())
    }

    fn respawning(&self, session: &SessionPlan) {
        if self.roll.json_stream {
            crate::views::apply_stream::respawning(session);
        }
    }

    fn draining(&self, held: &[&SessionPlan], left: std::time::Duration) {
        if !self.progress {
            return;
        }
        let names: Vec<&str> = held.iter().map(|s| s.label()).collect();
        crate::errln!(
            "{} waiting for {} session(s) to end their turn ({}s left): {}",
            stderr_style().dim("…"),
            held.len(),
            left.as_millis().div_ceil(1000),
            names.join(", ")
        );
    }

    fn interrupting(&self, session: &SessionPlan) {
        // Said whatever the output: ending a running turn is never silent.
        if !self.roll.json && !self.roll.json_stream {
            crate::errln!(
                "{} --now: interrupting the running turn of {}",
                stderr_style().red("!"),
                session.label()
            );
        }
    }

    fn session(&self, r: &SessionReport) {
        if self.roll.json_stream {
            crate::views::apply_stream::session(r);
        } else if self.progress && r.respawned() {
            crate::errln!(
                "{} {}",
                stderr_style().dim("…"),
                format_args!("{}: {}", r.label(), r.verdict())
            );
        }
    }
}

/// Terraform's rule: only the word "yes" approves. `input` false is
/// Terraform's `-input=false`: never ask, and say which flag approves.
fn confirm(input: bool) -> Result<(), ApplyError> {
    if !input || !std::io::stdin().is_terminal() {
        return Err(ApplyError::NeedsApproval(if input {
            "this run is not interactive (stdin is not a terminal)"
        } else {
            "--input=false forbids asking"
        }));
    }
    crate::out!("\nRespawn these sessions? Each conversation is resumed in place. Only 'yes' will be accepted: ");
    let _ = std::io::stdout().flush();
    let mut answer = String::new();
    let _ = std::io::stdin().lock().read_line(&mut answer);
    if answer.trim() != "yes" {
        return Err(ApplyError::Cancelled);
    }
    Ok(())
}
