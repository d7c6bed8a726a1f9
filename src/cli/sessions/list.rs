//! `the-loop sessions list`

use crate::cli::context::Context;
use crate::cli::output::print_json;
use crate::desired::policy::Identity;
use crate::observed::{fleet, Probe};
use crate::plan::gather::managed_sessions;
use crate::registry::Status;
use clap::Args;
use serde::Serialize;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Print the sessions (and any unreadable records) as one JSON object.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Serialize)]
struct Listed {
    #[serde(rename = "ref")]
    reference: Option<String>,
    standing: Option<String>,
    harness: String,
    tmux_target: String,
    status: Status,
    live: Probe,
    model: Option<String>,
    effort: Option<String>,
}

pub fn run(ctx: &Context, args: ListArgs) -> miette::Result<ExitCode> {
    let view = fleet::observe(&ctx.tmux);
    let (sessions, corrupt) = managed_sessions(&ctx.registry);
    let mut rows = Vec::new();
    for session in &sessions {
        let facts = crate::apply::precheck::load_facts(&ctx.registry, &session.identity)
            .unwrap_or_default();
        let status = match &session.identity {
            Identity::WorkItem(r) => r
                .parse()
                .ok()
                .and_then(|r| ctx.registry.load_work_item(&r).ok().flatten())
                .map(|r| r.status),
            Identity::Standing(n) => ctx
                .registry
                .load_standing(n)
                .ok()
                .flatten()
                .map(|r| r.status),
        };
        let (reference, standing) = match &session.identity {
            Identity::WorkItem(r) => (Some(r.clone()), None),
            Identity::Standing(n) => (None, Some(n.clone())),
        };
        rows.push(Listed {
            reference,
            standing,
            harness: facts.harness,
            tmux_target: session.tmux_target.clone(),
            status: status.unwrap_or(Status::Closed),
            live: view.probe(&session.tmux_target),
            model: facts.args.model,
            effort: facts.args.effort,
        });
    }
    if args.json {
        print_json(&serde_json::json!({"sessions": rows, "corrupt_records": corrupt}));
        return Ok(ExitCode::SUCCESS);
    }
    if rows.is_empty() {
        println!("No sessions are registered.");
    } else {
        let width = rows
            .iter()
            .map(|r| {
                r.reference
                    .as_deref()
                    .or(r.standing.as_deref())
                    .unwrap_or("")
                    .len()
            })
            .max()
            .unwrap_or(3)
            .max(3);
        println!(
            "{:<width$}  {:<8}  {:<40}  {:<7}  {:<7}  MODEL",
            "REF", "HARNESS", "TMUX", "STATUS", "LIVE"
        );
        for r in &rows {
            let model = match (&r.model, &r.effort) {
                (Some(m), Some(e)) => format!("{m} ({e})"),
                (Some(m), None) => m.clone(),
                _ => "-".into(),
            };
            let status = serde_json::to_value(r.status)
                .ok()
                .and_then(|v| v.as_str().map(String::from))
                .unwrap_or_default();
            let label = r
                .reference
                .as_deref()
                .or(r.standing.as_deref())
                .unwrap_or("");
            println!(
                "{label:<width$}  {:<8}  {:<40}  {status:<7}  {:<7}  {model}",
                r.harness,
                r.tmux_target,
                r.live.as_str()
            );
        }
    }
    for c in &corrupt {
        eprintln!(
            "warning: registry record {} cannot be read: {}",
            c.path.display(),
            c.reason
        );
    }
    Ok(ExitCode::SUCCESS)
}
