//! What the-loop writes into Codex's `$CODEX_HOME/config.toml` before a
//! start, so the session opens straight at its prompt: the project trusted
//! (its git root, which is what Codex asks about), the-loop's hooks
//! trusted, and no update check. Pure: text in, text out; the user's own
//! keys, comments and layout are kept (`toml_edit`).
//!
//! The model provider and its key are the operator's: a roll needs a
//! provider whose `env_key` names the variable the env file delivers (see
//! `docs/harness.md`), and the-loop never writes one.

use crate::harness::seed::Merged;
use crate::harness::seed::Step;
use serde_json::Value;
use toml_edit::{value, DocumentMut, Item, Table};

/// What one start needs in the file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CodexSeed {
    /// Directories to mark `trust_level = "trusted"` under `[projects]`.
    pub projects: Vec<String>,
    /// `[hooks.state."<key>"] trusted_hash = "<hash>"` pairs.
    pub hooks: Vec<(String, String)>,
}

/// The file's new text, or `Unchanged` when every key already holds what
/// it should. A file that is not TOML is left alone.
pub fn seed(existing: Option<&[u8]>, seed: &CodexSeed) -> Merged {
    seed_noted(existing, seed).0
}

/// [`seed()`], and the keys it set ([`crate::harness::ledger`]).
pub fn seed_noted(existing: Option<&[u8]>, seed: &CodexSeed) -> (Merged, Vec<Step>) {
    let mut steps = Vec::new();
    let merged = seed_into(existing, seed, &mut steps);
    (merged, steps)
}

fn seed_into(existing: Option<&[u8]>, seed: &CodexSeed, steps: &mut Vec<Step>) -> Merged {
    let text = match existing.map(std::str::from_utf8) {
        None => "",
        Some(Ok(text)) => text,
        Some(Err(_)) => return Merged::Refused("it is not UTF-8 text".into()),
    };
    let mut doc: DocumentMut = match text.parse() {
        Ok(doc) => doc,
        // Never the parser's message: it quotes the file.
        Err(_) => return Merged::Refused("it is not valid TOML".into()),
    };
    let mut changed = false;
    const UPDATE_CHECK: &str = "check_for_update_on_startup";
    if !doc.contains_key(UPDATE_CHECK) {
        doc[UPDATE_CHECK] = value(false);
        steps.push(Step::new(&[UPDATE_CHECK], None, Value::Bool(false)));
        changed = true;
    }
    for dir in &seed.projects {
        let Some(projects) = table(doc.as_table_mut(), &["projects"], steps) else {
            return Merged::Refused("its `projects` is not a table".into());
        };
        let Some(project) = table(projects, &["projects", dir], steps) else {
            return Merged::Refused("a `projects` entry is not a table".into());
        };
        changed |= set(project, &["projects", dir, "trust_level"], "trusted", steps);
    }
    for (key, hash) in &seed.hooks {
        let Some(hooks) = table(doc.as_table_mut(), &["hooks"], steps) else {
            return Merged::Refused("its `hooks` is not a table".into());
        };
        let Some(state) = table(hooks, &["hooks", "state"], steps) else {
            return Merged::Refused("its `hooks.state` is not a table".into());
        };
        let Some(entry) = table(state, &["hooks", "state", key], steps) else {
            return Merged::Refused("a `hooks.state` entry is not a table".into());
        };
        let at = ["hooks", "state", key.as_str(), "trusted_hash"];
        changed |= set(entry, &at, hash, steps);
    }
    if changed {
        Merged::Changed(doc.to_string())
    } else {
        Merged::Unchanged
    }
}

/// `parent[key]` (`at`'s last key) as a table, made one (not inline) when
/// absent, which `steps` notes; `None` when it holds something else.
fn table<'a>(parent: &'a mut Table, at: &[&str], steps: &mut Vec<Step>) -> Option<&'a mut Table> {
    let key = at.last().copied().unwrap_or_default();
    if !parent.contains_key(key) {
        let mut new = Table::new();
        new.set_implicit(true);
        parent.insert(key, Item::Table(new));
        steps.push(Step::created(at));
    }
    parent.get_mut(key)?.as_table_mut()
}

/// Sets a string key (`at`'s last key), noted in `steps`; whether it changed.
fn set(table: &mut Table, at: &[&str], text: &str, steps: &mut Vec<Step>) -> bool {
    let key = at.last().copied().unwrap_or_default();
    let before = table.get(key);
    if before.and_then(Item::as_str) == Some(text) {
        return false;
    }
    // A value of another type is noted as null: undo leaves it to the person.
    let before = before.map(|b| b.as_str().map_or(Value::Null, |s| Value::String(s.into())));
    table.insert(key, value(text));
    steps.push(Step::new(at, before, Value::String(text.into())));
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seed_of() -> CodexSeed {
        CodexSeed {
            projects: vec!["/work/octo repo".into()],
            hooks: vec![(
                "/<session-flags>/config.toml:stop:0:0".into(),
                "sha256:ab".into(),
            )],
        }
    }

    #[test]
    fn the_users_keys_and_comments_stay_and_a_second_seed_changes_nothing() {
        let before =
            "# mine\nmodel = \"o3\"\n\n[projects.\"/other\"]\ntrust_level = \"untrusted\"\n";
        let Merged::Changed(after) = seed(Some(before.as_bytes()), &seed_of()) else {
            panic!("a change was due");
        };
        insta::assert_snapshot!(after);
        assert_eq!(seed(Some(after.as_bytes()), &seed_of()), Merged::Unchanged);
        let doc: DocumentMut = after.parse().unwrap();
        assert_eq!(
            doc["projects"]["/other"]["trust_level"].as_str(),
            Some("untrusted")
        );
    }

    #[test]
    fn a_file_that_is_not_toml_or_of_another_shape_is_left_alone() {
        for bad in ["model = ", "projects = 3\n", "[hooks]\nstate = \"x\"\n"] {
            assert!(
                matches!(seed(Some(bad.as_bytes()), &seed_of()), Merged::Refused(_)),
                "{bad}"
            );
        }
        let explicit = "check_for_update_on_startup = true\n";
        let Merged::Changed(after) = seed(Some(explicit.as_bytes()), &seed_of()) else {
            panic!("trust was due");
        };
        assert!(after.starts_with(explicit), "the user's own choice stays");
    }
}
