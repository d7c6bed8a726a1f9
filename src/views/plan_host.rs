//! A host's part of the plan's text (`routing.hosts`, beside the panes):
//! its layer (what every session under it inherits, Claude Code's daemon)
//! and each of its sessions, in the plan's own words and symbols and the
//! host's (`hosts::words`).

use super::change::write_change;
use super::Style;
use crate::plan::host::{HostAction, HostPlan, HostWill};
use std::fmt::Write;

pub fn render(host: &HostPlan, style: Style) -> String {
    let words = crate::hosts::words(host.host);
    let layer_word = words.layer;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\n{} ({} {})",
        style.bold(words.title),
        words.location,
        host.location.display()
    );
    if let Some(why) = &host.observation_failed {
        let _ = writeln!(out, "{} {why}", style.red("could not be read:"));
        return out;
    }
    if let Some(roll) = &host.unfinished_roll {
        let mut left = Vec::new();
        if let Some(pid) = roll.layer_stopped {
            left.push(format!("it stopped the {layer_word} (pid {pid}) and no {layer_word} holding the policy's environment took its place"));
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
    match &host.layer {
        None => {
            let _ = writeln!(
                out,
                "  no {layer_word} runs: the next one started holds the environment of whoever starts it"
            );
        }
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
                "{} {layer_word}  {}  {verdict}",
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
        let label = session.label();
        let pid = session
            .pid
            .map(|p| format!(", pid {p}"))
            .unwrap_or_default();
        let verdict = match session.action {
            HostAction::Respawn => format!(
                "will be respawned  [{}: {}]",
                session.activity,
                match session.apply_will {
                    Some(HostWill::WaitBusy) => "waits for its turn to end",
                    Some(HostWill::WaitAsking) => "waits: it asks a person",
                    _ => "rolls now",
                }
            ),
            HostAction::None => "up to date".into(),
            HostAction::Stopped => "stopped: holds nothing, not rolled".into(),
            HostAction::Unverified => format!(
                "unverified: {}",
                session
                    .reason
                    .as_deref()
                    .unwrap_or("its environment could not be read")
            ),
            HostAction::Unmanaged => format!(
                "not managed (`the-loop import {} REF --host {}` manages it)",
                session.id,
                host.host.name()
            ),
        };
        let symbol = if session.action == HostAction::Respawn {
            "~"
        } else {
            " "
        };
        let _ = writeln!(
            out,
            "{symbol} {}  {}  {verdict}",
            style.bold(label),
            style.dim_args(format_args!(
                "({} {}{pid}, {})",
                words.session, session.id, session.activity
            ))
        );
        if matches!(session.action, HostAction::Respawn | HostAction::Unmanaged) {
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
        "{}: {} to respawn, {} up to date, {} unverified, {} stopped, {} not managed.",
        words.title,
        count(HostAction::Respawn),
        count(HostAction::None),
        count(HostAction::Unverified),
        count(HostAction::Stopped),
        count(HostAction::Unmanaged),
    );
    out
}
