//! What the verbs that end sessions say: `sessions stop`, `close`, `reset`
//! and `cleanup`, and `standing stop`. One line per thing that happened,
//! then any problem on stderr.

use super::{print_json, snake_name, Format};
use crate::lifecycle::cleanup::{CheckoutAction, CleanupReport, Deferral};
use crate::lifecycle::close::{CloseReport, Disposition, TmuxResult};
use crate::observed::Probe;
use crate::ops::sessions::close::{Closed, Stopped};
use crate::ops::sessions::reset::{Reset, ResetReport};

/// `sessions stop` and `standing stop`.
pub fn stopped(stopped: &Stopped, format: Format) {
    if format == Format::Json {
        return print_json(stopped);
    }
    close_lines(stopped.session.label(), &stopped.close);
}

/// `sessions close`: the close, then the cleanup or why it was deferred.
pub fn closed(closed: &Closed, format: Format) {
    if format == Format::Json {
        return print_json(closed);
    }
    match closed {
        Closed::Linked {
            reference,
            linked_to,
            ..
        } => crate::outln!("{reference} is a pull request linked to {linked_to}; closing it does not end {linked_to}'s session."),
        Closed::Closed {
            reference,
            close,
            cleanup,
            cleanup_deferred,
            registered,
        } => {
            if *registered {
                close_lines(reference, close);
            } else {
                crate::outln!("No session is registered for {reference}; nothing to close.");
            }
            match (cleanup, cleanup_deferred) {
                (Some(cleaned), _) => cleanup_lines(cleaned),
                (None, Some(Deferral::NoActor)) => crate::outln!(
                    "Cleanup deferred: the close names no actor. An authorized `the-loop sessions cleanup {reference}` releases the rest."
                ),
                (None, _) => crate::outln!(
                    "Cleanup deferred: the actor is not in routing.authorizedUsers. An authorized `the-loop sessions cleanup {reference}` releases the rest."
                ),
            }
        }
    }
}

/// `sessions cleanup`.
pub fn cleaned(report: &CleanupReport, format: Format) {
    if format == Format::Json {
        return print_json(report);
    }
    cleanup_lines(report);
}

/// `sessions reset`.
pub fn reset(report: &ResetReport, format: Format) {
    if format == Format::Json {
        return print_json(report);
    }
    if report.sessions.is_empty() {
        crate::outln!("No sessions are registered.");
    }
    for r in &report.sessions {
        reset_lines(r);
    }
}

fn close_lines(label: &str, report: &CloseReport) {
    let target = &report.tmux_target;
    if report.record_closed {
        crate::outln!("Closed {label}.");
    }
    if let Some(named) = &report.record_target {
        crate::outln!(
            "Its harness was found in tmux session {target} (its session {named} was renamed, or its pane moved)."
        );
    }
    for pane in &report.harness {
        crate::outln!(
            "Ended the harness in {target} (pane {}, pid {}): {}.",
            pane.pane_id,
            pane.pid,
            snake_name(pane.ending)
        );
    }
    match report.tmux {
        TmuxResult::Retained => {
            crate::outln!("Kept tmux session {target}; read it with `tmux attach -r -t {target}`.")
        }
        TmuxResult::Killed => crate::outln!("Killed tmux session {target}."),
        TmuxResult::PaneKilled => crate::outln!(
            "Killed the harness's pane in tmux session {target}; its other panes stay."
        ),
        TmuxResult::Absent => crate::outln!("There was no tmux session {target}."),
        TmuxResult::Untouched => {}
    }
    for problem in &report.problems {
        crate::errln!("warning: {problem}");
    }
}

fn cleanup_lines(report: &CleanupReport) {
    for e in &report.endpoints {
        let what = match e.tmux {
            TmuxResult::Killed if !e.harness.is_empty() => {
                "ended its harness and killed the session"
            }
            TmuxResult::Killed => "killed the session",
            TmuxResult::PaneKilled => "killed the harness's pane (the session holds others)",
            TmuxResult::Absent => "no such session",
            TmuxResult::Retained | TmuxResult::Untouched => "NOT killed",
        };
        crate::outln!("{} ({}): {what}.", e.tmux_target, e.reference);
        for p in &e.problems {
            crate::errln!("warning: {}: {p}", e.tmux_target);
        }
    }
    for c in &report.checkouts {
        match c.action {
            CheckoutAction::Removed => crate::outln!("Removed the checkout {}.", c.path.display()),
            CheckoutAction::Kept | CheckoutAction::Failed => crate::outln!(
                "Did not remove {}: {}.",
                c.path.display(),
                c.detail.as_deref().unwrap_or("")
            ),
        }
    }
    if report.record_deleted {
        crate::outln!("Deleted the registry record of {}.", report.reference);
    } else {
        crate::outln!("There was no registry record for {}.", report.reference);
    }
    if report.last_control.is_some() {
        crate::outln!(
            "Recorded `cleanup` as its last control command: later events will not start it again (`the-loop sessions start` will)."
        );
    }
    for p in &report.problems {
        crate::errln!("warning: {p}");
    }
}

fn reset_lines(r: &Reset) {
    let label = &r.reference;
    let target = &r.tmux_target;
    if let Some(problem) = &r.problem {
        crate::errln!("{label}: {problem}");
        return;
    }
    if r.dry_run {
        let live = if r.ended_live_session {
            format!("would end the live session in {target}")
        } else {
            format!(
                "would find no running harness in {target} ({})",
                r.probe.as_str()
            )
        };
        let tmux = match r.tmux {
            Disposition::Keep => "keep the tmux session",
            Disposition::Kill => "kill the tmux session",
        };
        crate::outln!("{label}: {live}, {tmux}, and delete the record.");
        return;
    }
    if let Some(closed) = &r.close {
        close_lines(label, closed);
    }
    if r.ended_live_session {
        crate::outln!("Reset {label}: ended its live session in {target}.");
    } else if r.probe == Probe::Live {
        crate::outln!(
            "Reset {label}: its harness in {target} was left running (routing.tmux.killHarnessOnClose is off)."
        );
    } else {
        crate::outln!(
            "Reset {label}: no harness was running in {target} ({}).",
            r.probe.as_str()
        );
    }
    if r.record_deleted {
        crate::outln!("Deleted the registry record; the work item starts over on its next start.");
    }
    if let Some(checkout) = &r.checkout {
        crate::outln!(
            "Kept the checkout {} (a reset never removes one; `the-loop sessions cleanup` does).",
            checkout.display()
        );
    }
}
