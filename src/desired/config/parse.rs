//! Reading the file into [`RawConfig`], going on past a mistake so that
//! every one is reported.
//!
//! serde stops at the first error. The first is taken from a parse of the
//! text itself, with its exact position. Then the document is read again
//! as a generic YAML value, the node at fault is taken out (the whole key
//! that holds it, so list indices stay true), and the rest is parsed
//! again; each later error is positioned by walking the text down its key
//! path (`locate`). What remains once nothing fails is the config the
//! semantic checks (`resolve`) run on, so a mistake there is reported
//! beside the type errors. A syntax error or a duplicate key stops it: the
//! document's shape is then not known, and a guess would report noise.

use super::de::Shared;
use super::error::{from_parse, Located, ProblemKind};
use super::locate::{locate, locate_key, Step};
use super::raw::RawConfig;

/// More than this is a file that is not a config at all; the list ends.
const MOST: usize = 50;

type ParseError = serde_path_to_error::Error<serde_yaml::Error>;

/// The parsed file, with each mistake found on the way pushed to
/// `mistakes`; `None` when it cannot be read on past them.
pub(super) fn parse(text: &str, mistakes: &mut Vec<Located>) -> Option<RawConfig> {
    let document = serde_yaml::Deserializer::from_str(text);
    let first: ParseError = match serde_path_to_error::deserialize(document) {
        Ok(Shared(raw)) => return Some(raw),
        Err(error) => error,
    };
    let located = from_parse(&first);
    let stop = matches!(
        located.kind,
        ProblemKind::Syntax | ProblemKind::DuplicateKey
    );
    mistakes.push(located);
    if stop {
        return None;
    }
    let mut value: serde_yaml::Value = serde_yaml::from_str(text).ok()?;
    let mut at = steps(first.path())?;
    for _ in 0..MOST {
        if !prune(&mut value, &at) {
            return None;
        }
        let error: ParseError = match serde_path_to_error::deserialize(value.clone()) {
            Ok(Shared(raw)) => return Some(raw),
            Err(error) => error,
        };
        let mut located = from_parse(&error);
        at = steps(error.path())?;
        let found = match located.kind {
            ProblemKind::UnknownKey => locate_key(text, &at),
            _ => locate(text, &at),
        };
        (located.line, located.column) = found.unwrap_or((1, 1));
        mistakes.push(located);
    }
    None
}

/// serde_path_to_error's path as steps; `None` for a segment that is not
/// a key or an index (nothing to take out).
fn steps(path: &serde_path_to_error::Path) -> Option<Vec<Step>> {
    path.iter()
        .map(|segment| match segment {
            serde_path_to_error::Segment::Map { key } => Some(Step::key(key)),
            serde_path_to_error::Segment::Seq { index } => Some(Step::Index(*index)),
            _ => None,
        })
        .collect()
}

/// Takes out the key that holds the node at `at` (its last key step, so a
/// bad list item takes its whole list). False when there is none to take.
fn prune(value: &mut serde_yaml::Value, at: &[Step]) -> bool {
    let Some(last_key) = at.iter().rposition(|step| matches!(step, Step::Key(_))) else {
        return false;
    };
    let mut node = value;
    for step in &at[..last_key] {
        node = match (step, node) {
            (Step::Key(key), serde_yaml::Value::Mapping(map)) => match map.get_mut(key.as_str()) {
                Some(next) => next,
                None => return false,
            },
            (Step::Index(index), serde_yaml::Value::Sequence(items)) => {
                match items.get_mut(*index) {
                    Some(next) => next,
                    None => return false,
                }
            }
            _ => return false,
        };
    }
    let (Step::Key(key), serde_yaml::Value::Mapping(map)) = (&at[last_key], node) else {
        return false;
    };
    map.remove(key.as_str()).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys_of(text: &str) -> Vec<(usize, String)> {
        let mut mistakes = Vec::new();
        let _ = parse(text, &mut mistakes);
        mistakes.into_iter().map(|m| (m.line, m.key)).collect()
    }

    #[test]
    fn every_type_error_and_unknown_key_is_found() {
        let text =
            "env:\n  colour: 1\n  deliver: [[X]]\nrouting:\n  tmux:\n    remainOnExit: maybe\n";
        assert_eq!(
            keys_of(text),
            vec![
                (2, "env.colour".to_owned()),
                (3, "env.deliver[0]".to_owned()),
                (6, "routing.tmux.remainOnExit".to_owned()),
            ]
        );
    }

    #[test]
    fn a_syntax_error_stops_the_list() {
        assert_eq!(keys_of("env: {\ninstance: 3\n").len(), 1);
    }

    #[test]
    fn a_document_that_is_not_a_mapping_is_one_mistake() {
        assert_eq!(keys_of("- a\n- b\n").len(), 1);
    }
}
