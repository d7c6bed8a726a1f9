//! `uninstall --harness-settings`: takes out of the harnesses' own files
//! exactly the keys the-loop wrote there, as its ledger noted them
//! ([`crate::harness::ledger`]), and nothing of the person's. A key
//! changed since the-loop set it is the person's and stays.
//!
//! Each file is edited as the preparation edits it (through its symlinks,
//! atomically, its mode kept), under the same turn, so a `sessions start`
//! running beside it cannot interleave. Entries of a file that could not
//! be edited stay in the ledger, so running it again retries them.

use crate::harness::ledger::{self, Entry, Format, Outcome, Step};
use crate::harness::seed::Merged;
use crate::harness::user_files::{edit, preview};
use crate::ops::Context;
use serde::Serialize;
use std::path::{Path, PathBuf};

pub const FORMAT_VERSION: &str = "1";

#[derive(Debug, Clone, Copy)]
pub struct UninstallOptions {
    /// Say what would be taken out, and change nothing.
    pub dry_run: bool,
}

/// What was (or, with `--dry-run`, would be) taken out (its `--json`).
#[derive(Debug, Serialize)]
pub struct UninstallReport {
    pub format_version: &'static str,
    pub dry_run: bool,
    /// The ledger read (`<state root>/harness/written.jsonl`).
    pub ledger: PathBuf,
    /// Ledger lines that could not be read (a write cut short), skipped.
    pub unreadable_lines: usize,
    pub files: Vec<FileReport>,
}

/// One harness file.
#[derive(Debug, Serialize)]
pub struct FileReport {
    pub file: PathBuf,
    /// Each key the-loop set in it, oldest first, and what became of it.
    pub keys: Vec<KeyReport>,
    /// The file was (with `--dry-run`: would be) rewritten.
    pub changed: bool,
    /// Why the file was left alone (never its content); its ledger lines stay.
    pub problem: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct KeyReport {
    pub key: String,
    pub outcome: Outcome,
}

impl UninstallReport {
    /// Every file was edited (or needed nothing).
    pub fn complete(&self) -> bool {
        self.files.iter().all(|f| f.problem.is_none())
    }
}

pub fn uninstall_harness_settings(
    ctx: &Context,
    options: UninstallOptions,
) -> miette::Result<UninstallReport> {
    let path = ctx.config.state_root.join(ledger::LEDGER);
    let _turn = crate::harness::prepare::edit_turn(&ctx.config);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => miette::bail!(
            code = "the_loop::uninstall::ledger",
            "{}: cannot read the ledger of what the-loop wrote: {}",
            path.display(),
            crate::fsutil::IoKind(e.kind())
        ),
    };
    let (entries, unreadable_lines) = ledger::parse(&text);
    let mut files = Vec::new();
    let mut kept: Vec<Entry> = Vec::new();
    for ((file, format), steps) in by_file(&entries) {
        let report = undo_file(&file, format, &steps, options.dry_run);
        if report.problem.is_some() {
            kept.extend(steps.into_iter().map(|step| Entry {
                file: file.clone(),
                format,
                step,
            }));
        }
        files.push(report);
    }
    if !options.dry_run && (!entries.is_empty() || unreadable_lines > 0) {
        rewrite_ledger(&path, kept)?;
    }
    Ok(UninstallReport {
        format_version: FORMAT_VERSION,
        dry_run: options.dry_run,
        ledger: path,
        unreadable_lines,
        files,
    })
}

/// The entries grouped by file, in the order each file first appears.
fn by_file(entries: &[Entry]) -> Vec<((PathBuf, Format), Vec<Step>)> {
    let mut groups: Vec<((PathBuf, Format), Vec<Step>)> = Vec::new();
    for entry in entries {
        let key = (entry.file.clone(), entry.format);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, steps)) => steps.push(entry.step.clone()),
            None => groups.push((key, vec![entry.step.clone()])),
        }
    }
    groups
}

fn undo_file(file: &Path, format: Format, steps: &[Step], dry_run: bool) -> FileReport {
    let mut report = undo_keys(file, format, steps, dry_run);
    // A file the-loop created, holding nothing more: deleted, as it was.
    let created = steps.iter().position(|s| s.path.is_empty());
    let emptied = created.is_some_and(|i| report.keys[i].outcome == Outcome::Removed);
    if emptied && report.problem.is_none() && !dry_run {
        if let Err(e) = crate::fsutil::remove_regular(file) {
            let kind = crate::fsutil::IoKind(e.kind());
            report.problem = Some(format!("{}: cannot delete it: {kind}", file.display()));
        }
    }
    report
}

fn undo_keys(file: &Path, format: Format, steps: &[Step], dry_run: bool) -> FileReport {
    let mut outcomes = Vec::new();
    let mut decided = None;
    let merge = |existing: Option<&[u8]>| {
        let (merged, noted) = ledger::undo(format, existing, steps);
        outcomes = noted;
        decided = Some(matches!(merged, Merged::Changed(_)));
        merged
    };
    let result = if dry_run {
        preview(file, merge).and_then(|merged| match merged {
            Merged::Refused(why) => Err(crate::harness::user_files::EditError::Refused {
                path: file.to_owned(),
                why,
            }),
            _ => Ok(()),
        })
    } else {
        edit(file, merge).map(|_| ())
    };
    let keys = steps
        .iter()
        .zip(
            outcomes
                .iter()
                .copied()
                .chain(std::iter::repeat(Outcome::Gone)),
        )
        .map(|(step, outcome)| KeyReport {
            key: step.key(),
            outcome,
        })
        .collect();
    FileReport {
        file: file.to_owned(),
        keys,
        changed: result.is_ok() && decided == Some(true),
        problem: result.err().map(|err| err.to_string()),
    }
}

/// The ledger again, holding only what is still to be taken out; removed
/// when nothing is.
fn rewrite_ledger(path: &Path, kept: Vec<Entry>) -> miette::Result<()> {
    let result = if kept.is_empty() {
        crate::fsutil::remove_regular(path).or_else(|e| match e.kind() {
            std::io::ErrorKind::NotFound => Ok(()),
            _ => Err(e),
        })
    } else {
        let text: String = kept
            .into_iter()
            .map(|e| ledger::line(e.file, e.format, e.step))
            .collect();
        crate::fsutil::write_atomic(path, text.as_bytes(), 0o600)
    };
    result.map_err(|e| {
        miette::miette!(
            code = "the_loop::uninstall::ledger",
            "{}: cannot rewrite the ledger: {}; the files above were edited, and running this again finds nothing more to take out of them",
            path.display(),
            crate::fsutil::IoKind(e.kind())
        )
    })
}
