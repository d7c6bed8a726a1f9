//! The env file parser: strict, and data only.
//!
//! An env file is read as data, never as shell. `[export ]KEY=VALUE` lines,
//! `#` comments, literal single quotes and double quotes with a handful of
//! escapes; `$` is an ordinary character everywhere, so the desired state never
//! depends on who runs the-loop or what their environment holds.
//!
//! Values are secrets. They leave this module only inside [`SecretValue`], and
//! an error says where the file went wrong (line, column, kind) but never
//! quotes it: after an unterminated quote "the rest of the line" would be the
//! rest of the file, secrets included.

use crate::secret::SecretValue;
use sha2::{Digest, Sha256};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// One `KEY=VALUE` assignment, with the 1-based line it starts on.
#[derive(Debug, Clone)]
pub struct EnvEntry {
    pub name: String,
    pub value: SecretValue,
    pub line: usize,
}

/// A parsed env file. Entries keep file order; names are unique.
#[derive(Debug, Clone)]
pub struct EnvFile {
    pub path: PathBuf,
    pub entries: Vec<EnvEntry>,
}

#[path = "envfile_error.rs"]
mod error;
pub use error::{EnvFileError, SyntaxError, SyntaxErrorKind};

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Parses env file bytes into entries, in file order.
pub fn parse(bytes: &[u8]) -> Result<Vec<EnvEntry>, SyntaxError> {
    // Editors hide the BOM, so it counts as neither text nor a column.
    let bytes = bytes.strip_prefix(BOM).unwrap_or(bytes);
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let valid = std::str::from_utf8(&bytes[..e.valid_up_to()]).expect("valid prefix");
        let mut s = Scanner::new(valid);
        while s.bump().is_some() {}
        s.error(SyntaxErrorKind::InvalidUtf8)
    })?;

    let mut s = Scanner::new(text);
    let mut entries: Vec<EnvEntry> = Vec::new();
    // A set, not a scan of `entries`: a scan made a 200k-line file quadratic.
    let mut seen: HashSet<&str> = HashSet::new();
    while !s.rest.is_empty() {
        let Some(a) = parse_line(&mut s)? else {
            continue;
        };
        if !seen.insert(a.name) {
            return Err(SyntaxError {
                line: a.line,
                column: a.column,
                kind: SyntaxErrorKind::DuplicateKey,
            });
        }
        let value = SecretValue::new(a.value);
        entries.push(EnvEntry {
            name: a.name.to_owned(),
            value,
            line: a.line,
        });
    }
    Ok(entries)
}

/// Spaces and tabs: the only characters skipped around names, `=` and values.
fn is_blank(c: char) -> bool {
    c == ' ' || c == '\t'
}

fn is_name_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// A cursor over the text that knows its 1-based line and column.
struct Scanner<'a> {
    rest: &'a str,
    line: usize,
    column: usize,
}

impl<'a> Scanner<'a> {
    fn new(text: &'a str) -> Self {
        Scanner {
            rest: text,
            line: 1,
            column: 1,
        }
    }

    fn peek(&self) -> Option<char> {
        self.rest.chars().next()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.rest = &self.rest[c.len_utf8()..];
        if c == '\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
        Some(c)
    }

    fn error(&self, kind: SyntaxErrorKind) -> SyntaxError {
        SyntaxError {
            line: self.line,
            column: self.column,
            kind,
        }
    }

    /// Skips spaces and tabs; says whether there were any.
    fn skip_blanks(&mut self) -> bool {
        let before = self.column;
        while self.peek().is_some_and(is_blank) {
            self.bump();
        }
        self.column != before
    }

    fn take_name(&mut self) -> &'a str {
        let len = self
            .rest
            .find(|c| !is_name_char(c))
            .unwrap_or(self.rest.len());
        let (name, rest) = self.rest.split_at(len);
        self.rest = rest;
        self.column += len; // ASCII only, so bytes are characters
        name
    }

    /// At `\n`, `\r\n`, or the end of the text (a final lone `\r` included).
    fn at_line_end(&self) -> bool {
        matches!(self.rest, "" | "\r")
            || self.rest.starts_with('\n')
            || self.rest.starts_with("\r\n")
    }

    /// Consumes the rest of the line, if any, and its line ending.
    fn skip_line(&mut self) {
        while !self.at_line_end() {
            self.bump();
        }
        if self.bump() == Some('\r') {
            self.bump();
        }
    }
}

/// One assignment as parsed, with where its name starts.
struct Assignment<'a> {
    name: &'a str,
    line: usize,
    column: usize,
    value: String,
}

/// Parses one line, or one assignment whose quoted value spans several lines.
/// Blank and comment lines give `None`.
fn parse_line<'a>(s: &mut Scanner<'a>) -> Result<Option<Assignment<'a>>, SyntaxError> {
    s.skip_blanks();
    if s.at_line_end() || s.peek() == Some('#') {
        s.skip_line();
        return Ok(None);
    }

    let (line, mut column) = (s.line, s.column);
    let mut name = parse_name(s)?;
    // `export` is a prefix only when another name follows; `export=x` assigns it.
    if name == "export" && s.skip_blanks() && s.peek() != Some('=') {
        column = s.column;
        name = parse_name(s)?;
    }

    let spaced = s.skip_blanks();
    match s.peek() {
        Some('=') => {}
        // A character glued to the name, as in `A-B=` or `A.B=`, belongs to it.
        Some(_) if !spaced && !s.at_line_end() => return Err(s.error(SyntaxErrorKind::InvalidKey)),
        _ => return Err(s.error(SyntaxErrorKind::MissingEquals)),
    }
    s.bump();

    let spaced = s.skip_blanks();
    let value = match s.peek() {
        Some(quote @ ('\'' | '"')) => {
            let value = quoted(s, quote)?;
            s.skip_blanks();
            if s.peek() != Some('#') && !s.at_line_end() {
                return Err(s.error(SyntaxErrorKind::TrailingCharacters));
            }
            s.skip_line();
            value
        }
        _ => unquoted(s, spaced)?,
    };
    Ok(Some(Assignment {
        name,
        line,
        column,
        value,
    }))
}

fn parse_name<'a>(s: &mut Scanner<'a>) -> Result<&'a str, SyntaxError> {
    if !s.peek().is_some_and(is_name_start) {
        return Err(s.error(SyntaxErrorKind::InvalidKey));
    }
    Ok(s.take_name())
}

/// The rest of the line, up to a `#` that follows a blank, without the blanks
/// around it. Everything else, quotes and `$` included, is literal.
fn unquoted(s: &mut Scanner, mut after_blank: bool) -> Result<String, SyntaxError> {
    let mut value = String::new();
    while !s.at_line_end() {
        let c = s.peek().expect("not at the end");
        if c == '#' && after_blank {
            break;
        }
        if c == '\0' {
            return Err(s.error(SyntaxErrorKind::NulInValue));
        }
        after_blank = is_blank(c);
        value.push(c);
        s.bump();
    }
    s.skip_line();
    value.truncate(value.trim_end_matches(is_blank).len());
    Ok(value)
}

/// A value between `quote`s, starting at the opening one. Single quotes take
/// everything literally; double quotes also read escapes. Either may span
/// lines, and a CRLF inside becomes LF: a line ending is never part of a value
/// (write `\r` in double quotes for a real CR).
fn quoted(s: &mut Scanner, quote: char) -> Result<String, SyntaxError> {
    let unterminated = s.error(match quote {
        '\'' => SyntaxErrorKind::UnterminatedSingleQuote,
        _ => SyntaxErrorKind::UnterminatedDoubleQuote,
    });
    s.bump();
    let mut value = String::new();
    loop {
        let escape_at = s.error(SyntaxErrorKind::InvalidEscape);
        match s.bump().ok_or(unterminated.clone())? {
            c if c == quote => return Ok(value),
            // An exec'd environment is NUL-terminated strings: such a value
            // could never be delivered, so the file is wrong, not the launch.
            '\0' => {
                return Err(SyntaxError {
                    kind: SyntaxErrorKind::NulInValue,
                    ..escape_at
                })
            }
            '\\' if quote == '"' => {
                let escaped = s.bump().ok_or(unterminated.clone())?;
                value.push(unescape(escaped).ok_or(escape_at)?);
            }
            '\r' if s.peek() == Some('\n') => {}
            c => value.push(c),
        }
    }
}

fn unescape(c: char) -> Option<char> {
    match c {
        'n' => Some('\n'),
        'r' => Some('\r'),
        't' => Some('\t'),
        '\\' | '"' | '$' => Some(c),
        _ => None,
    }
}

/// Writes entries as env file text that [`parse`] reads back to the same
/// names and values. For round-trip tests and fuzzing only.
///
/// **This exposes every value as plain text; its output must never reach a
/// terminal, log, file or any other output.**
///
/// Values go in single quotes, or in double quotes with escapes when they hold
/// a `'` or a CR (a CRLF inside quotes reads back as LF). A value that is not
/// UTF-8 cannot be written in an env file and is rendered lossily.
pub fn render_for_roundtrip(entries: &[EnvEntry]) -> String {
    let mut out = String::new();
    for entry in entries {
        let value = String::from_utf8_lossy(entry.value.expose_bytes());
        out.push_str(&entry.name);
        out.push('=');
        if value.contains(['\'', '\r']) {
            out.push('"');
            for c in value.chars() {
                match c {
                    '\\' => out.push_str("\\\\"),
                    '"' => out.push_str("\\\""),
                    '\r' => out.push_str("\\r"),
                    c => out.push(c),
                }
            }
            out.push('"');
        } else {
            out.push('\'');
            out.push_str(&value);
            out.push('\'');
        }
        out.push('\n');
    }
    out
}

impl EnvFile {
    /// Reads and parses the file at `path`: a regular file (or a link to
    /// one) within [`crate::bounded_read::ENV_FILE`], the caller's own and
    /// writable by no one else. Errors name the path, never the text.
    pub fn load(path: &Path) -> Result<EnvFile, EnvFileError> {
        let limit = &crate::bounded_read::ENV_FILE;
        let bytes = crate::bounded_read::read(path, limit).map_err(|e| {
            if let Some(refusal) = crate::fsutil::owner::not_yours(&e) {
                return EnvFileError::NotYours {
                    path: path.to_owned(),
                    refusal: refusal.clone(),
                };
            }
            match crate::bounded_read::refusal(&e) {
                Some(reason) => EnvFileError::Refused {
                    path: path.to_owned(),
                    reason,
                },
                None => EnvFileError::Read {
                    path: path.to_owned(),
                    kind: e.kind(),
                },
            }
        })?;
        let entries = parse(&bytes).map_err(|e| EnvFileError::Syntax {
            path: path.to_owned(),
            line: e.line,
            column: e.column,
            kind: e.kind,
        })?;
        Ok(EnvFile {
            path: path.to_owned(),
            entries,
        })
    }

    pub fn get(&self, name: &str) -> Option<&SecretValue> {
        self.entries
            .iter()
            .find(|e| e.name == name)
            .map(|e| &e.value)
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|e| e.name.as_str())
    }

    /// What this reading of the file declares, as one digest of every name
    /// and value (in name order, so moving a line or editing a comment is
    /// not a change): two readings with the same digest give every session
    /// the same desired environment.
    pub fn reading(&self) -> Reading {
        let mut entries: Vec<&EnvEntry> = self.entries.iter().collect();
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        let mut digest = Sha256::new();
        for entry in entries {
            for part in [entry.name.as_bytes(), entry.value.expose_bytes()] {
                digest.update((part.len() as u64).to_le_bytes());
                digest.update(part);
            }
        }
        Reading(digest.finalize().into())
    }
}

/// One reading of the env file, as [`EnvFile::reading`] digests it: what a
/// roll compares to tell whether the file changed since its plan read it.
/// A whole sha256, never printed (its `Debug` says nothing of it).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Reading([u8; 32]);

impl std::fmt::Debug for Reading {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Reading(..)")
    }
}

#[cfg(test)]
#[path = "envfile_tests.rs"]
mod tests;
