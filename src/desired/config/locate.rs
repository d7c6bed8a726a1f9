//! Finds where a node sits in the YAML text, for mistakes found after parsing.
//!
//! Checks that span keys (a name in two lists) or that must not quote what
//! they check (a malformed variable name) run on the parsed values, where
//! yaml_serde's positions are gone. This walks the document again down a
//! known key path and makes yaml_serde raise an error on the node at its end:
//! the error carries the node's line and column, and nothing else of it is used.

use super::error::printable_key;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use std::fmt;
use std::fmt::Write as _;

/// One step down a key path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Step {
    Key(String),
    Index(usize),
}

impl Step {
    pub fn key(name: &str) -> Step {
        Step::Key(name.to_owned())
    }
}

/// `env.sessionPassthrough[2]`. A key that does not look like one is shown
/// as `?` (see `error::printable_key`).
pub(super) fn dotted(steps: &[Step]) -> String {
    let mut out = String::new();
    for step in steps {
        match step {
            Step::Key(key) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(if printable_key(key) { key } else { "?" });
            }
            Step::Index(index) => {
                let _ = write!(out, "[{index}]");
            }
        }
    }
    out
}

/// The 1-based line and column where the node at `steps` starts, if it exists.
pub(super) fn locate(text: &str, steps: &[Step]) -> Option<(usize, usize)> {
    let document = serde_yaml::Deserializer::from_str(text);
    match (Walk { steps, key: false }).deserialize(document) {
        Ok(()) => None,
        // Only the error raised on the target counts: one raised on the way
        // (a scalar where the path goes on) means the node is not there.
        Err(error) if error.to_string().contains(TARGET_EXPECTS) => {
            error.location().map(|at| (at.line(), at.column()))
        }
        Err(_) => None,
    }
}

/// Like [`locate`], for a mapping key itself (`steps` ends with it) rather
/// than the value under it: where an unknown key is reported.
pub(super) fn locate_key(text: &str, steps: &[Step]) -> Option<(usize, usize)> {
    let document = serde_yaml::Deserializer::from_str(text);
    match (Walk { steps, key: true }).deserialize(document) {
        Ok(()) => None,
        Err(error) if error.to_string().contains(TARGET_EXPECTS) => {
            error.location().map(|at| (at.line(), at.column()))
        }
        Err(_) => None,
    }
}

const TARGET_EXPECTS: &str = "expected the located node";

/// The steps still to take; with `key`, the last one is a key to stop on.
struct Walk<'s> {
    steps: &'s [Step],
    key: bool,
}

impl<'de> DeserializeSeed<'de> for Walk<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        match self.steps {
            [] => deserializer.deserialize_any(Target),
            _ => deserializer.deserialize_any(self),
        }
    }
}

impl<'de> Visitor<'de> for Walk<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a mapping or a list")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let [Step::Key(wanted), rest @ ..] = self.steps else {
            return Ok(());
        };
        let on_key = self.key && rest.is_empty();
        while let Some(key) = map.next_key_seed(KeyTarget {
            wanted: on_key.then_some(wanted.as_str()),
        })? {
            if key == *wanted {
                let rest = Walk {
                    steps: rest,
                    key: self.key,
                };
                return map.next_value_seed(rest);
            }
            map.next_value::<IgnoredAny>()?;
        }
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let [Step::Index(wanted), rest @ ..] = self.steps else {
            return Ok(());
        };
        for _ in 0..*wanted {
            if seq.next_element::<IgnoredAny>()?.is_none() {
                return Ok(());
            }
        }
        let rest = Walk {
            steps: rest,
            key: self.key,
        };
        seq.next_element_seed(rest).map(|_| ())
    }
}

/// Reads a mapping key; raises the located error on the key `wanted`, so
/// yaml_serde positions it at the key.
struct KeyTarget<'s> {
    wanted: Option<&'s str>,
}

impl<'de> DeserializeSeed<'de> for KeyTarget<'_> {
    type Value = String;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<String, D::Error> {
        let key = String::deserialize(deserializer)?;
        match self.wanted {
            Some(wanted) if key == wanted => Err(serde::de::Error::custom(TARGET_EXPECTS)),
            _ => Ok(key),
        }
    }
}

/// Implements no visit, so yaml_serde raises "invalid type" on the very node
/// it hands over, positioned at it.
struct Target;

impl<'de> Visitor<'de> for Target {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&TARGET_EXPECTS["expected ".len()..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "env:\n  credentials: [A, B]\n  deliver:\n    - C\n    - D\n";

    #[test]
    fn finds_list_items_and_keys() {
        let at = |steps: &[Step]| locate(TEXT, steps);
        let deliver = [Step::key("env"), Step::key("deliver"), Step::Index(1)];
        assert_eq!(at(&deliver), Some((5, 7)));
        let credentials = [Step::key("env"), Step::key("credentials"), Step::Index(1)];
        assert_eq!(at(&credentials), Some((2, 20)));
    }

    #[test]
    fn a_missing_node_has_no_position() {
        assert_eq!(locate(TEXT, &[Step::key("routing")]), None);
        let past_end = [Step::key("env"), Step::key("deliver"), Step::Index(9)];
        assert_eq!(locate(TEXT, &past_end), None);
    }

    #[test]
    fn finds_a_key_itself() {
        let text = "env:\n  deliver:\n    - C\n";
        let at = [Step::key("env"), Step::key("deliver")];
        assert_eq!(locate_key(text, &at), Some((2, 3)));
        assert_eq!(locate(text, &at), Some((3, 5)));
        assert_eq!(locate_key(text, &[Step::key("nope")]), None);
    }

    #[test]
    fn paths_are_dotted() {
        let steps = [Step::key("env"), Step::key("deliver"), Step::Index(2)];
        assert_eq!(dotted(&steps), "env.deliver[2]");
    }
}
