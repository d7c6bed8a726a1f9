//! Whether Claude Code's user config already holds a spawn's trust, read
//! once per content of the file, not once per spawn.
//!
//! Every spawn and respawn asks this before it would take the edit's turn
//! ([`super::prepare`]), and nearly always the answer is yes (the roll
//! before wrote it). The file grows with every project the harness has
//! opened (about 1 KB each: Claude Code 2.1.332 keeps its last session's
//! costs and durations there), so each of a roll's 500 respawns parsing a
//! file of 500 projects into a tree, to find one of them, made the roll's
//! cost grow with the square of the fleet. Here the file is scanned into a
//! [`TrustSummary`] (each project's two trust keys and the bypass key, the
//! rest skipped as it is read), and the summary is kept beside the bytes it
//! came from ([`super::content_memo`]): a respawn that reads the same bytes
//! asks the summary.
//!
//! The answer is sure or it is no. [`trust_holds`] says yes only when
//! [`super::seed::seed_trust`] would say [`super::seed::Merged::Unchanged`]
//! for those bytes; any doubt (a key the merge reads given twice, a shape
//! not expected, text that is not JSON) says no, and the caller then takes
//! its turn and merges the file in full, which decides and, when it must,
//! explains.

use super::content_memo::ContentMemo;
use super::seed::{TrustSeed, BYPASS_KEY, ONBOARDING_KEY, TRUST_KEY};
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde_json::Value;
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

/// Whether the user config `bytes` already hold every key `seed` sets.
pub fn trust_holds(bytes: &[u8], seed: &TrustSeed) -> bool {
    // The summary of the last content read: a roll's respawns read the
    // same file, unchanged between them.
    static LAST: ContentMemo<TrustSummary> = ContentMemo::new();
    LAST.read(bytes, TrustSummary::of)
        .is_some_and(|summary| summary.holds(seed))
}

/// What one user config says of trust: every project's two keys, and the
/// bypass key.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct TrustSummary {
    projects: HashMap<String, Project>,
    bypass_accepted: bool,
}

/// One entry of `projects`: whether each key the seed sets is `true`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Project {
    trust: bool,
    onboarding: bool,
}

impl TrustSummary {
    /// Reads `bytes`; `None` when unsure (see the module's doc).
    pub fn of(bytes: &[u8]) -> Option<TrustSummary> {
        let mut reader = serde_json::Deserializer::from_slice(bytes);
        let summary = Object(Root).deserialize(&mut reader).ok()?;
        reader.end().ok()?;
        Some(summary)
    }

    /// Whether `seed` would set nothing in the file this was read from.
    pub fn holds(&self, seed: &TrustSeed) -> bool {
        let has = |dir: &String, onboarding_too: bool| {
            self.projects
                .get(dir)
                .is_some_and(|p| p.trust && (p.onboarding || !onboarding_too))
        };
        (!seed.accept_bypass || self.bypass_accepted)
            && seed.exact.iter().all(|dir| has(dir, true))
            && seed.widened.iter().all(|dir| has(dir, false))
    }
}

/// Why a scan gave up: the caller merges the file in full instead.
fn unsure<E: de::Error>(why: &str) -> E {
    E::custom(why)
}

/// A key, borrowed from the file where it has no escapes.
struct Key<'de>(Cow<'de, str>);

impl<'de> de::Deserialize<'de> for Key<'de> {
    fn deserialize<D: de::Deserializer<'de>>(reader: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E: de::Error>(self, key: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(key)))
            }
            fn visit_str<E: de::Error>(self, key: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(key.to_owned())))
            }
        }
        reader.deserialize_str(KeyVisitor)
    }
}

/// Whether a value the merge reads is exactly `true` (these values are
/// small: read whole).
fn is_true<'de, A: MapAccess<'de>>(map: &mut A) -> Result<bool, A::Error> {
    Ok(map.next_value::<Value>()? == Value::Bool(true))
}

/// Each of `map`'s keys in turn, with `read` reading the values it wants
/// (`true`) and every other value skipped; a wanted key given twice is
/// unsure, since the merge keeps the last and this does not guess.
fn each_key<'de, A: MapAccess<'de>>(
    mut map: A,
    mut read: impl FnMut(&str, &mut A) -> Result<bool, A::Error>,
) -> Result<(), A::Error> {
    let mut seen: Vec<String> = Vec::new();
    while let Some(Key(key)) = map.next_key::<Key>()? {
        if read(&key, &mut map)? {
            if seen.iter().any(|k| *k == *key) {
                return Err(unsure("a key read twice"));
            }
            seen.push(key.into_owned());
        } else {
            map.next_value::<IgnoredAny>()?;
        }
    }
    Ok(())
}

/// An object read by one of this file's readers: the serde plumbing they
/// share, so each says only what it keeps.
trait ObjectReader {
    type Out;
    /// What the object is, for serde's messages (never shown: any error
    /// only makes the scan unsure).
    const WHAT: &'static str;
    fn read<'de, A: MapAccess<'de>>(self, map: A) -> Result<Self::Out, A::Error>;
}

/// Reads an object with `R`; anything else is an error (unsure).
struct Object<R>(R);

impl<'de, R: ObjectReader> DeserializeSeed<'de> for Object<R> {
    type Value = R::Out;
    fn deserialize<D: de::Deserializer<'de>>(self, reader: D) -> Result<R::Out, D::Error> {
        reader.deserialize_map(self)
    }
}

impl<'de, R: ObjectReader> Visitor<'de> for Object<R> {
    type Value = R::Out;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(R::WHAT)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<R::Out, A::Error> {
        self.0.read(map)
    }
}

/// The file's top level, whose `projects` and bypass key are read.
struct Root;

impl ObjectReader for Root {
    type Out = TrustSummary;
    const WHAT: &'static str = "a JSON object";
    fn read<'de, A: MapAccess<'de>>(self, map: A) -> Result<TrustSummary, A::Error> {
        let mut summary = TrustSummary::default();
        each_key(map, |key, map| {
            if key == "projects" {
                summary.projects = map.next_value_seed(Object(Projects))?;
            } else if key == BYPASS_KEY {
                summary.bypass_accepted = is_true(map)?;
            } else {
                return Ok(false);
            }
            Ok(true)
        })?;
        Ok(summary)
    }
}

/// `projects`: an object of projects, each read for its two keys.
struct Projects;

impl ObjectReader for Projects {
    type Out = HashMap<String, Project>;
    const WHAT: &'static str = "an object of projects";
    fn read<'de, A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Out, A::Error> {
        let mut projects = HashMap::new();
        while let Some(Key(dir)) = map.next_key::<Key>()? {
            let project = map.next_value_seed(Object(ProjectKeys))?;
            if projects.insert(dir.into_owned(), project).is_some() {
                return Err(unsure("a project given twice"));
            }
        }
        Ok(projects)
    }
}

/// One project: its two keys. A project that is not an object is unsure
/// (Claude Code never writes one; the merge refuses a seed that names it).
struct ProjectKeys;

impl ObjectReader for ProjectKeys {
    type Out = Project;
    const WHAT: &'static str = "a project";
    fn read<'de, A: MapAccess<'de>>(self, map: A) -> Result<Project, A::Error> {
        let (mut trust, mut onboarding) = (false, false);
        each_key(map, |key, map| {
            match key {
                TRUST_KEY => trust = is_true(map)?,
                ONBOARDING_KEY => onboarding = is_true(map)?,
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        Ok(Project { trust, onboarding })
    }
}

#[cfg(test)]
#[path = "seed_holds_tests.rs"]
mod tests;
