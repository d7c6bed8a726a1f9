//! The command line: argument definitions and dispatch, one file per command.

pub(crate) mod apply;
pub(crate) mod context;
mod exec;
pub(crate) mod output;
pub(crate) mod plan;
pub(crate) mod sessions;
mod standing;
mod status;

use clap::{Args, CommandFactory, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

pub use context::Context;

/// Keep long-lived agent sessions in tmux on the environment you declared.
///
/// the-loop compares the environment each running session holds with the env
/// file (`plan`), and rolls drifted sessions onto it in place, resuming every
/// conversation and verifying what the new process holds (`apply`). Values
/// are never shown: they are named by fingerprint, the first 8 hex digits of
/// their SHA-256 (`printf %s "$V" | sha256sum | cut -c1-8`).
#[derive(Debug, Parser)]
#[command(
    name = "the-loop",
    version,
    propagate_version = true,
    max_term_width = 100
)]
pub struct Cli {
    /// Config file. Otherwise $THE_LOOP_CLI_CONFIG, ./.the-loop/cli-config.yaml,
    /// then ~/.the-loop/cli-config.yaml.
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Show which running sessions have drifted from the env file.
    ///
    /// Re-reads the env file, asks tmux once for every loop-* pane, reads each
    /// managed harness's /proc/<pid>/environ and lists, per session, every
    /// differing name with fingerprints (have → want). Nothing is changed.
    #[command(
        after_help = "Exit codes: 0 success; with --detailed-exitcode 0 = no drift, 2 = drift observed, 1 = error."
    )]
    Plan(plan::PlanArgs),
    /// Respawn drifted sessions in place, resuming each conversation, and verify them.
    ///
    /// Shows the plan, asks for confirmation (or takes --auto-approve), rolls
    /// one canary session first, then the rest with bounded parallelism.
    #[command(
        after_help = "Exit codes: 0 every targeted live session respawned and verified (or unverified); \
1 any left stale (unresumable, resume failed, mismatch) or an error."
    )]
    Apply(apply::ApplyArgs),
    /// Report services and, when sessions hold a stale environment, one line saying so.
    #[command(
        after_help = "Exit codes: 0 when every enabled service runs, else 1. Drift never changes it."
    )]
    Status(status::StatusArgs),
    /// Start, deliver to, pause, close, reset, clean up and attach to work-item sessions.
    #[command(subcommand)]
    Sessions(sessions::SessionsCommand),
    /// Create, start, stop, restart, list and talk to standing sessions (no work item).
    #[command(subcommand)]
    Standing(standing::StandingCommand),
    /// Print shell completions.
    Completions(CompletionsArgs),
    /// (internal) The pane launcher: builds the desired environment and execs the harness.
    #[command(hide = true)]
    Exec(exec::ExecArgs),
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

pub fn run() -> ExitCode {
    init_tracing();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Plan(args) => plan::run(cli.config.as_deref(), args),
        Command::Apply(args) => apply::run(cli.config.as_deref(), args),
        Command::Status(args) => status::run(cli.config.as_deref(), args),
        Command::Sessions(cmd) => sessions::run(cli.config.as_deref(), cmd),
        Command::Standing(cmd) => standing::run(cli.config.as_deref(), cmd),
        Command::Exec(args) => exec::run(args),
        Command::Completions(args) => {
            clap_complete::generate(
                args.shell,
                &mut Cli::command(),
                "the-loop",
                &mut std::io::stdout(),
            );
            Ok(ExitCode::SUCCESS)
        }
    };
    match result {
        Ok(code) => code,
        Err(report) => {
            eprintln!("{report:?}");
            ExitCode::FAILURE
        }
    }
}

/// Logs go to stderr, filtered by `RUST_LOG` (default: warnings).
fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .try_init();
}
