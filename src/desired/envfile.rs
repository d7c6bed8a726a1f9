//! STUB: replaced by the env file parser work. Signatures are the contract.
use crate::secret::SecretValue;
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
}

/// Where the file went wrong. Holds no text from the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub line: usize,
    pub column: usize,
    pub kind: SyntaxErrorKind,
}

#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum EnvFileError {
    #[error("cannot read env file {path}: {kind}")]
    Read { path: PathBuf, kind: std::io::ErrorKind },
    #[error("env file {path}:{line}:{column}: {kind:?}")]
    Syntax { path: PathBuf, line: usize, column: usize, kind: SyntaxErrorKind },
}

pub fn parse(_bytes: &[u8]) -> Result<Vec<EnvEntry>, SyntaxError> {
    todo!("env file parser")
}

impl EnvFile {
    pub fn load(_path: &Path) -> Result<EnvFile, EnvFileError> {
        todo!("env file parser")
    }

    pub fn get(&self, name: &str) -> Option<&SecretValue> {
        self.entries.iter().find(|e| e.name == name).map(|e| &e.value)
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|e| e.name.as_str())
    }
}
