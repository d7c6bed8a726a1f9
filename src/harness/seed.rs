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

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// The marketplace name and the plugin id the-loop registers.
pub const MARKETPLACE: &str = "the-loop";
pub const PLUGIN: &str = "the-loop@the-loop";

pub const TRUST_KEY: &str = "hasTrustDialogAccepted";
pub const ONBOARDING_KEY: &str = "hasCompletedProjectOnboarding";
pub const BYPASS_KEY: &str = "bypassPermissionsModeAccepted";

/// One key a seed set, for the ledger ([`super::ledger`]): its path from
/// the file's root, what it held before (`None`: absent), what it holds now.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    pub path: Vec<String>,
    pub before: Option<Value>,
    pub set: Value,
}

impl Step {
    pub fn new(path: &[&str], before: Option<Value>, set: Value) -> Step {
        Step {
            path: path.iter().map(|k| k.to_string()).collect(),
            before,
            set,
        }
    }

    /// A table or object the seed created.
    pub fn created(path: &[&str]) -> Step {
        Step::new(path, None, Value::Object(Map::new()))
    }

    /// The file itself, which the seed created.
    pub fn created_file() -> Step {
        Step::created(&[])
    }

    /// The key as a person finds it: `projects["/w/repo"].hasTrustDialogAccepted`;
    /// empty for the file itself.
    pub fn key(&self) -> String {
        let mut out = String::new();
        for (i, key) in self.path.iter().enumerate() {
            let plain = !key.is_empty()
                && key
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
            match (i, plain) {
                (0, true) => out.push_str(key),
                (_, true) => out.push_str(&format!(".{key}")),
                (_, false) => out.push_str(&format!("[{key:?}]")),
            }
        }
        out
    }
}

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

/// The object under `key` (at `at`, its path from the root), created when
/// absent, which `steps` notes; `Err` when it is something else.
fn object_at<'a>(
    map: &'a mut Map<String, Value>,
    at: &[&str],
    path: &str,
    steps: &mut Vec<Step>,
) -> Result<&'a mut Map<String, Value>, String> {
    let key = at.last().copied().unwrap_or_default();
    if !map.contains_key(key) {
        steps.push(Step::created(at));
    }
    let entry = map
        .entry(key.to_owned())
        .or_insert_with(|| Value::Object(Map::new()));
    entry
        .as_object_mut()
        .ok_or_else(|| format!("{path} is not a JSON object"))
}

/// Sets the key at `at` (in `map`, its parent) to `true` unless it already
/// is, noted in `steps`; returns whether it changed.
fn ensure_true(map: &mut Map<String, Value>, at: &[&str], steps: &mut Vec<Step>) -> bool {
    let key = at.last().copied().unwrap_or_default();
    if map.get(key) == Some(&Value::Bool(true)) {
        return false;
    }
    let before = map.insert(key.to_owned(), Value::Bool(true));
    steps.push(Step::new(at, before, Value::Bool(true)));
    true
}

fn render(map: Map<String, Value>) -> String {
    let mut text = serde_json::to_string_pretty(&Value::Object(map)).expect("JSON serialises");
    text.push('\n');
    text
}

/// The user config (`.claude.json`) with `seed` applied.
pub fn seed_trust(existing: Option<&[u8]>, seed: &TrustSeed) -> Merged {
    seed_trust_noted(existing, seed).0
}

/// [`seed_trust`], and the keys it set ([`super::ledger`]).
pub fn seed_trust_noted(existing: Option<&[u8]>, seed: &TrustSeed) -> (Merged, Vec<Step>) {
    let mut steps = Vec::new();
    let merged = trust_into(existing, seed, &mut steps);
    (merged, steps)
}

fn trust_into(existing: Option<&[u8]>, seed: &TrustSeed, steps: &mut Vec<Step>) -> Merged {
    let mut root = match parse_object(existing) {
        Ok(root) => root,
        Err(why) => return Merged::Refused(why),
    };
    let mut changed = false;
    if !seed.exact.is_empty() || !seed.widened.is_empty() {
        let projects = match object_at(&mut root, &["projects"], "projects", steps) {
            Ok(projects) => projects,
            Err(why) => return Merged::Refused(why),
        };
        let wants = seed
            .exact
            .iter()
            .map(|d| (d, true))
            .chain(seed.widened.iter().map(|d| (d, false)));
        for (dir, exact) in wants {
            let at = ["projects", dir.as_str()];
            let project = match object_at(projects, &at, &format!("projects[{dir:?}]"), steps) {
                Ok(project) => project,
                Err(why) => return Merged::Refused(why),
            };
            changed |= ensure_true(project, &["projects", dir, TRUST_KEY], steps);
            if exact {
                changed |= ensure_true(project, &["projects", dir, ONBOARDING_KEY], steps);
            }
        }
    }
    if seed.accept_bypass {
        changed |= ensure_true(&mut root, &[BYPASS_KEY], steps);
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
    seed_plugin_noted(existing, marketplace_repo).0
}

/// [`seed_plugin`], and the keys it set ([`super::ledger`]).
pub fn seed_plugin_noted(existing: Option<&[u8]>, marketplace_repo: &str) -> (Merged, Vec<Step>) {
    let mut steps = Vec::new();
    let merged = plugin_into(existing, marketplace_repo, &mut steps);
    (merged, steps)
}

fn plugin_into(existing: Option<&[u8]>, marketplace_repo: &str, steps: &mut Vec<Step>) -> Merged {
    let mut root = match parse_object(existing) {
        Ok(root) => root,
        Err(why) => return Merged::Refused(why),
    };
    let mut changed = false;
    if !marketplace_repo.is_empty() {
        let at = ["extraKnownMarketplaces"];
        let marketplaces = match object_at(&mut root, &at, at[0], steps) {
            Ok(m) => m,
            Err(why) => return Merged::Refused(why),
        };
        if !marketplaces.contains_key(MARKETPLACE) {
            let source =
                serde_json::json!({"source": {"source": "github", "repo": marketplace_repo}});
            marketplaces.insert(MARKETPLACE.into(), source.clone());
            steps.push(Step::new(&[at[0], MARKETPLACE], None, source));
            changed = true;
        }
    }
    let enabled = match object_at(&mut root, &["enabledPlugins"], "enabledPlugins", steps) {
        Ok(e) => e,
        Err(why) => return Merged::Refused(why),
    };
    if !enabled.contains_key(PLUGIN) {
        enabled.insert(PLUGIN.into(), Value::Bool(true));
        steps.push(Step::new(
            &["enabledPlugins", PLUGIN],
            None,
            Value::Bool(true),
        ));
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
#[path = "seed_tests.rs"]
mod tests;
