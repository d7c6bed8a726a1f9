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
    if !doc.contains_key("check_for_update_on_startup") {
        doc["check_for_update_on_startup"] = value(false);
        changed = true;
    }
    for dir in &seed.projects {
        let Some(projects) = table(doc.as_table_mut(), "projects") else {
            return Merged::Refused("its `projects` is not a table".into());
        };
        let Some(project) = table(projects, dir) else {
            return Merged::Refused("a `projects` entry is not a table".into());
        };
        changed |= set(project, "trust_level", "trusted");
    }
    for (key, hash) in &seed.hooks {
        let Some(hooks) = table(doc.as_table_mut(), "hooks") else {
            return Merged::Refused("its `hooks` is not a table".into());
        };
        let Some(state) = table(hooks, "state") else {
            return Merged::Refused("its `hooks.state` is not a table".into());
        };
        let Some(entry) = table(state, key) else {
            return Merged::Refused("a `hooks.state` entry is not a table".into());
        };
        changed |= set(entry, "trusted_hash", hash);
    }
    if changed {
        Merged::Changed(doc.to_string())
    } else {
        Merged::Unchanged
    }
}

/// `parent[key]` as a table, made one (not inline) when absent; `None`
/// when it holds something else.
fn table<'a>(parent: &'a mut Table, key: &str) -> Option<&'a mut Table> {
    if !parent.contains_key(key) {
        let mut new = Table::new();
        new.set_implicit(true);
        parent.insert(key, Item::Table(new));
    }
    parent.get_mut(key)?.as_table_mut()
}

/// Sets a string key; whether it changed.
fn set(table: &mut Table, key: &str, text: &str) -> bool {
    if table.get(key).and_then(Item::as_str) == Some(text) {
        return false;
    }
    table.insert(key, value(text));
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
