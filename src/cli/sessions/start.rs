//! `the-loop sessions start`

use crate::ops::sessions::start::{start, StartOptions};
use crate::ops::sessions::start_all::{Revival, StartAllOptions};
use crate::ops::spawn::FirstLaunch;
use crate::ops::Context;
use crate::views::{sessions, Format};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// How a first spawn launches the harness (shared by `sessions start` and
/// `standing create`).
#[derive(Debug, Args)]
pub struct LaunchOptions {
    /// Directory the harness runs in.
    #[arg(long, value_name = "DIR")]
    pub cwd: PathBuf,
    /// First prompt for the new conversation.
    #[arg(long, value_name = "TEXT")]
    pub prompt: Option<String>,
    /// Model to launch with (`--model`).
    #[arg(long)]
    pub model: Option<String>,
    /// Effort level to launch with (`--effort`).
    #[arg(long)]
    pub effort: Option<String>,
}

impl From<LaunchOptions> for FirstLaunch {
    fn from(o: LaunchOptions) -> FirstLaunch {
        FirstLaunch {
            cwd: o.cwd,
            prompt: o.prompt,
            model: o.model,
            effort: o.effort,
        }
    }
}

#[derive(Debug, Args)]
pub struct StartArgs {
    /// Work-item ref, e.g. github:octo/repo#15. Not with --all.
    #[arg(
        value_name = "REF",
        required_unless_present = "all",
        conflicts_with = "all"
    )]
    reference: Option<String>,
    /// Directory the harness runs in.
    #[arg(
        long,
        value_name = "DIR",
        required_unless_present = "all",
        conflicts_with = "all"
    )]
    cwd: Option<PathBuf>,
    /// First prompt for the new conversation.
    #[arg(long, value_name = "TEXT", conflicts_with = "all")]
    prompt: Option<String>,
    /// Model to launch with (`--model`).
    #[arg(long, conflicts_with = "all")]
    model: Option<String>,
    /// Effort level to launch with (`--effort`).
    #[arg(long, conflicts_with = "all")]
    effort: Option<String>,
    /// Harness to host (defaults to routing.defaultHarness).
    #[arg(long, conflicts_with = "all")]
    harness: Option<String>,
    /// Begin a new conversation even though the record names one. Without
    /// it, a recorded conversation is resumed, and a start that cannot
    /// resume it refuses.
    #[arg(long, conflicts_with = "all")]
    fresh: bool,
    /// Bring back every active session whose tmux session is gone (after a
    /// reboot or a `tmux kill-server`): each in its recorded directory,
    /// with its recorded harness and launch arguments, resuming its
    /// conversation, then verified (the new process holds the env file's
    /// values and the conversation). Stopped, closed and paused sessions
    /// stay down; a conversation that cannot be resumed is left alone with
    /// its reason; one that never began starts on its own id.
    #[arg(long)]
    all: bool,
    /// With --all: list what would start, start nothing.
    #[arg(long, requires = "all")]
    dry_run: bool,
    /// With --all: how many sessions are launched at once (1 to 65535);
    /// their probe waits overlap whatever this is.
    #[arg(long, requires = "all", default_value_t = crate::apply::fleet::DEFAULT_PARALLELISM,
        value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    parallelism: u16,
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
    /// Where the session lives: a tmux pane (default), or one of Claude
    /// Code's background sessions (`claude --bg`, under a daemon that holds
    /// the env file's values; `routing.hosts` must name `claude-background`,
    /// docs/hosts.md).
    #[arg(long, value_enum, default_value = "tmux", conflicts_with_all = ["all", "model", "effort", "harness", "fresh"])]
    host: crate::host_kind::Host,
}

pub fn run(ctx: &Context, args: StartArgs) -> miette::Result<ExitCode> {
    if args.all {
        return start_all(ctx, &args);
    }
    if args.host != crate::host_kind::Host::Tmux {
        let (Some(reference), Some(cwd)) = (&args.reference, &args.cwd) else {
            unreachable!("clap requires REF and --cwd without --all");
        };
        let started =
            crate::ops::on_host::start(ctx, args.host, reference, cwd, args.prompt.as_deref())?;
        sessions::started_on_host(&started, Format::json_if(args.json));
        return Ok(ExitCode::SUCCESS);
    }
    let (Some(reference), Some(cwd)) = (args.reference, args.cwd) else {
        unreachable!("clap requires REF and --cwd without --all");
    };
    let options = StartOptions {
        reference,
        launch: FirstLaunch {
            cwd,
            prompt: args.prompt,
            model: args.model,
            effort: args.effort,
        },
        harness: args.harness,
        fresh: args.fresh,
    };
    let started = start(ctx, &options, &crate::cli::output::StderrNotes)?;
    sessions::started(&started, Format::json_if(args.json));
    Ok(ExitCode::SUCCESS)
}

/// `--all`: the report, and exit 1 unless every down session started and
/// verified (or nothing was down).
fn start_all(ctx: &Context, args: &StartArgs) -> miette::Result<ExitCode> {
    let options = StartAllOptions {
        dry_run: args.dry_run,
        parallelism: args.parallelism.into(),
    };
    // As apply does: progress on a terminal's stderr, the report on stdout.
    let terminal = std::io::IsTerminal::is_terminal(&std::io::stderr()) && !args.json;
    let progress = |revival: &Revival| {
        if terminal {
            crate::errln!("{}", sessions::revival_line(revival));
        }
    };
    let report = crate::ops::sessions::start_all::start_all(ctx, &options, &progress)?;
    sessions::started_all(&report, Format::json_if(args.json));
    Ok(if report.succeeded() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
