//! `the-loop apply --replace-server`: arguments → [`crate::ops::replace_server`]
//! → what it did, as text or JSON.

use super::output::print_json;
use crate::ops::replace_server::{replace_server, ReplaceOptions};
use crate::ops::Context;
use std::io::IsTerminal;
use std::process::ExitCode;

/// What `apply` passes on when `--replace-server` is given.
pub struct ReplaceArgs {
    pub auto_approve: bool,
    pub dry_run: bool,
    pub json: bool,
    pub end_sessions: Vec<String>,
    pub drain: crate::plan::safe_point::Drain,
    pub parallelism: usize,
}

pub fn run(ctx: &Context, args: ReplaceArgs) -> miette::Result<ExitCode> {
    if !args.auto_approve && !args.dry_run {
        miette::bail!(
            code = "the_loop::replace_server::approval",
            help = "review it with `the-loop apply --replace-server --dry-run`, then pass --auto-approve; nothing was ended",
            "--replace-server ends every managed harness and the tmux server: it needs --auto-approve"
        );
    }
    let options = ReplaceOptions {
        dry_run: args.dry_run,
        end_sessions: args.end_sessions,
        drain: args.drain,
        parallelism: args.parallelism,
    };
    let terminal = std::io::stderr().is_terminal() && !args.json;
    let progress = |line: &str| crate::errln!("{line}");
    let started = |revival: &crate::ops::sessions::start_all::Revival| {
        if terminal {
            crate::errln!("{}", crate::views::sessions::revival_line(revival));
        }
    };
    let replaced = replace_server(ctx, &options, &progress, &started)?;
    if args.json {
        print_json(&replaced);
    } else {
        let server = replaced
            .tmux_server
            .as_ref()
            .map(|s| s.display().to_string())
            .unwrap_or_else(|| "tmux's default".into());
        if replaced.dry_run {
            crate::outln!(
                "Would move {} session(s) to a new tmux server on {server}: wait for each one's safe point, end the harnesses and the server{}, start a new server, and bring each back resumed and verified.",
                replaced.moved.len(),
                match replaced.old_server_pid {
                    Some(pid) => format!(" (pid {pid})"),
                    None => String::new(),
                },
            );
            if !replaced.ended.is_empty() {
                crate::outln!("Would also end: {}", replaced.ended.join(", "));
            }
        } else if let Some(report) = &replaced.started {
            crate::views::sessions::started_all(report, crate::views::Format::Text);
            crate::outln!(
                "Moved {} session(s) to a new tmux server on {server}.",
                replaced.moved.len()
            );
        }
    }
    Ok(if replaced.succeeded() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
