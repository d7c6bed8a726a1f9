//! The fix each config mistake names when its check gave none: what to
//! write instead, in words about the key and its type, never the value
//! found.

/// What kind of mistake a config holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProblemKind {
    /// A key no part of the-loop reads at this place.
    UnknownKey,
    /// A key given twice in one mapping.
    DuplicateKey,
    /// A value of the wrong shape (a string where a boolean belongs...).
    WrongType,
    /// A value of the right shape that is not allowed (a negative duration,
    /// a malformed name...).
    InvalidValue,
    /// Two keys that contradict each other.
    Conflict,
    /// The file is not well-formed YAML.
    Syntax,
}

/// How to fix a mistake whose check gave no help of its own: every config
/// error says what to write instead, in words about the key's type, never
/// the value found.
pub(super) fn fix_for(key: &str, kind: ProblemKind, problem: &str) -> Option<String> {
    const EXAMPLE: &str = "examples/cli-config.yaml shows every key with a comment";
    Some(match kind {
        ProblemKind::WrongType => {
            let expected = problem.strip_prefix("expected ").unwrap_or(problem);
            format!("{key} takes {expected}: {}", how_to_write(expected))
        }
        ProblemKind::InvalidValue => match problem.strip_prefix("expected ") {
            Some(wanted) => format!("set {key} to {wanted}, or remove it to take its default"),
            None => format!("change {key}, or remove it to take its default; {EXAMPLE}"),
        },
        ProblemKind::UnknownKey => format!("remove it, or check its spelling; {EXAMPLE}"),
        ProblemKind::DuplicateKey => "keep one of the two and remove the other".into(),
        ProblemKind::Syntax => {
            "check the indentation and the quotes at this line and the one before it".into()
        }
        ProblemKind::Conflict => return None,
    })
}

/// What a value of the type `expected` (the words `error::friendly` gives)
/// looks like in YAML.
fn how_to_write(expected: &str) -> &'static str {
    match expected {
        "a boolean" => "write `true` or `false`, unquoted",
        "a number" => "write a number, unquoted (`5`, `0.5`)",
        "a port from 1 to 65535" => "write a whole number from 1 to 65535, unquoted",
        "a list" | "a list of names" => {
            "write a list: `[A, B]` on the same line, or one `- item` per line below the key"
        }
        "a mapping" => "write the keys it holds on the lines below it, indented",
        "a boolean or a mapping" => {
            "write `true` or `false`, or the keys it holds on the lines below it, indented"
        }
        "a string" => {
            "write text; quote it when it could read as another type (`\"5\"`, `\"true\"`)"
        }
        _ => "write a value of that type here",
    }
}
