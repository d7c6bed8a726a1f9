//! What the-loop wrote into a harness's own files, so it can take exactly
//! that back out (`the-loop uninstall --harness-settings`) and nothing of
//! the person's.
//!
//! A seed ([`super::seed`], [`super::codex::seed`]) notes each key it set as
//! a [`Step`]: the key's path from the file's root, what it held before
//! (`None`: absent; a table or object it had to create is a step too, set
//! to an empty one), and what the-loop set. The preparation appends the
//! steps of each write to `<state root>/harness/written.jsonl`
//! ([`LEDGER`]). Undoing walks a file's steps newest first: a key that still
//! holds what the-loop set goes back to what it held before (removed when
//! it was absent; a created table only once it is empty again, and a file
//! the-loop created, noted as a step with an empty path, only once it
//! holds nothing more); a key
//! that holds anything else was changed since, by the person or the
//! harness, and is theirs: it stays. Pure: text in, text out.
//!
//! The values noted are the-loop's own (`true`, `false`, `"trusted"`, a
//! hook's hash, the marketplace's repo), never a value of the person's
//! other than one the-loop overwrote in these keys, which is exactly what
//! it must put back.

pub use super::seed::Step;

use super::seed::Merged;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::path::PathBuf;

/// The ledger, under the state root.
pub const LEDGER: &str = "harness/written.jsonl";

/// The file's format, which says how its keys are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Json,
    Toml,
}

/// One line of the ledger: a step in one file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub file: PathBuf,
    pub format: Format,
    #[serde(flatten)]
    pub step: Step,
}

/// What undoing one step did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The key was absent before the-loop: removed. For the file itself:
    /// it holds nothing more, and is to be deleted.
    Removed,
    /// The key held another value before the-loop: that value is back.
    Restored,
    /// The key holds something the-loop did not set: left as it is.
    ChangedSince,
    /// The key (or its file) is gone already.
    Gone,
}

/// The ledger's lines, oldest first; a line that does not parse (a write
/// cut short) is skipped and counted.
pub fn parse(text: &str) -> (Vec<Entry>, usize) {
    let mut skipped = 0;
    let entries = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .filter_map(|line| {
            let entry = serde_json::from_str(line).ok();
            skipped += usize::from(entry.is_none());
            entry
        })
        .collect();
    (entries, skipped)
}

/// One ledger line for `step` in `file`, newline included.
pub fn line(file: PathBuf, format: Format, step: Step) -> String {
    let entry = Entry { file, format, step };
    let mut text = serde_json::to_string(&entry).expect("a ledger entry serialises");
    text.push('\n');
    text
}

/// The file's text with `steps` (oldest first) undone, newest first.
pub fn undo(format: Format, existing: Option<&[u8]>, steps: &[Step]) -> (Merged, Vec<Outcome>) {
    let Some(bytes) = existing else {
        return (Merged::Unchanged, vec![Outcome::Gone; steps.len()]);
    };
    let mut outcomes = vec![Outcome::Gone; steps.len()];
    let text = match format {
        Format::Json => undo_json(bytes, steps, &mut outcomes),
        Format::Toml => undo_toml(bytes, steps, &mut outcomes),
    };
    match text {
        Err(why) => (Merged::Refused(why), outcomes),
        Ok(_)
            if !outcomes
                .iter()
                .any(|o| matches!(o, Outcome::Removed | Outcome::Restored)) =>
        {
            (Merged::Unchanged, outcomes)
        }
        Ok(text) => (Merged::Changed(text), outcomes),
    }
}

fn undo_json(bytes: &[u8], steps: &[Step], outcomes: &mut [Outcome]) -> Result<String, String> {
    let mut root = match serde_json::from_slice::<Value>(bytes) {
        Ok(Value::Object(map)) => map,
        Ok(_) => return Err("the file holds JSON that is not an object".into()),
        Err(e) => {
            let (line, column) = (e.line(), e.column());
            return Err(format!(
                "the file is not JSON (line {line}, column {column})"
            ));
        }
    };
    for (step, outcome) in steps.iter().zip(outcomes.iter_mut()).rev() {
        let Some((last, parents)) = step.path.split_last() else {
            *outcome = emptied(root.is_empty());
            continue;
        };
        let mut map = Some(&mut root);
        for key in parents {
            map = map
                .and_then(|m| m.get_mut(key))
                .and_then(Value::as_object_mut);
        }
        let Some(map) = map else { continue };
        *outcome = match map.get(last) {
            None => Outcome::Gone,
            Some(now) if *now != step.set => Outcome::ChangedSince,
            Some(_) => match &step.before {
                None => {
                    map.shift_remove(last);
                    Outcome::Removed
                }
                Some(before) => {
                    map.insert(last.clone(), before.clone());
                    Outcome::Restored
                }
            },
        };
    }
    let mut text = serde_json::to_string_pretty(&Value::Object(root)).expect("JSON serialises");
    text.push('\n');
    Ok(text)
}

fn undo_toml(bytes: &[u8], steps: &[Step], outcomes: &mut [Outcome]) -> Result<String, String> {
    use toml_edit::{value, DocumentMut, Item};
    let text = std::str::from_utf8(bytes).map_err(|_| "it is not UTF-8 text".to_owned())?;
    // Never the parser's message: it quotes the file.
    let mut doc: DocumentMut = text
        .parse()
        .map_err(|_| "it is not valid TOML".to_owned())?;
    for (step, outcome) in steps.iter().zip(outcomes.iter_mut()).rev() {
        let Some((last, parents)) = step.path.split_last() else {
            *outcome = emptied(doc.to_string().trim().is_empty());
            continue;
        };
        let mut table = Some(doc.as_table_mut());
        for key in parents {
            table = table
                .and_then(|t| t.get_mut(key))
                .and_then(Item::as_table_mut);
        }
        let Some(table) = table else { continue };
        let now = match table.get(last) {
            None => None,
            Some(Item::Table(t)) if t.is_empty() => Some(Value::Object(Map::new())),
            Some(item) => Some(match (item.as_str(), item.as_bool()) {
                (Some(s), _) => Value::String(s.to_owned()),
                (_, Some(b)) => Value::Bool(b),
                _ => Value::Null,
            }),
        };
        *outcome = match (now, &step.before) {
            (None, _) => Outcome::Gone,
            (Some(now), _) if now != step.set => Outcome::ChangedSince,
            (Some(_), None) => {
                table.remove(last);
                Outcome::Removed
            }
            (Some(_), Some(Value::String(s))) => {
                table.insert(last, value(s.as_str()));
                Outcome::Restored
            }
            (Some(_), Some(Value::Bool(b))) => {
                table.insert(last, value(*b));
                Outcome::Restored
            }
            // Seeds only overwrite strings and booleans.
            (Some(_), Some(_)) => Outcome::ChangedSince,
        };
    }
    Ok(doc.to_string())
}

/// A file the-loop created: to be deleted when it holds nothing more,
/// else what the harness or the person wrote into it since keeps it.
fn emptied(empty: bool) -> Outcome {
    if empty {
        Outcome::Removed
    } else {
        Outcome::ChangedSince
    }
}

#[cfg(test)]
#[path = "ledger_tests.rs"]
mod tests;
