//! `the-loop uninstall --harness-settings`

use crate::ops::uninstall::{uninstall_harness_settings, UninstallOptions};
use crate::ops::Context;
use crate::views::{uninstall as view, Format};
use clap::Args;
use std::path::Path;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct UninstallArgs {
    /// Take out of the harnesses' own settings (Claude Code's
    /// ~/.claude.json and settings.json, Codex's config.toml) exactly the
    /// keys the-loop wrote there: workspace trust, the onboarding and
    /// bypass-disclaimer keys, the marketplace and the enabled plugin,
    /// Codex's project trust and hook hashes. Required: it is the one part
    /// of an uninstall a command does (docs/uninstall.md has the rest).
    #[arg(long, required = true)]
    harness_settings: bool,
    /// Say what would be taken out, and change nothing.
    #[arg(long)]
    dry_run: bool,
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(config: Option<&Path>, args: UninstallArgs) -> miette::Result<ExitCode> {
    debug_assert!(args.harness_settings, "clap requires it");
    let ctx = Context::load_without_tmux(config)?;
    let options = UninstallOptions {
        dry_run: args.dry_run,
    };
    let report = uninstall_harness_settings(&ctx, options)?;
    view::harness_settings(&report, Format::json_if(args.json));
    Ok(if report.complete() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
