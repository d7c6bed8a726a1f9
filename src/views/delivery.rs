//! What `sessions deliver` and `standing say` say about a delivery. The
//! exit code is the outcome's ([`crate::lifecycle::deliver::Outcome::exit_code`]).

use super::{print_json, Format};
use crate::lifecycle::deliver::{DeliveryReport, Outcome, Route};

pub fn render(report: &DeliveryReport, format: Format) {
    if format == Format::Json {
        return print_json(report);
    }
    let who = report
        .reference
        .as_deref()
        .or(report.standing.as_deref())
        .unwrap_or("");
    let via = report
        .via_pull_request
        .as_deref()
        .map(|pr| format!(" (for linked pull request {pr})"))
        .unwrap_or_default();
    let target = &report.tmux_target;
    let reason = report.reason.as_deref().unwrap_or("");
    if let Some(relaunch) = &report.relaunch {
        let drifted: Vec<String> = relaunch
            .args_changes
            .iter()
            .map(|c| super::snake_name(c.name))
            .collect();
        let what = drifted.join(", ");
        match relaunch.outcome {
            crate::apply::Outcome::Restarted => crate::outln!(
                "Relaunched {who} in tmux session {target} first: its launch arguments ({what}) had drifted; the conversation was resumed."
            ),
            outcome => crate::errln!(
                "{who}'s launch arguments ({what}) drifted, but it was not relaunched ({}: {}); the message goes to the running harness.",
                super::snake_name(outcome),
                relaunch.detail.as_deref().unwrap_or("no detail")
            ),
        }
    }
    match (report.outcome, report.route) {
        (Outcome::Delivered, Some(Route::Pasted)) => {
            crate::outln!("Delivered to {who}{via} in tmux session {target}.")
        }
        (Outcome::Delivered, Some(Route::Respawned)) => {
            let how = if report.resumed == Some(true) {
                "resuming its conversation".to_owned()
            } else {
                format!("in a fresh conversation ({reason})")
            };
            crate::outln!(
                "Respawned {who}{via} in tmux session {target}, {how}; the message was its first prompt."
            )
        }
        (Outcome::Delivered, _) => crate::outln!(
            "Delivered to {who}{via} into the live session already holding {target} (respawn averted)."
        ),
        (Outcome::Duplicate, _) => crate::outln!("Already delivered: {reason}; nothing to do."),
        (Outcome::Failed, _) => crate::errln!(
            "Delivery to {who}{via} failed: {reason}. The delivery id was not recorded, so redelivering retries it."
        ),
        (outcome, _) => crate::errln!(
            "Not delivered to {who}{via} ({}): {reason}.",
            super::snake_name(outcome)
        ),
    }
}
