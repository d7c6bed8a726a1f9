//! Config errors, and the translation of parser errors into them.
//!
//! serde's messages quote the offending value (`invalid type: string
//! "hunter2", expected a boolean`), and a config line may hold a pasted
//! secret. So no parser message is ever passed on as it is: only the parts
//! that come from this crate's own types are kept (the expectation after the
//! last `, expected `, and declared key names), and the position is reported
//! as file, line, column and dotted key. Diagnostics carry no source snippet
//! for the same reason.

use std::fmt::Write as _;
use std::path::PathBuf;

pub use super::fix::ProblemKind;

#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum ConfigError {
    #[error("no cli-config.yaml found (looked at: {looked})")]
    #[diagnostic(
        code(the_loop::config::not_found),
        help(
            "pass --config PATH, set THE_LOOP_CLI_CONFIG, or create one of those files; {CREATE}"
        )
    )]
    NotFound { looked: String },

    /// `path` is the path tried (`--config`'s, `$THE_LOOP_CLI_CONFIG`'s,
    /// made absolute).
    #[error("cannot read config {path}: {}", crate::fsutil::IoKind(*.kind))]
    #[diagnostic(code(the_loop::config::read), help("{}", read_help(*kind)))]
    Read {
        path: PathBuf,
        kind: std::io::ErrorKind,
    },

    /// Not a regular file (a FIFO, a device), or over its size cap: refused
    /// without reading it. `reason` names kinds and sizes only.
    #[error("cannot read config {path}: {reason}")]
    #[diagnostic(code(the_loop::config::refused))]
    Refused { path: PathBuf, reason: String },

    /// Another user owns the config, or others can write it: whoever can
    /// write it chooses what the-loop runs (`routing.harnessBinary`).
    #[error("config {path} is not yours alone: it is {refusal}")]
    #[diagnostic(code(the_loop::config::not_yours), help("{}", refusal.help(path)))]
    NotYours {
        path: PathBuf,
        refusal: crate::fsutil::owner::NotYours,
    },

    /// The state root (`state.root`, or the config's directory) is another
    /// user's, or others can write it: they could plant records there.
    #[error("state root {path} (state.root in {config}) is not yours alone: it is {refusal}")]
    #[diagnostic(code(the_loop::config::state_root_not_yours), help("{}", refusal.help(path)))]
    StateRootNotYours {
        path: PathBuf,
        config: PathBuf,
        refusal: crate::fsutil::owner::NotYours,
    },

    /// A mistake in the file. `line` and `column` are 1-based; `key` is the
    /// dotted path (`routing.tmux.resumeProbeSeconds`, `env.deliver[2]`).
    #[error("{path}:{line}:{column}: {key}: {problem}")]
    #[diagnostic(code(the_loop::config::invalid))]
    Invalid {
        path: PathBuf,
        line: usize,
        column: usize,
        key: String,
        kind: ProblemKind,
        problem: String,
        #[help]
        help: Option<String>,
    },

    /// Two or more mistakes in the file, each an `Invalid`, in the order
    /// of the file: every mistake the-loop can find is reported at once, so
    /// one edit fixes them all.
    #[error("{path}: {} mistakes in the config", mistakes.len())]
    #[diagnostic(
        code(the_loop::config::invalid),
        help("each is listed below with its line, column and key; fix them all, then `the-loop validate` checks the file again")
    )]
    Mistakes {
        path: PathBuf,
        #[related]
        mistakes: Vec<ConfigError>,
    },
}

/// One `Invalid` error, or `Mistakes` for several (in line order).
pub(super) fn from_located(path: &std::path::Path, mut found: Vec<Located>) -> ConfigError {
    found.sort_by_key(|m| (m.line, m.column));
    let mut errors: Vec<ConfigError> = found
        .into_iter()
        .map(|m| m.into_error(path.to_owned()))
        .collect();
    if errors.len() == 1 {
        return errors.remove(0);
    }
    ConfigError::Mistakes {
        path: path.to_owned(),
        mistakes: errors,
    }
}

/// How to make a config where there is none. There is no `init`: a
/// config needs one line, and the example documents every key.
const CREATE: &str = "a config needs one line, `env: {file: .env}` (the env file, relative to the config); examples/cli-config.yaml (in the source, or /usr/share/doc/the-loop/examples/ from the Debian package) shows every key";

/// The fix for a config that cannot be read, by why.
fn read_help(kind: std::io::ErrorKind) -> String {
    match kind {
        std::io::ErrorKind::NotFound => format!(
            "check the path given to --config or in $THE_LOOP_CLI_CONFIG, or create the file: {CREATE}"
        ),
        std::io::ErrorKind::PermissionDenied => {
            "the-loop runs as you and must be able to read the file and every directory above it: check their owner and mode (`ls -l`)".into()
        }
        _ => "check that the path names a readable regular file".into(),
    }
}

/// A mistake located in the text, before the file's path is attached.
pub(super) struct Located {
    pub line: usize,
    pub column: usize,
    pub key: String,
    pub kind: ProblemKind,
    pub problem: String,
    pub help: Option<String>,
}

impl Located {
    pub fn into_error(self, path: PathBuf) -> ConfigError {
        let help = self
            .help
            .clone()
            .or_else(|| super::fix::fix_for(&self.key, self.kind, &self.problem));
        ConfigError::Invalid {
            path,
            line: self.line,
            column: self.column,
            key: self.key,
            kind: self.kind,
            problem: self.problem,
            help,
        }
    }
}

type ParseError = serde_path_to_error::Error<serde_yaml::Error>;

/// Translates a parse error without quoting the document.
pub(super) fn from_parse(error: &ParseError) -> Located {
    let (line, column) = error
        .inner()
        .location()
        .map_or((1, 1), |at| (at.line(), at.column()));
    let last_key = match error.path().iter().next_back() {
        Some(serde_path_to_error::Segment::Map { key }) => key.as_str(),
        _ => "",
    };
    let key = dotted(error.path());
    let message = without_location(&error.inner().to_string(), line, column);
    let (kind, problem, help) = classify(&message, last_key);
    let key = match kind {
        // serde reports a duplicate at the enclosing mapping; name the key.
        ProblemKind::DuplicateKey => match between_backticks(&message, "duplicate field `") {
            Some(name) if key == "." => name.to_owned(),
            Some(name) => format!("{key}.{name}"),
            None => key,
        },
        _ => key,
    };
    Located {
        line,
        column,
        key: if key == "." {
            "(top level)".into()
        } else {
            key
        },
        kind,
        problem,
        help,
    }
}

/// Drops the ` at line L column C` yaml_serde appends to a message.
fn without_location(message: &str, line: usize, column: usize) -> String {
    let suffix = format!(" at line {line} column {column}");
    message.strip_suffix(&suffix).unwrap_or(message).to_owned()
}

/// Splits a serde/yaml message into kind, problem and help. The patterns are
/// serde's fixed wording; whatever a pattern does not account for is dropped.
fn classify(message: &str, last_key: &str) -> (ProblemKind, String, Option<String>) {
    const PATTERNS: [(&str, ProblemKind); 7] = [
        ("unknown field `", ProblemKind::UnknownKey),
        ("duplicate field `", ProblemKind::DuplicateKey),
        ("missing field `", ProblemKind::InvalidValue),
        ("invalid type: ", ProblemKind::WrongType),
        ("invalid value: ", ProblemKind::InvalidValue),
        ("invalid length ", ProblemKind::InvalidValue),
        ("unknown variant `", ProblemKind::InvalidValue),
    ];
    let found = PATTERNS
        .iter()
        .filter_map(|(pattern, kind)| message.find(pattern).map(|at| (at, *pattern, *kind)))
        .min_by_key(|(at, _, _)| *at);
    let Some((_, pattern, kind)) = found else {
        return (ProblemKind::Syntax, syntax_problem(message), None);
    };
    match kind {
        ProblemKind::UnknownKey => {
            let accepted = accepted_keys(message, last_key);
            (
                kind,
                "unknown key".into(),
                unknown_key_help(last_key, &accepted),
            )
        }
        ProblemKind::DuplicateKey => (kind, "given more than once".into(), None),
        _ if pattern == "missing field `" => {
            let name = between_backticks(message, pattern).unwrap_or("a key");
            (kind, format!("missing `{name}`"), None)
        }
        _ => {
            let expected = message
                .rsplit_once(", expected ")
                .map_or("something else", |(_, expected)| expected);
            (kind, format!("expected {}", friendly(expected)), None)
        }
    }
}

/// Rewrites serde's type names into the words an operator uses.
fn friendly(expected: &str) -> &str {
    match expected {
        "f64" | "f32" => "a number",
        "u16" => "a port from 1 to 65535",
        "a sequence" => "a list",
        "a map" => "a mapping",
        "a borrowed string" => "a string",
        other if other.starts_with("struct ") => "a mapping",
        other => other,
    }
}

/// The libyaml problem text (fixed wording, no document text), without the
/// location that is reported separately.
fn syntax_problem(message: &str) -> String {
    let problem = message.split(" at line ").next().unwrap_or(message);
    let problem = problem.split(" at position ").next().unwrap_or(problem);
    if problem.starts_with("deserializing nested enum") {
        // The one yaml_serde message that quotes the document (a tag).
        return "unsupported YAML tag".into();
    }
    format!("invalid YAML: {problem}")
}

/// The declared keys serde lists after an unknown one.
fn accepted_keys(message: &str, unknown: &str) -> Vec<String> {
    let marker = format!("unknown field `{unknown}`, ");
    let Some(at) = message.find(&marker) else {
        return Vec::new();
    };
    message[at + marker.len()..]
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

/// "did you mean X?" when one key is close, else the list of keys accepted here.
fn unknown_key_help(unknown: &str, accepted: &[String]) -> Option<String> {
    if let Some(close) = closest(unknown, accepted) {
        return Some(format!("did you mean `{close}`?"));
    }
    if accepted.is_empty() {
        return None;
    }
    Some(format!("keys read here: {}", accepted.join(", ")))
}

/// The accepted key nearest to `unknown`: the same up to case and `_`/`-`
/// (`resume_on_respawn`), or within a small edit distance (`resumeOnRespwn`).
fn closest<'a>(unknown: &str, accepted: &'a [String]) -> Option<&'a str> {
    let squash = |s: &str| -> String {
        s.chars()
            .filter(|c| *c != '_' && *c != '-')
            .flat_map(char::to_lowercase)
            .collect()
    };
    let wanted = squash(unknown);
    let limit = (wanted.chars().count() / 3).max(1);
    accepted
        .iter()
        .map(|key| (edit_distance(&wanted, &squash(key)), key))
        .filter(|(distance, _)| *distance <= limit)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, key)| key.as_str())
}

/// Levenshtein distance over chars.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = diagonal + usize::from(ca != *cb);
            diagonal = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

fn between_backticks<'m>(message: &'m str, prefix: &str) -> Option<&'m str> {
    let start = message.find(prefix)? + prefix.len();
    let len = message[start..].find('`')?;
    Some(&message[start..start + len])
}

/// A dotted key path. Keys that do not look like identifiers are shown as `?`:
/// an unknown "key" may be a pasted secret, and the line and column already
/// point at it.
fn dotted(path: &serde_path_to_error::Path) -> String {
    let mut out = String::new();
    for segment in path {
        match segment {
            serde_path_to_error::Segment::Seq { index } => {
                let _ = write!(out, "[{index}]");
            }
            serde_path_to_error::Segment::Map { key } => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(if printable_key(key) { key } else { "?" });
            }
            _ => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push('?');
            }
        }
    }
    if out.is_empty() {
        ".".into()
    } else {
        out
    }
}

pub(super) fn printable_key(key: &str) -> bool {
    (1..=64).contains(&key.len())
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-.:@/[]".contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_value_in_a_type_error_is_dropped() {
        let message = r#"routing.announce: invalid type: string "s3cr3t, expected x", expected a boolean at line 3 column 5"#;
        let (kind, problem, _) = classify(&without_location(message, 3, 5), "announce");
        assert_eq!(kind, ProblemKind::WrongType);
        assert_eq!(problem, "expected a boolean");
    }

    #[test]
    fn close_keys_are_suggested() {
        let accepted: Vec<String> = ["resumeOnRespawn", "remainOnExit"].map(String::from).into();
        assert_eq!(
            closest("resume_on_respawn", &accepted),
            Some("resumeOnRespawn")
        );
        assert_eq!(
            closest("resumeOnRespwn", &accepted),
            Some("resumeOnRespawn")
        );
        assert_eq!(closest("colour", &accepted), None);
    }

    #[test]
    fn edit_distance_counts_single_edits() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
    }

    #[test]
    fn keys_that_look_like_secrets_are_not_shown() {
        assert!(printable_key("resumeOnRespawn"));
        assert!(printable_key("us.anthropic.claude-v1:0"));
        assert!(!printable_key("TOKEN=abc"));
        assert!(!printable_key("has space"));
    }
}
