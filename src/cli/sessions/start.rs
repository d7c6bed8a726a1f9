//! `the-loop sessions start`

use crate::ops::sessions::start::{start, StartOptions};
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
    /// Work-item ref, e.g. github:octo/repo#15.
    #[arg(value_name = "REF")]
    reference: String,
    #[command(flatten)]
    launch: LaunchOptions,
    /// Harness to host (defaults to routing.defaultHarness).
    #[arg(long)]
    harness: Option<String>,
    /// Begin a new conversation even though the record names one. Without
    /// it, a recorded conversation is resumed, and a start that cannot
    /// resume it refuses.
    #[arg(long)]
    fresh: bool,
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(ctx: &Context, args: StartArgs) -> miette::Result<ExitCode> {
    let options = StartOptions {
        reference: args.reference,
        launch: args.launch.into(),
        harness: args.harness,
        fresh: args.fresh,
    };
    let started = start(ctx, &options, &crate::cli::output::StderrNotes)?;
    sessions::started(&started, Format::json_if(args.json));
    Ok(ExitCode::SUCCESS)
}
