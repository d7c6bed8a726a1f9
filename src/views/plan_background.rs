//! The background host's part of the plan's text: its daemon (the layer
//! every session under it inherits) and each background session, in the
//! plan's own words and symbols.

use super::change::write_change;
use super::Style;
use crate::plan::background::{BackgroundAction, BackgroundHostPlan, BackgroundWill};
use std::fmt::Write;

pub fn render(host: &BackgroundHostPlan, style: Style) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\n{} (config dir {})",
        style.bold("Claude Code background host"),
        host.config_dir.display()
    );
    if let Some(why) = &host.observation_failed {
        let _ = writeln!(out, "{} {why}", style.red("could not be read:"));
        return out;
    }
    if let Some(roll) = &host.unfinished_roll {
        let mut left = Vec::new();
        if let Some(pid) = roll.daemon_stopped {
            left.push(format!("it stopped the daemon (pid {pid}) and no daemon holding the policy's environment took its place"));
        }
        if !roll.respawning.is_empty() {
            left.push(format!(
                "it asked the host to respawn {} and never verified {}",
                roll.respawning.join(", "),
                if roll.respawning.len() == 1 {
                    "it"
                } else {
                    "them"
                }
            ));
        }
        let _ = writeln!(
            out,
            "  {} a roll begun at {} did not finish (cut short, or running now): {}; `the-loop apply` rolls what is left",
            style.yellow("!"),
            roll.since,
            left.join("; ")
        );
    }
    match &host.daemon {
        None => out.push_str(
            "  no daemon runs: the next one started holds the environment of whoever starts it\n",
        ),
        Some(daemon) => {
            let about = [daemon.origin.as_deref(), daemon.version.as_deref()]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join(", ");
            let verdict = if let Some(why) = &daemon.unverified {
                format!("unverified: {why}")
            } else if daemon.changes.is_empty() {
                "holds the policy's environment".to_owned()
            } else {
                "will be replaced before any respawn (every session it starts or respawns gets what it holds)".to_owned()
            };
            let _ = writeln!(
                out,
                "{} daemon  {}  {verdict}",
                if daemon.changes.is_empty() { " " } else { "~" },
                style.dim_args(format_args!("(pid {}, {about})", daemon.pid))
            );
            for change in &daemon.changes {
                out.push_str("    ");
                write_change(&mut out, change, style);
                out.push('\n');
            }
        }
    }
    for session in &host.sessions {
        let label = session.reference.as_deref().unwrap_or(&session.id);
        let pid = session
            .pid
            .map(|p| format!(", pid {p}"))
            .unwrap_or_default();
        let verdict = match session.action {
            BackgroundAction::Respawn => format!(
                "will be respawned  [{}: {}]",
                session.activity,
                match session.apply_will {
                    Some(BackgroundWill::WaitBusy) => "waits for its turn to end",
                    Some(BackgroundWill::WaitAsking) => "waits: it asks a person",
                    _ => "rolls now",
                }
            ),
            BackgroundAction::None => "up to date".into(),
            BackgroundAction::Stopped => "stopped: holds nothing, not rolled".into(),
            BackgroundAction::Unverified => format!(
                "unverified: {}",
                session
                    .reason
                    .as_deref()
                    .unwrap_or("its environment could not be read")
            ),
            BackgroundAction::Unmanaged => format!(
                "not managed (`the-loop import {} REF --host claude-background` manages it)",
                session.id
            ),
        };
        let symbol = if session.action == BackgroundAction::Respawn {
            "~"
        } else {
            " "
        };
        let _ = writeln!(
            out,
            "{symbol} {}  {}  {verdict}",
            style.bold(label),
            style.dim_args(format_args!(
                "(background {}{pid}, {})",
                session.id, session.activity
            ))
        );
        if matches!(
            session.action,
            BackgroundAction::Respawn | BackgroundAction::Unmanaged
        ) {
            for change in &session.changes {
                out.push_str("    ");
                write_change(&mut out, change, style);
                out.push('\n');
            }
        }
    }
    let count = |action| host.sessions.iter().filter(|s| s.action == action).count();
    let _ = writeln!(
        out,
        "Background host: {} to respawn, {} up to date, {} unverified, {} stopped, {} not managed.",
        count(BackgroundAction::Respawn),
        count(BackgroundAction::None),
        count(BackgroundAction::Unverified),
        count(BackgroundAction::Stopped),
        count(BackgroundAction::Unmanaged),
    );
    out
}
