//! `the-loop standing list`

use crate::cli::output::print_json;
use crate::observed::{fleet, Probe};
use crate::ops::Context;
use crate::registry::Status;
use clap::Args;
use serde::Serialize;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Serialize)]
struct Listed {
    name: String,
    tmux_target: String,
    status: Status,
    live: Probe,
    model: Option<String>,
    effort: Option<String>,
}

pub fn run(ctx: &Context, args: ListArgs) -> miette::Result<ExitCode> {
    let listing = ctx.registry.standing();
    let view = fleet::observe(&ctx.tmux);
    let rows: Vec<Listed> = listing
        .records
        .iter()
        .map(|(_, r)| {
            let target = r
                .tmux_target()
                .unwrap_or_else(|| crate::registry::standing_tmux_name(&r.name));
            Listed {
                name: r.name.clone(),
                live: view.probe(&target),
                tmux_target: target,
                status: r.status,
                model: r.model.clone(),
                effort: r.effort.clone(),
            }
        })
        .collect();
    if args.json {
        print_json(&serde_json::json!({"standing": rows, "corrupt_records": listing.corrupt}));
        return Ok(ExitCode::SUCCESS);
    }
    if rows.is_empty() {
        crate::outln!("No standing sessions are registered.");
    } else {
        let width = rows.iter().map(|r| r.name.len()).max().unwrap_or(4).max(4);
        crate::outln!(
            "{:<width$}  {:<40}  {:<7}  {:<7}  MODEL",
            "NAME",
            "TMUX",
            "STATUS",
            "LIVE"
        );
        for r in &rows {
            let status = serde_json::to_value(r.status)
                .ok()
                .and_then(|v| v.as_str().map(String::from))
                .unwrap_or_default();
            let model = match (&r.model, &r.effort) {
                (Some(m), Some(e)) => format!("{m} ({e})"),
                (Some(m), None) => m.clone(),
                _ => "-".into(),
            };
            crate::outln!(
                "{:<width$}  {:<40}  {status:<7}  {:<7}  {model}",
                r.name,
                r.tmux_target,
                r.live.as_str()
            );
        }
    }
    for c in &listing.corrupt {
        crate::errln!(
            "warning: registry record {} cannot be read: {}",
            c.path.display(),
            c.reason
        );
    }
    Ok(ExitCode::SUCCESS)
}
