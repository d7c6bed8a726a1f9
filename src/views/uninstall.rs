//! `uninstall --harness-settings` and `sessions forget`, as text or JSON.

use super::{print_json, Format};
use crate::harness::ledger::Outcome;
use crate::ops::sessions::forget::Forgotten;
use crate::ops::uninstall::UninstallReport;

pub fn harness_settings(report: &UninstallReport, format: Format) {
    if format == Format::Json {
        return print_json(report);
    }
    crate::outln!("{}", render(report));
}

/// The report as lines: each file, each key and what became of it, and
/// one summary line.
pub fn render(report: &UninstallReport) -> String {
    let mut out = String::new();
    let mut line = |text: String| {
        out.push_str(&text);
        out.push('\n');
    };
    if report.files.is_empty() {
        line(format!(
            "the-loop has noted no key written into a harness's settings ({}): nothing to take out.",
            report.ledger.display()
        ));
    } else if report.dry_run {
        line("Would take out of the harnesses' settings exactly what the-loop wrote there (--dry-run: nothing is changed):".into());
    } else {
        line("Took out of the harnesses' settings exactly what the-loop wrote there; nothing of yours:".into());
    }
    let mut counts = [0usize; 4];
    for file in &report.files {
        line(format!("  {}", file.file.display()));
        for key in &file.keys {
            let (word, why) = match key.outcome {
                Outcome::Removed => ("removed ", ""),
                Outcome::Restored => ("restored", "  (back to what it held before)"),
                Outcome::ChangedSince => ("kept    ", "  (changed since the-loop set it: yours)"),
                Outcome::Gone => ("gone    ", "  (already gone)"),
            };
            counts[key.outcome as usize] += 1;
            let name = match key.key.as_str() {
                "" => "(the file itself, which the-loop created)",
                name => name,
            };
            line(format!("    {word}  {name}{why}"));
        }
        if let Some(problem) = &file.problem {
            line(format!(
                "    ! left alone: {problem}; its keys stay noted, so running this again retries them"
            ));
        }
    }
    if report.unreadable_lines > 0 {
        line(format!(
            "  ! {} line(s) of {} could not be read and were skipped",
            report.unreadable_lines,
            report.ledger.display()
        ));
    }
    if !report.files.is_empty() {
        let changed = report.files.iter().filter(|f| f.changed).count();
        let failed = report.files.iter().filter(|f| f.problem.is_some()).count();
        line(format!(
            "\nUninstall: {changed} file(s) {}, {failed} left alone; keys: {} removed, {} restored, {} kept, {} gone.",
            if report.dry_run { "to change" } else { "changed" },
            counts[Outcome::Removed as usize],
            counts[Outcome::Restored as usize],
            counts[Outcome::ChangedSince as usize],
            counts[Outcome::Gone as usize],
        ));
    }
    out.trim_end().to_owned()
}

pub fn forgotten(report: &Forgotten, format: Format) {
    if format == Format::Json {
        return print_json(report);
    }
    crate::outln!(
        "Forgot {}: its record is deleted; tmux session {} and the harness in it are left exactly as they are.\n\
         the-loop no longer plans, rolls or delivers to it (`plan` lists it as unmanaged); `tmux attach -t {}` still reaches it.",
        report.reference,
        report.tmux_target,
        report.tmux_target
    );
}
