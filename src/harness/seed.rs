//! The harness's own config files, edited as data: pure functions from the
//! text a file holds now to the text it should hold, touching only the keys
//! the-loop owns and merging into everything else.
//!
//! - Trust lives in Claude Code's user config (`.claude.json`):
//!   `projects[<dir>].hasTrustDialogAccepted` and
//!   `projects[<dir>].hasCompletedProjectOnboarding`, plus the top-level
//!   `bypassPermissionsModeAccepted` for the bypass-mode disclaimer. A trust
//!   key the harness wrote as `false` (it does so before asking) becomes `true`:
//!   asking is exactly what the-loop must prevent.
//! - The plugin lives in `<config dir>/settings.json`:
//!   `extraKnownMarketplaces["the-loop"]` and `enabledPlugins["the-loop@the-loop"]`.
//!   These are the operator's choices once present: an existing value is never
//!   changed, so a marketplace of their own keeps pointing where it points and
//!   a plugin they disabled stays disabled.
//!
//! A file that is not a JSON object, or a key on the way that is not an
//! object, is refused: the-loop never rewrites what it does not understand.

use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// The marketplace name and the plugin id the-loop registers.
pub const MARKETPLACE: &str = "the-loop";
pub const PLUGIN: &str = "the-loop@the-loop";

pub const TRUST_KEY: &str = "hasTrustDialogAccepted";
pub const ONBOARDING_KEY: &str = "hasCompletedProjectOnboarding";
pub const BYPASS_KEY: &str = "bypassPermissionsModeAccepted";

/// What a merge decided for one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Merged {
    /// Every key already holds what it should: nothing is written.
    Unchanged,
    /// The file's new text.
    Changed(String),
    /// Left alone, and why (never the file's content).
    Refused(String),
}

/// The trust a spawn needs in the user config.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustSeed {
    /// Directories that get both the trust and the onboarding key: the spawn
    /// directory, as given and as its real path. The harness reads these
    /// from the exact project key, without walking ancestors.
    pub exact: Vec<String>,
    /// Directories that get the trust key only (the workspace root), which
    /// the harness's ancestor walk extends to every checkout below it.
    pub widened: Vec<String>,
    /// Record the bypass-permissions disclaimer as accepted.
    pub accept_bypass: bool,
}

impl TrustSeed {
    /// Every directory this seed trusts, in order, without repeats.
    pub fn directories(&self) -> Vec<String> {
        let mut all: Vec<String> = Vec::new();
        for dir in self.exact.iter().chain(&self.widened) {
            if !all.contains(dir) {
                all.push(dir.clone());
            }
        }
        all
    }
}

/// Parses the file's bytes into its top-level object; `None` (no file) is an
/// empty object.
fn parse_object(existing: Option<&[u8]>) -> Result<Map<String, Value>, String> {
    let Some(bytes) = existing else {
        return Ok(Map::new());
    };
    match serde_json::from_slice::<Value>(bytes) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err("the file holds JSON that is not an object".into()),
        Err(e) => Err(format!(
            "the file is not JSON (line {}, column {})",
            e.line(),
            e.column()
        )),
    }
}

/// The object under `key`, created when absent; `Err` when it is something else.
fn object_at<'a>(
    map: &'a mut Map<String, Value>,
    key: &str,
    path: &str,
) -> Result<&'a mut Map<String, Value>, String> {
    let entry = map
        .entry(key.to_owned())
        .or_insert_with(|| Value::Object(Map::new()));
    entry
        .as_object_mut()
        .ok_or_else(|| format!("{path} is not a JSON object"))
}

/// Sets `key` to `true` unless it already is; returns whether it changed.
fn ensure_true(map: &mut Map<String, Value>, key: &str) -> bool {
    if map.get(key) == Some(&Value::Bool(true)) {
        return false;
    }
    map.insert(key.to_owned(), Value::Bool(true));
    true
}

fn render(map: Map<String, Value>) -> String {
    let mut text = serde_json::to_string_pretty(&Value::Object(map)).expect("JSON serialises");
    text.push('\n');
    text
}

/// The user config (`.claude.json`) with `seed` applied.
pub fn seed_trust(existing: Option<&[u8]>, seed: &TrustSeed) -> Merged {
    let mut root = match parse_object(existing) {
        Ok(root) => root,
        Err(why) => return Merged::Refused(why),
    };
    let mut changed = false;
    if !seed.exact.is_empty() || !seed.widened.is_empty() {
        let projects = match object_at(&mut root, "projects", "projects") {
            Ok(projects) => projects,
            Err(why) => return Merged::Refused(why),
        };
        let wants = seed
            .exact
            .iter()
            .map(|d| (d, true))
            .chain(seed.widened.iter().map(|d| (d, false)));
        for (dir, exact) in wants {
            let project = match object_at(projects, dir, &format!("projects[{dir:?}]")) {
                Ok(project) => project,
                Err(why) => return Merged::Refused(why),
            };
            changed |= ensure_true(project, TRUST_KEY);
            if exact {
                changed |= ensure_true(project, ONBOARDING_KEY);
            }
        }
    }
    if seed.accept_bypass {
        changed |= ensure_true(&mut root, BYPASS_KEY);
    }
    if changed {
        Merged::Changed(render(root))
    } else {
        Merged::Unchanged
    }
}

/// The user settings (`settings.json`) with the-loop's plugin registered and
/// enabled, unless the operator already decided either. An empty
/// `marketplace_repo` registers no marketplace.
pub fn seed_plugin(existing: Option<&[u8]>, marketplace_repo: &str) -> Merged {
    let mut root = match parse_object(existing) {
        Ok(root) => root,
        Err(why) => return Merged::Refused(why),
    };
    let mut changed = false;
    if !marketplace_repo.is_empty() {
        let marketplaces = match object_at(
            &mut root,
            "extraKnownMarketplaces",
            "extraKnownMarketplaces",
        ) {
            Ok(m) => m,
            Err(why) => return Merged::Refused(why),
        };
        if !marketplaces.contains_key(MARKETPLACE) {
            marketplaces.insert(
                MARKETPLACE.into(),
                serde_json::json!({"source": {"source": "github", "repo": marketplace_repo}}),
            );
            changed = true;
        }
    }
    let enabled = match object_at(&mut root, "enabledPlugins", "enabledPlugins") {
        Ok(e) => e,
        Err(why) => return Merged::Refused(why),
    };
    if !enabled.contains_key(PLUGIN) {
        enabled.insert(PLUGIN.into(), Value::Bool(true));
        changed = true;
    }
    if changed {
        Merged::Changed(render(root))
    } else {
        Merged::Unchanged
    }
}

/// Whether these harness arguments ask for bypass mode.
pub fn asks_for_bypass(harness_args: &[String]) -> bool {
    harness_args.iter().enumerate().any(|(i, arg)| {
        arg == "--dangerously-skip-permissions"
            || arg == "--permission-mode=bypassPermissions"
            || (arg == "--permission-mode"
                && harness_args.get(i + 1).map(String::as_str) == Some("bypassPermissions"))
    })
}

/// A spawn directory as the harness may name it: its absolute form and,
/// when different, its real path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirForms {
    pub absolute: PathBuf,
    pub real: Option<PathBuf>,
}

impl DirForms {
    fn all(&self) -> impl Iterator<Item = &Path> {
        std::iter::once(self.absolute.as_path()).chain(self.real.as_deref())
    }

    fn contains(&self, other: &DirForms) -> bool {
        self.all()
            .any(|root| other.all().any(|dir| dir.starts_with(root)))
    }

    fn is_any_of(&self, paths: &[&Path]) -> bool {
        self.all().any(|p| paths.contains(&p))
    }

    /// The forms as JSON keys; a path that is not UTF-8 cannot be one.
    fn keys(&self) -> Result<Vec<String>, String> {
        let mut keys: Vec<String> = Vec::new();
        for path in self.all() {
            let key = path
                .to_str()
                .ok_or_else(|| format!("{} is not valid UTF-8", path.display()))?;
            if !keys.iter().any(|k| k == key) {
                keys.push(key.to_owned());
            }
        }
        Ok(keys)
    }
}

/// Which directories to trust for a spawn in `dir`. The workspace root is
/// added (trust key only) under the workspace-root scope, unless it does not
/// contain the directory or is as broad as `/` or the home directory.
pub fn trust_seed(
    dir: &DirForms,
    widen_to: Option<&DirForms>,
    home: Option<&DirForms>,
    accept_bypass: bool,
) -> Result<TrustSeed, String> {
    let exact = dir.keys()?;
    let mut too_broad: Vec<&Path> = vec![Path::new("/")];
    too_broad.extend(home.into_iter().flat_map(DirForms::all));
    let widened = match widen_to {
        Some(root) if root.contains(dir) && !root.is_any_of(&too_broad) => root
            .keys()?
            .into_iter()
            .filter(|k| !exact.contains(k))
            .collect(),
        _ => Vec::new(),
    };
    Ok(TrustSeed {
        exact,
        widened,
        accept_bypass,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(merged: &Merged) -> &str {
        match merged {
            Merged::Changed(text) => text,
            other => panic!("expected a change, got {other:?}"),
        }
    }

    fn seed(exact: &[&str], widened: &[&str], bypass: bool) -> TrustSeed {
        TrustSeed {
            exact: exact.iter().map(|s| s.to_string()).collect(),
            widened: widened.iter().map(|s| s.to_string()).collect(),
            accept_bypass: bypass,
        }
    }

    #[test]
    fn trust_in_a_fresh_file() {
        let merged = seed_trust(None, &seed(&["/w/repo"], &["/w"], false));
        insta::assert_snapshot!(text(&merged));
    }

    #[test]
    fn trust_merges_into_existing_keys() {
        let existing = br#"{
  "numStartups": 42,
  "theme": "dark",
  "projects": {
    "/w/repo": {"allowedTools": ["Bash"], "hasTrustDialogAccepted": false, "history": [1, 2]},
    "/elsewhere": {"hasTrustDialogAccepted": true}
  }
}"#;
        let merged = seed_trust(Some(existing), &seed(&["/w/repo"], &["/w"], true));
        insta::assert_snapshot!(text(&merged));
    }

    #[test]
    fn trust_already_in_place_writes_nothing() {
        let first = seed_trust(None, &seed(&["/w/repo", "/real/repo"], &["/w"], true));
        let again = seed_trust(
            Some(text(&first).as_bytes()),
            &seed(&["/w/repo", "/real/repo"], &["/w"], true),
        );
        assert_eq!(again, Merged::Unchanged);
    }

    #[test]
    fn the_workspace_root_gets_trust_but_not_onboarding() {
        let merged = seed_trust(None, &seed(&["/w/repo"], &["/w"], false));
        let value: Value = serde_json::from_str(text(&merged)).unwrap();
        assert_eq!(value["projects"]["/w"][TRUST_KEY], true);
        assert!(value["projects"]["/w"].get(ONBOARDING_KEY).is_none());
        assert_eq!(value["projects"]["/w/repo"][ONBOARDING_KEY], true);
        assert!(value.get(BYPASS_KEY).is_none(), "bypass only when asked");
    }

    #[test]
    fn a_file_that_is_not_a_json_object_is_left_alone() {
        let cases: [(&str, &[u8]); 5] = [
            ("not json", b"{ this is not json"),
            ("array", b"[1, 2]"),
            ("empty", b""),
            ("projects not an object", br#"{"projects": []}"#),
            (
                "project entry not an object",
                br#"{"projects": {"/w/repo": true}}"#,
            ),
        ];
        let reasons: Vec<(&str, Merged)> = cases
            .iter()
            .map(|(name, bytes)| {
                (
                    *name,
                    seed_trust(Some(bytes), &seed(&["/w/repo"], &[], false)),
                )
            })
            .collect();
        insta::assert_debug_snapshot!(reasons);
    }

    #[test]
    fn plugin_in_a_fresh_file() {
        let merged = seed_plugin(None, "MadaraUchiha-314/the-loop");
        insta::assert_snapshot!(text(&merged));
    }

    #[test]
    fn plugin_keeps_existing_keys_and_the_operators_choices() {
        let existing = br#"{
  "model": "opus",
  "permissions": {"allow": ["Bash(ls:*)"]},
  "extraKnownMarketplaces": {"the-loop": {"source": {"source": "github", "repo": "fork/the-loop"}}},
  "enabledPlugins": {"other@market": true}
}"#;
        let merged = seed_plugin(Some(existing), "MadaraUchiha-314/the-loop");
        insta::assert_snapshot!(text(&merged));
    }

    #[test]
    fn a_disabled_plugin_stays_disabled() {
        let existing = br#"{
  "extraKnownMarketplaces": {"the-loop": {"source": {"source": "github", "repo": "MadaraUchiha-314/the-loop"}}},
  "enabledPlugins": {"the-loop@the-loop": false}
}"#;
        assert_eq!(
            seed_plugin(Some(existing), "MadaraUchiha-314/the-loop"),
            Merged::Unchanged
        );
    }

    #[test]
    fn plugin_refuses_non_objects() {
        assert_eq!(
            seed_plugin(Some(b"null"), "o/r"),
            Merged::Refused("the file holds JSON that is not an object".into())
        );
        assert_eq!(
            seed_plugin(Some(br#"{"enabledPlugins": ["x"]}"#), "o/r"),
            Merged::Refused("enabledPlugins is not a JSON object".into())
        );
    }

    #[test]
    fn bypass_is_read_from_the_harness_arguments() {
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(asks_for_bypass(&args(&["--dangerously-skip-permissions"])));
        assert!(asks_for_bypass(&args(&[
            "--permission-mode",
            "bypassPermissions"
        ])));
        assert!(asks_for_bypass(&args(&[
            "--permission-mode=bypassPermissions"
        ])));
        assert!(!asks_for_bypass(&args(&["--permission-mode", "plan"])));
        assert!(!asks_for_bypass(&args(&[
            "--allow-dangerously-skip-permissions"
        ])));
        assert!(!asks_for_bypass(&[]));
    }

    fn forms(absolute: &str, real: Option<&str>) -> DirForms {
        DirForms {
            absolute: absolute.into(),
            real: real.map(PathBuf::from),
        }
    }

    #[test]
    fn which_directories_are_trusted() {
        let home = forms("/home/op", Some("/data/home/op"));
        let dir = forms("/w/link/repo", Some("/data/w/repo"));
        let cases = [
            ("no root", None),
            ("root contains it", Some(forms("/w", None))),
            ("root contains its real path", Some(forms("/data/w", None))),
            ("root elsewhere", Some(forms("/other", None))),
            ("root is /", Some(forms("/", None))),
            ("root is home", Some(forms("/home/op", None))),
            (
                "root is home's real path",
                Some(forms("/data/home/op", None)),
            ),
            ("root is the directory", Some(forms("/w/link/repo", None))),
        ];
        let seeds: Vec<(&str, TrustSeed)> = cases
            .into_iter()
            .map(|(name, root)| {
                (
                    name,
                    trust_seed(&dir, root.as_ref(), Some(&home), false).unwrap(),
                )
            })
            .collect();
        insta::assert_debug_snapshot!(seeds);
    }
}
