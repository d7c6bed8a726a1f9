//! `status` as text, or as its JSON report (`schemas/status.schema.json`).

use super::{print_json, Format};
use crate::observed::Probe;
use crate::ops::status::{StatusReport, FIX_COMMAND};

pub fn show(report: &StatusReport, format: Format) {
    match format {
        Format::Json => print_json(report),
        Format::Text => crate::out!("{}", render(report)),
    }
}

/// The text `status` prints: tmux, each enabled service, the sessions, then
/// a line for each interrupted respawn and one when any environment is stale.
pub fn render(report: &StatusReport) -> String {
    let mut lines = vec![format!("{:<14} {}", "tmux", report.tmux_version)];
    for service in report.services.iter().filter(|s| s.enabled) {
        let state = if service.running {
            "running"
        } else {
            "not running"
        };
        lines.push(format!("{:<14} {state}", service.name));
    }
    let live = report
        .sessions
        .iter()
        .filter(|s| s.probe == Probe::Live)
        .count();
    lines.push(match &report.tmux_unanswered {
        // "0 running" would be a guess: unknown is never read as absent.
        Some(reason) => format!(
            "sessions       {} registered; tmux did not answer ({reason}), so whether they run is unknown",
            report.sessions.len()
        ),
        None => format!(
            "sessions       {} registered, {live} running",
            report.sessions.len()
        ),
    });
    for s in &report.sessions {
        if let Some(why) = &s.held {
            lines.push(format!(
                "{}: stale, held at its safe point ({why}); `the-loop plan` says what a roll does",
                s.label()
            ));
        }
        if let (Some(i), Some(at)) = (&s.interrupted_respawn, &s.resume_exited_at) {
            let retry = match (&s.reference, &s.standing) {
                (None, Some(name)) => format!("the-loop standing restart {name}"),
                _ => format!("the-loop sessions restart {}", s.label()),
            };
            lines.push(format!(
                "{}: pane {} was respawned and its harness exited at once when resumed at {at}; `the-loop apply` leaves it alone, `{retry}` retries conversation {}",
                s.label(),
                i.pane_id,
                i.harness_session_id
            ));
        } else if let Some(i) = &s.interrupted_respawn {
            lines.push(format!(
                "{}: interrupted respawn since {}: the harness was ended and pane {} never respawned; `the-loop apply` resumes conversation {}",
                s.label(),
                i.since,
                i.pane_id,
                i.harness_session_id
            ));
        }
    }
    for host in &report.hosts {
        let words = crate::hosts::words(host.host);
        let column = format!("{:<15}", words.session);
        lines.push(match &host.unreadable {
            Some(why) => format!("{column}{} could not be read: {why}", words.title),
            None => format!(
                "{column}{} managed, {} running, {} stale{}",
                host.managed,
                host.running,
                host.stale,
                if host.layer_stale {
                    format!("; its {} holds a stale environment", words.layer)
                } else {
                    String::new()
                }
            ),
        });
        if host.stale > 0 || host.layer_stale {
            lines.push(format!(
                "{} sessions are rolled by `the-loop apply` (docs/hosts.md)",
                words.session
            ));
        }
    }
    let stale = report.stale_sessions;
    if stale > 0 {
        lines.push(format!(
            "{stale} running session(s) hold a stale environment; fix with `{FIX_COMMAND}`"
        ));
    }
    let mut text = lines.join("\n");
    text.push('\n');
    text
}
