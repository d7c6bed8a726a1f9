//! What can be wrong with an env file, said without quoting it: every
//! error carries a place and a kind, never text from the file.

use std::fmt;
use std::path::PathBuf;

/// What is wrong. `Display` gives a short phrase, [`SyntaxErrorKind::hint`]
/// how to fix it; neither can quote the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyntaxErrorKind {
    InvalidKey,
    MissingEquals,
    UnterminatedSingleQuote,
    UnterminatedDoubleQuote,
    InvalidEscape,
    TrailingCharacters,
    DuplicateKey,
    InvalidUtf8,
    NulInValue,
}

impl SyntaxErrorKind {
    /// How to fix this kind of mistake. Static text: it cannot quote the file.
    pub fn hint(self) -> &'static str {
        match self {
            Self::InvalidKey => {
                "a name is ASCII letters (A-Z, a-z), digits and `_`, and does not start with a digit"
            }
            Self::MissingEquals => "every non-comment line must be `NAME=value`",
            Self::UnterminatedSingleQuote => {
                "close the value with `'`; single-quoted values may span lines"
            }
            Self::UnterminatedDoubleQuote => {
                "close the value with `\"`; double-quoted values may span lines, \
                 and a `\"` inside one is written `\\\"`"
            }
            Self::InvalidEscape => {
                "inside double quotes the escapes are \\n \\r \\t \\\\ \\\" and \\$; \
                 use single quotes for a literal backslash"
            }
            Self::TrailingCharacters => "only spaces and a `# comment` may follow a closing quote",
            Self::DuplicateKey => "each name may be assigned only once; remove one of them",
            Self::InvalidUtf8 => "save the file as UTF-8",
            Self::NulInValue => {
                "a NUL byte cannot reach a process environment; remove it from the value"
            }
        }
    }
}

impl fmt::Display for SyntaxErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::InvalidKey => "invalid variable name",
            Self::MissingEquals => "missing `=` after the variable name",
            Self::UnterminatedSingleQuote => "unterminated single-quoted value",
            Self::UnterminatedDoubleQuote => "unterminated double-quoted value",
            Self::InvalidEscape => "unknown escape sequence in a double-quoted value",
            Self::TrailingCharacters => "unexpected characters after the closing quote",
            Self::DuplicateKey => "variable assigned a second time",
            Self::InvalidUtf8 => "invalid UTF-8",
            Self::NulInValue => "NUL byte in a value",
        })
    }
}

/// Where the file went wrong. Holds no text from the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub line: usize,
    pub column: usize,
    pub kind: SyntaxErrorKind,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.kind
        )
    }
}

impl std::error::Error for SyntaxError {}

/// The format, taught in one breath; ends every syntax diagnostic.
const FORMAT_HELP: &str = "the env file is data, not shell: one `[export ]NAME=value` per line, \
     `#` starts a comment, 'single quotes' are literal, \"double quotes\" allow \
     \\n \\r \\t \\\\ \\\" \\$ escapes, quoted values may span lines, and `$` is never expanded";

/// Why an env file could not be loaded. The diagnostic deliberately has no
/// source code or labels: a snippet would show text from the file.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum EnvFileError {
    #[error("cannot read env file {path}: {}", crate::fsutil::IoKind(*.kind))]
    #[diagnostic(code(the_loop::envfile::read))]
    Read {
        path: PathBuf,
        kind: std::io::ErrorKind,
    },
    /// Not a regular file (a FIFO, a device), or over its size cap: refused
    /// without reading it. `reason` names kinds and sizes only.
    #[error("cannot read env file {path}: {reason}")]
    #[diagnostic(code(the_loop::envfile::refused))]
    Refused { path: PathBuf, reason: String },
    /// Another user owns it, or others can write it: whoever can write it
    /// chooses what every session holds.
    #[error("env file {path} is not yours alone: it is {refusal}")]
    #[diagnostic(code(the_loop::envfile::not_yours), help("{}", refusal.help(path)))]
    NotYours {
        path: PathBuf,
        refusal: crate::fsutil::owner::NotYours,
    },
    #[error("env file {path}:{line}:{column}: {kind}")]
    #[diagnostic(code(the_loop::envfile::syntax), help("{}; {}", kind.hint(), FORMAT_HELP))]
    Syntax {
        path: PathBuf,
        line: usize,
        column: usize,
        kind: SyntaxErrorKind,
    },
}
