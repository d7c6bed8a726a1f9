//! The apply report as text: one line per session, then a summary (the
//! `--json` view is the report itself, serialised).

use super::change::render_change;
use super::Style;
use crate::apply::{Conversation, Outcome, Report};
use std::fmt::Write;

/// The report `apply`, `sessions restart` and `standing restart` print
/// after a roll (or a dry run).
pub fn render(report: &Report, style: Style) -> String {
    let mut out = String::new();
    let width = report
        .sessions
        .iter()
        .map(|s| super::display_width(s.label()))
        .max()
        .unwrap_or(0);
    for s in &report.sessions {
        let verdict = s.verdict();
        let painted = match s.outcome {
            Outcome::Restarted | Outcome::UpToDate => style.green(&verdict),
            o if o.is_failure() => style.red(&verdict),
            _ => style.yellow(&verdict),
        };
        let pids = match (s.old_pid, s.new_pid) {
            (Some(old), Some(new)) => style.dim(&format!("  pid {old} → {new}")).to_string(),
            _ => String::new(),
        };
        let pids = match s.conversation {
            Some(Conversation::Confirmed) => {
                format!("{pids}{}", style.dim("  conversation confirmed"))
            }
            Some(Conversation::Unconfirmed) => {
                format!("{pids}{}", style.yellow("  conversation unconfirmed"))
            }
            None => pids,
        };
        let _ = writeln!(out, "{}  {painted}{pids}", super::pad(s.label(), width));
        for change in &s.mismatches {
            let _ = writeln!(out, "    {}", render_change(change, style));
        }
    }
    if let Some(scrub) = &report.tmux_env_scrub {
        out.push_str(&scrub.render(style));
    }
    out.push_str(&crate::plan::detached::render(
        &report.detached_residue,
        style,
    ));
    for host in &report.hosts {
        render_host(&mut out, host, style);
    }
    if let Some(failed) = &report.observation_failed {
        let _ = writeln!(
            out,
            "{} {}; none of them was rolled.",
            style.red("Blind:"),
            failed
        );
    }
    if report.interrupted {
        out.push_str("Interrupted: no new respawns were started after Ctrl-C.\n");
    }
    let count = |o: Outcome| report.sessions.iter().filter(|s| s.outcome == o).count();
    if report.dry_run {
        let _ = writeln!(
            out,
            "\n{} {} would be restarted, {} up to date, {} left alone, {} skipped. Nothing was changed.",
            style.bold("Dry run:"),
            count(Outcome::WouldRestart),
            count(Outcome::UpToDate),
            count(Outcome::LeftAlone),
            count(Outcome::Skipped),
        );
        return out;
    }
    // Only when there are any, so a roll of idle sessions reads as it always did.
    let safe_points = [
        (Outcome::Deferred, "deferred"),
        (Outcome::Blocked, "blocked"),
        (Outcome::Superseded, "superseded"),
    ]
    .into_iter()
    .filter(|(o, _)| count(*o) > 0)
    .map(|(o, word)| format!(", {} {word}", count(o)))
    .collect::<String>();
    let _ = writeln!(
        out,
        "\n{} {} restarted, {} unverified, {} mismatch, {} resume failed, {} left alone, {} skipped, {} not attempted{safe_points}.",
        style.bold("Apply:"),
        count(Outcome::Restarted),
        count(Outcome::RestartedUnverified),
        count(Outcome::Mismatch),
        count(Outcome::ResumeFailed),
        count(Outcome::LeftAlone),
        count(Outcome::Skipped),
        count(Outcome::NotAttempted),
    );
    if let Some(changed) = &report.env_file_changed {
        let n = changed.superseded_sessions;
        let _ = writeln!(
            out,
            "{} the env file changed during apply: {n} {} rolled to the superseded value; run apply again.",
            style.red("Not converged:"),
            if n == 1 { "session" } else { "sessions" },
        );
    }
    out
}

/// A host beside tmux: its layer (Claude Code's daemon), then each session.
fn render_host(out: &mut String, host: &crate::hosts::HostRollReport, style: Style) {
    use crate::hosts::{HostOutcome, LayerOutcome};
    let words = crate::hosts::words(host.host);
    if let Some(daemon) = &host.layer {
        let pids = match (daemon.old_pid, daemon.new_pid) {
            (Some(old), Some(new)) if old != new => format!("  pid {old} → {new}"),
            (None, Some(new)) => format!("  pid {new}"),
            _ => String::new(),
        };
        let verdict = match daemon.outcome {
            LayerOutcome::Kept => style
                .green("kept (holds the policy's environment)")
                .to_string(),
            LayerOutcome::Replaced => style.green("replaced (sessions kept)").to_string(),
            LayerOutcome::Refused => style
                .red(&format!(
                    "not replaced: {}",
                    daemon.detail.as_deref().unwrap_or("")
                ))
                .to_string(),
        };
        let _ = writeln!(
            out,
            "{} {}  {verdict}{}",
            words.session,
            words.layer,
            style.dim(&pids)
        );
    }
    for s in &host.sessions {
        let word = match s.outcome {
            HostOutcome::Restarted => style.green("restarted").to_string(),
            HostOutcome::Deferred => style.yellow("deferred").to_string(),
            HostOutcome::NotAttempted => style.yellow("not attempted").to_string(),
            HostOutcome::Failed => style.red("failed").to_string(),
        };
        let detail = s
            .detail
            .as_deref()
            .map(|d| format!(" ({d})"))
            .unwrap_or_default();
        let pids = match (s.old_pid, s.new_pid) {
            (Some(old), Some(new)) => format!("  pid {old} → {new}"),
            _ => String::new(),
        };
        let _ = writeln!(
            out,
            "{} ({} {})  {word}{detail}{}",
            s.reference.as_deref().unwrap_or(&s.id),
            words.session,
            s.id,
            style.dim(&pids)
        );
    }
}
