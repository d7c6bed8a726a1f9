//! `apply --scrub-tmux-env`: unset withheld names from the tmux global
//! environment and from managed sessions' environments, so panes created
//! later (by anyone, in any window) no longer inherit them.
//!
//! Only names travel in the argv (`set-environment [-g|-t =S] -u NAME`),
//! all in one tmux invocation. Afterwards the layers are read again, and
//! whatever is still there is reported. The tmux server's own process
//! environment and argv are not touched: they cannot be changed in place.

use crate::desired::policy::Policy;
pub use crate::events::roll::ScrubTarget;
use crate::events::EventLog;
use crate::plan::residue::{compare, Residue, ResidueEntry, ResidueState, SERVER_NOTE};
use crate::style::Style;
use crate::tmux::Tmux;
use schemars::JsonSchema;
use serde::Serialize;
use std::fmt::Write;

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ScrubReport {
    pub dry_run: bool,
    /// Unset (or, in a dry run, would be unset).
    pub unset: Vec<ScrubTarget>,
    /// Still held by the global or session environments after the scrub.
    pub remaining: Vec<ScrubTarget>,
    /// Held by the tmux server process itself: only a server restart clears these.
    pub server_residue: Vec<ResidueEntry>,
    /// Why the scrub could not be done or checked.
    pub error: Option<String>,
}

impl ScrubReport {
    pub fn failed(&self) -> bool {
        !self.dry_run && (self.error.is_some() || !self.remaining.is_empty())
    }

    pub fn render(&self, style: Style) -> String {
        let mut out = String::new();
        let list = |targets: &[ScrubTarget]| {
            targets
                .iter()
                .map(|t| match &t.session {
                    Some(s) => format!("{} ({s})", t.name),
                    None => format!("{} (global)", t.name),
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        let verb = if self.dry_run { "would unset" } else { "unset" };
        if let Some(error) = &self.error {
            let _ = writeln!(
                out,
                "{} {error}",
                style.red("tmux environment scrub failed:")
            );
        }
        if self.unset.is_empty() && self.error.is_none() {
            let _ = writeln!(
                out,
                "tmux environment scrub: no withheld name in the global or session environments."
            );
        } else if !self.unset.is_empty() {
            let _ = writeln!(out, "tmux environment scrub: {verb} {}", list(&self.unset));
        }
        if !self.remaining.is_empty() {
            let _ = writeln!(
                out,
                "{} {}",
                style.red("still held after the scrub:"),
                list(&self.remaining)
            );
        }
        if !self.server_residue.is_empty() {
            let names: Vec<&str> = self
                .server_residue
                .iter()
                .map(|e| e.name.as_str())
                .collect();
            let _ = writeln!(
                out,
                "the tmux server process still holds {}. {SERVER_NOTE}",
                names.join(", ")
            );
        }
        out
    }
}

fn target(entry: &ResidueEntry) -> ScrubTarget {
    ScrubTarget {
        layer: entry.layer,
        session: entry.session.clone(),
        name: entry.name.clone(),
    }
}

/// One tmux invocation unsetting every target; names only.
pub fn scrub_args(targets: &[ScrubTarget]) -> Vec<String> {
    let mut args = Vec::new();
    for t in targets {
        if !args.is_empty() {
            args.push(";".to_owned());
        }
        args.push("set-environment".to_owned());
        match &t.session {
            Some(session) => args.extend(["-t".to_owned(), format!("={session}")]),
            None => args.push("-g".to_owned()),
        }
        args.extend(["-u".to_owned(), t.name.clone()]);
    }
    args
}

/// Unsets what `residue` found in the clearable layers, then reads the
/// layers again to report what remains.
pub fn scrub(
    tmux: &Tmux,
    policy: &Policy,
    residue: Option<&Residue>,
    events: &EventLog,
    dry_run: bool,
) -> ScrubReport {
    let mut report = ScrubReport {
        dry_run,
        unset: Vec::new(),
        remaining: Vec::new(),
        server_residue: Vec::new(),
        error: None,
    };
    let Some(residue) = residue.filter(|r| r.state != ResidueState::Unanswered) else {
        report.error = Some(format!(
            "tmux's environments could not be read ({}); nothing was unset",
            residue
                .and_then(|r| r.reason.as_deref())
                .unwrap_or("not checked")
        ));
        return report;
    };
    let mut targets: Vec<ScrubTarget> = residue.scrubbable().map(target).collect();
    targets.sort();
    targets.dedup();
    report.server_residue = residue
        .entries
        .iter()
        .filter(|e| !e.scrubbable)
        .cloned()
        .collect();
    if targets.is_empty() || dry_run {
        report.unset = targets;
        return report;
    }
    if let Err(err) = tmux.run(scrub_args(&targets)) {
        report.error = Some(format!("tmux did not answer ({err})"));
    }
    // Whatever tmux said, what counts is what the layers hold now.
    let mut sessions: Vec<String> = targets.iter().filter_map(|t| t.session.clone()).collect();
    sessions.dedup();
    let after = compare(policy, &crate::observed::residue::observe(tmux, &sessions));
    if after.state == ResidueState::Unanswered {
        report.error = Some(format!(
            "the result could not be checked ({})",
            after.reason.as_deref().unwrap_or("tmux did not answer")
        ));
        report.remaining = targets;
    } else {
        report.remaining = after.scrubbable().map(target).collect();
        report.remaining.retain(|t| targets.contains(t));
        report.unset = targets
            .into_iter()
            .filter(|t| !report.remaining.contains(t))
            .collect();
        report.server_residue = after
            .entries
            .iter()
            .filter(|e| !e.scrubbable)
            .cloned()
            .collect();
    }
    events.emit(crate::events::Event::TmuxEnvScrubbed {
        unset: report.unset.clone(),
        remaining: report.remaining.clone(),
    });
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::residue::Layer;

    #[test]
    fn one_invocation_with_names_only() {
        let args = scrub_args(&[
            ScrubTarget {
                layer: Layer::TmuxGlobal,
                session: None,
                name: "TOKEN".into(),
            },
            ScrubTarget {
                layer: Layer::TmuxSession,
                session: Some("loop-a".into()),
                name: "TOKEN".into(),
            },
        ]);
        insta::assert_debug_snapshot!(args);
    }
}
