//! What happens next, said at the end of a plan: true for the command that
//! printed it (`plan`, `apply`, a restart, or `show` of a saved plan).

use crate::plan::host::HostAction;
use crate::plan::model::*;
use std::fmt::Write;
use std::path::Path;

/// Which command shows the plan. The footer says what happens next, and
/// that depends on who is asking: `plan` changes nothing, `apply` respawns
/// drifted sessions, a restart rolls every targeted session, drifted or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next<'a> {
    Plan,
    /// `show` of the plan saved at `path`, which `apply path` would apply.
    Saved {
        path: &'a Path,
    },
    Apply {
        dry_run: bool,
    },
    Restart {
        command: &'static str,
        dry_run: bool,
    },
}

/// What happens next, true for the command that printed the plan.
pub(super) fn footer(plan: &Plan, next: Next<'_>) -> String {
    let s = &plan.summary;
    let will = |dry_run: bool| if dry_run { "would" } else { "will" };
    let mut out = String::new();
    if s.resume > 0 {
        out.push_str(
            "An earlier roll was interrupted after ending a harness: `the-loop apply` respawns its pane, resuming the recorded conversation.\n",
        );
    }
    if let Some(failed) = &plan.observation_failed {
        let (it, they) = match failed.sessions.len() {
            1 => ("it", "it"),
            _ => ("they", "them"),
        };
        let _ = writeln!(out, "Blind: {failed}.");
        let _ = match next {
            Next::Plan => writeln!(
                out,
                "Whether {it} drifted is unknown: an error, not a clean plan (`plan --detailed-exitcode` exits 1)."
            ),
            Next::Saved { .. } => writeln!(
                out,
                "Whether {it} drifted was unknown when the plan was saved."
            ),
            Next::Apply { .. } => writeln!(out, "apply rolls none of {they}, and exits 1."),
            Next::Restart { command, .. } => {
                writeln!(out, "{command} restarts none of {they}, and exits 1.")
            }
        };
    }
    let blind = plan.observation_failed.is_some();
    // The hosts beside tmux are rolled by the same apply.
    let on_hosts = |action| {
        plan.hosts
            .iter()
            .flat_map(|host| &host.sessions)
            .filter(|b| {
                b.action == action && (action != HostAction::Unmanaged || !b.changes.is_empty())
            })
            .count()
    };
    let respawn = s.respawn + on_hosts(HostAction::Respawn);
    match next {
        Next::Plan if respawn > 0 && plan.candidate_for.is_some() => out.push_str(
            "This previews a rotation to the candidate: `the-loop apply` still rolls onto env.file as it is now. \
             Swap the candidate in, then apply; a plan saved with --out is refused until env.file holds the candidate.\n",
        ),
        Next::Plan if respawn > 0 => out.push_str(
            "Run `the-loop apply` to respawn the drifted sessions, resuming each conversation.\n",
        ),
        Next::Saved { path } if respawn > 0 => {
            let _ = writeln!(
                out,
                "`the-loop apply {}` respawns these sessions, resuming each conversation, without asking; \
                 it is refused if {} changed since the plan was saved.",
                path.display(),
                match plan.candidate_for {
                    Some(_) => "env.file does not hold the candidate yet, or anything else",
                    None => "the env file, a pane or a record",
                }
            );
        }
        Next::Apply { dry_run } if respawn > 0 => {
            let _ = writeln!(
                out,
                "apply {} respawn {} drifted session(s) in place, resuming each conversation.",
                will(dry_run),
                respawn
            );
        }
        Next::Plan | Next::Saved { .. } | Next::Apply { .. }
            if !plan.has_drift() && !blind && plan.has_unmanaged_drift() =>
        {
            let held = plan
                .unmanaged_harnesses
                .iter()
                .filter(|h| h.drifted())
                .count()
                + on_hosts(HostAction::Unmanaged);
            let _ = writeln!(
                out,
                "No drift in the-loop's sessions, but {held} harness(es) it does not manage hold names they should not (above): `the-loop import PANE REF` brings one under management."
            );
        }
        Next::Plan | Next::Saved { .. } | Next::Apply { .. } if !plan.has_drift() && !blind => {
            out.push_str(
                "No drift: every session that could be read holds the desired environment.\n",
            )
        }
        Next::Plan | Next::Saved { .. } | Next::Apply { .. } => {}
        Next::Restart { command, dry_run } => {
            let restarting = plan
                .sessions
                .iter()
                .filter(|p| p.action != Action::Skip && p.left_alone.is_none())
                .count();
            if restarting == 0 {
                let _ = writeln!(
                    out,
                    "{command} has nothing to restart: no targeted session is running with a readable environment."
                );
            } else {
                let _ = writeln!(
                    out,
                    "{command} {} restart {restarting} session(s) in place ({} drifted), resuming each conversation.",
                    will(dry_run),
                    s.respawn
                );
            }
        }
    }
    if s.left_alone > 0 {
        let _ = writeln!(
            out,
            "{} drifted session(s) cannot be resumed: a roll leaves them alone (reasons above).",
            s.left_alone
        );
    }
    out
}
