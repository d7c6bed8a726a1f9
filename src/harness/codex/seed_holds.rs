//! Whether Codex's `config.toml` already holds a start's seed, read once
//! per content of the file ([`crate::harness::content_memo`]), not once
//! per start: the file gains a `[projects."<dir>"]` table for every
//! project, so each of a roll's N respawns parsing a file of N projects
//! cost the square of the fleet.
//!
//! The answer is sure or it is no: [`seed_holds`] says yes only where
//! [`super::seed::seed`] would say [`Merged::Unchanged`](crate::harness::seed::Merged)
//! for those bytes. A shape the merge refuses (a `projects` that is not a
//! table, text that is not TOML) reads as not held, and the caller merges
//! in full under its turn, which says why.

use super::seed::CodexSeed;
use crate::harness::content_memo::ContentMemo;
use std::collections::{HashMap, HashSet};
use toml_edit::{DocumentMut, Item, Table};

/// Whether `bytes` already hold every key `seed` sets.
pub fn seed_holds(bytes: &[u8], seed: &CodexSeed) -> bool {
    static LAST: ContentMemo<CodexSummary> = ContentMemo::new();
    LAST.read(bytes, CodexSummary::of)
        .is_some_and(|summary| summary.holds(seed))
}

/// What one `config.toml` says of what a start needs.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct CodexSummary {
    /// `check_for_update_on_startup` is present (whatever its value: the
    /// operator's choice once there).
    update_check_set: bool,
    /// The projects whose table says `trust_level = "trusted"` (none when
    /// `[projects]` is not a table: the merge refuses a seed that names one).
    trusted: HashSet<String>,
    /// Each `[hooks.state."<key>"]` table's `trusted_hash`.
    hook_hashes: HashMap<String, String>,
}

impl CodexSummary {
    /// Reads `bytes`; `None` when they are not UTF-8 TOML.
    pub fn of(bytes: &[u8]) -> Option<CodexSummary> {
        let doc: DocumentMut = std::str::from_utf8(bytes).ok()?.parse().ok()?;
        let root = doc.as_table();
        let projects = tables_under(root, &["projects"]);
        let trusted = projects
            .iter()
            .filter(|(_, project)| {
                project.get("trust_level").and_then(Item::as_str) == Some("trusted")
            })
            .map(|(dir, _)| dir.to_string())
            .collect();
        let states = tables_under(root, &["hooks", "state"]);
        let hook_hashes = states
            .iter()
            .filter_map(|(key, state)| {
                let hash = state.get("trusted_hash").and_then(Item::as_str)?;
                Some((key.to_string(), hash.to_owned()))
            })
            .collect();
        Some(CodexSummary {
            update_check_set: root.contains_key("check_for_update_on_startup"),
            trusted,
            hook_hashes,
        })
    }

    /// Whether `seed` would set nothing in the file this was read from.
    pub fn holds(&self, seed: &CodexSeed) -> bool {
        self.update_check_set
            && seed.projects.iter().all(|dir| self.trusted.contains(dir))
            && seed
                .hooks
                .iter()
                .all(|(key, hash)| self.hook_hashes.get(key) == Some(hash))
    }
}

/// The entries that are tables (not inline) of the table at `path`: none
/// when a step of the way is absent or not a table, and an entry that is
/// something else is left out. Whatever is left out is not held: the merge
/// would create it, or refuse a seed that names it.
fn tables_under<'d>(root: &'d Table, path: &[&str]) -> Vec<(&'d str, &'d Table)> {
    let mut at = root;
    for key in path {
        match at.get(key).and_then(Item::as_table) {
            Some(table) => at = table,
            None => return Vec::new(),
        }
    }
    at.iter()
        .filter_map(|(key, item)| Some((key, item.as_table()?)))
        .collect()
}

#[cfg(test)]
#[path = "seed_holds_tests.rs"]
mod tests;
