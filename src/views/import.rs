//! What `the-loop import` says it did (or would do, with `--dry-run`).

use super::{print_json, Format, Style};
use crate::ops::import::Imported;
use crate::plan::unmanaged::ConversationSource;
use crate::runner::adopt::Naming;
use std::fmt::Write;

pub fn imported(report: &Imported, format: Format, style: Style) {
    match format {
        Format::Json => print_json(report),
        Format::Text => crate::out!("{}", render(report, style)),
    }
}

/// `import ID REF --host claude-background`.
pub fn imported_on_host(report: &crate::hosts::commands::ImportedOnHost, format: Format) {
    match format {
        Format::Json => print_json(report),
        Format::Text => crate::out!(
            "{} {} session {} ({}, conversation {}) as {}: `the-loop plan` plans it, `the-loop apply` rolls it.\n",
            if report.dry_run { "Would import" } else { "Imported" },
            crate::hosts::words(report.host).session,
            report.id,
            report.activity,
            report.conversation.as_deref().unwrap_or("not known"),
            report.reference
        ),
    }
}

pub fn render(r: &Imported, style: Style) -> String {
    let mut out = String::new();
    let verb = if r.dry_run {
        "Would import"
    } else {
        "Imported"
    };
    let _ = writeln!(
        out,
        "{verb} the {} in pane {} (pid {}) as {}:",
        r.harness,
        r.pane_id,
        r.pid,
        style.bold(&r.reference)
    );
    let from = match r.conversation_from {
        ConversationSource::Hooks => "as its hooks report",
        ConversationSource::Harness => "as it says itself",
        ConversationSource::Argv => "from its argv",
    };
    let _ = writeln!(
        out,
        "  conversation       {} ({from})",
        r.harness_session_id
    );
    let _ = writeln!(out, "  working directory  {}", r.cwd.display());
    let would = if r.dry_run { "would be" } else { "was" };
    let naming = match r.naming {
        Naming::Kept => format!("tmux session {} has the record's name already", r.tmux_target),
        Naming::Renamed => format!(
            "tmux session {} {would} renamed {} (its window and pane stay as they are)",
            r.from_session, r.tmux_target
        ),
        Naming::Moved => format!(
            "the pane {would} moved from tmux session {} to a new session {} (the other panes stay in {})",
            r.from_session, r.tmux_target, r.from_session
        ),
    };
    let _ = writeln!(out, "  {naming}");
    let _ = writeln!(out, "  record             {}", r.record.display());
    if let Some(why) = &r.unresumable {
        let _ = writeln!(
            out,
            "  {} `apply` leaves it alone until its conversation can be resumed: {why}",
            style.red("!")
        );
    }
    if r.dry_run {
        out.push_str("Nothing was changed (--dry-run).\n");
    } else {
        out.push_str(
            "Nothing was signalled. `the-loop plan` shows its drift; `the-loop apply` rolls it in place, resuming that conversation.\n",
        );
    }
    out
}
