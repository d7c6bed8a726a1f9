//! Reading and writing record files under `<state root>/local/`.
//!
//! Records are shared with running daemons and with older versions, so every
//! write is a temp file in the same directory, fsynced, then renamed over the
//! target: a reader sees the old record or the new one, never half of one.
//! Nothing read from a record ever reaches an error message: reasons are
//! built from error kinds, serde_json categories and line/column positions.
//! A record another user owns, or that others can write, is refused as it
//! is read ([`RegistryError::NotYours`]): a verb naming it fails, and a
//! listing reports it in `corrupt` (as `plan` does) and never holds it.

use super::record::{StandingRecord, WorkItemRecord};
use super::refs::{validate_standing_name, RefError, WorkItemRef};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// Records under `<root>/local/` (work items) and `<root>/local/standing/`.
#[derive(Debug, Clone)]
pub struct Registry {
    root: PathBuf,
}

/// A record file that could not be read or parsed. `reason` never quotes the file.
#[derive(Debug, Clone, serde::Serialize)]
pub struct CorruptRecord {
    pub path: PathBuf,
    pub reason: String,
}

#[derive(Debug, Clone)]
pub struct Listing<T> {
    /// Each parsed record with the file it came from, sorted by path.
    pub records: Vec<(PathBuf, T)>,
    pub corrupt: Vec<CorruptRecord>,
}

impl<T> Default for Listing<T> {
    fn default() -> Self {
        Listing {
            records: Vec::new(),
            corrupt: Vec::new(),
        }
    }
}

#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum RegistryError {
    #[error("registry {path}: {}", crate::fsutil::IoKind(*.kind))]
    Io { path: PathBuf, kind: io::ErrorKind },
    /// A directory, FIFO, link or socket sits where a record belongs. It is
    /// never opened blocking nor replaced: someone put it there.
    #[error("registry record {path} is {what}, not a regular file; the-loop leaves it alone")]
    NotRegular {
        path: PathBuf,
        what: crate::fsutil::SpecialFile,
    },
    /// Another user owns the record, or others can write it: whoever wrote
    /// it chose the conversation a start would resume. Never acted on.
    #[error(
        "registry record {path} is not yours alone: it is {refusal}; the-loop leaves it alone"
    )]
    #[diagnostic(code(the_loop::registry::not_yours), help("{}", refusal.help(path)))]
    NotYours {
        path: PathBuf,
        refusal: crate::fsutil::owner::NotYours,
    },
    #[error("registry record {path} cannot be parsed: {reason}")]
    Corrupt { path: PathBuf, reason: String },
    /// The record names no valid work item or standing session, so it has no
    /// file name it could be stored under.
    #[error("registry record refused: {0}")]
    InvalidName(#[from] RefError),
    /// Two refs can share a slug (`a/b-c` and `a-b/c`); the file belongs to the
    /// other one and is left alone.
    #[error("registry record {path} belongs to another work item with the same slug")]
    SlugTaken { path: PathBuf },
    #[error(
        "registry record {path} cannot be written as JSON (a field such as cwd is not valid UTF-8)"
    )]
    Unencodable { path: PathBuf },
}

impl Registry {
    pub fn new(state_root: &Path) -> Self {
        Registry {
            root: state_root.to_path_buf(),
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn work_items_dir(&self) -> PathBuf {
        self.root.join("local")
    }

    pub fn standing_dir(&self) -> PathBuf {
        self.work_items_dir().join("standing")
    }

    pub fn work_item_path(&self, r: &WorkItemRef) -> PathBuf {
        self.work_items_dir().join(format!("{}.json", r.slug()))
    }

    /// The path a standing name maps to. Callers must validate the name first
    /// ([`validate_standing_name`]); the load, save and delete methods do.
    pub fn standing_path(&self, name: &str) -> PathBuf {
        self.standing_dir().join(format!("{name}.json"))
    }

    /// Every work-item record. A file that cannot be read or parsed, or whose
    /// `workItem.ref` is not a valid ref, is reported in `corrupt`.
    pub fn work_items(&self) -> Listing<WorkItemRecord> {
        list(&self.work_items_dir(), |r: &WorkItemRecord| {
            r.work_item_ref().map(drop)
        })
    }

    /// Every standing record; an invalid `name` makes the record corrupt.
    pub fn standing(&self) -> Listing<StandingRecord> {
        list(&self.standing_dir(), |r: &StandingRecord| {
            validate_standing_name(&r.name)
        })
    }

    /// The record for `r`, or `None` when there is none. A record stored under
    /// the same slug for a different ref is [`RegistryError::SlugTaken`].
    pub fn load_work_item(&self, r: &WorkItemRef) -> Result<Option<WorkItemRecord>, RegistryError> {
        let path = self.work_item_path(r);
        let Some(record) = load::<WorkItemRecord>(&path)? else {
            return Ok(None);
        };
        match record.work_item_ref() {
            Ok(found) if found == *r => Ok(Some(record)),
            Ok(_) => Err(RegistryError::SlugTaken { path }),
            Err(e) => Err(RegistryError::Corrupt {
                path,
                reason: e.reason.to_string(),
            }),
        }
    }

    pub fn load_standing(&self, name: &str) -> Result<Option<StandingRecord>, RegistryError> {
        validate_standing_name(name)?;
        load(&self.standing_path(name))
    }

    /// Temp file in the same directory, then an atomic rename. Refuses to
    /// replace a record that belongs to another ref with the same slug.
    pub fn save_work_item(&self, record: &WorkItemRecord) -> Result<PathBuf, RegistryError> {
        let r = record.work_item_ref()?;
        let path = self.work_item_path(&r);
        self.ensure_not_taken(&path, &r)?;
        write_record(&path, record)?;
        Ok(path)
    }

    pub fn save_standing(&self, record: &StandingRecord) -> Result<PathBuf, RegistryError> {
        validate_standing_name(&record.name)?;
        let path = self.standing_path(&record.name);
        write_record(&path, record)?;
        Ok(path)
    }

    /// Removes the record for `r`; `false` when there was none. A corrupt
    /// record is removed too (that is how an operator recovers from one), but
    /// one that belongs to another ref with the same slug is not.
    pub fn delete_work_item(&self, r: &WorkItemRef) -> Result<bool, RegistryError> {
        let path = self.work_item_path(r);
        self.ensure_not_taken(&path, r)?;
        remove(&path)
    }

    pub fn delete_standing(&self, name: &str) -> Result<bool, RegistryError> {
        validate_standing_name(name)?;
        remove(&self.standing_path(name))
    }

    /// Fails only when `path` holds a readable record for a different ref; a
    /// missing or unreadable file is no one's and may be replaced.
    fn ensure_not_taken(&self, path: &Path, r: &WorkItemRef) -> Result<(), RegistryError> {
        let owner = load::<WorkItemRecord>(path)
            .ok()
            .flatten()
            .and_then(|existing| existing.work_item_ref().ok());
        match owner {
            Some(owner) if owner != *r => Err(RegistryError::SlugTaken {
                path: path.to_path_buf(),
            }),
            _ => Ok(()),
        }
    }
}

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> RegistryError + '_ {
    move |e| match crate::fsutil::owner::not_yours(&e) {
        Some(refusal) => RegistryError::NotYours {
            path: path.to_path_buf(),
            refusal: refusal.clone(),
        },
        None => not_regular(path, e),
    }
}

fn not_regular(path: &Path, e: io::Error) -> RegistryError {
    match crate::fsutil::not_regular(&e) {
        Some(what) => RegistryError::NotRegular {
            path: path.to_path_buf(),
            what,
        },
        None => RegistryError::Io {
            path: path.to_path_buf(),
            kind: e.kind(),
        },
    }
}

/// Reads and parses one record; `None` when the file does not exist.
fn load<T: DeserializeOwned>(path: &Path) -> Result<Option<T>, RegistryError> {
    load_listed(path, None)
}

/// [`load`], for a record a directory listing named with its type.
fn load_listed<T: DeserializeOwned>(
    path: &Path,
    listed: Option<fs::FileType>,
) -> Result<Option<T>, RegistryError> {
    use crate::bounded_read::{read_listed, RECORD};
    let bytes = match read_listed(path, &RECORD, listed) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => match crate::bounded_read::too_large(&e) {
            Some(over) => {
                let (path, reason) = (path.to_path_buf(), over.to_string());
                return Err(RegistryError::Corrupt { path, reason });
            }
            None => return Err(io_error(path)(e)),
        },
    };
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|e| RegistryError::Corrupt {
            path: path.to_path_buf(),
            reason: parse_reason(&e),
        })
}

/// Parses every `*.json` file directly in `dir`, in path order. Dot files
/// (in-flight temp files among them) and anything that is not a regular file
/// are skipped. `check` can reject a record that parsed but is unusable.
fn list<T: DeserializeOwned + Send>(
    dir: &Path,
    check: impl Fn(&T) -> Result<(), RefError> + Sync,
) -> Listing<T> {
    let mut listing = Listing::default();
    let paths = match record_files(dir) {
        Ok(paths) => paths,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return listing,
        Err(e) => {
            listing.corrupt.push(CorruptRecord {
                path: dir.to_path_buf(),
                reason: format!("cannot list the directory: {}", e.kind()),
            });
            return listing;
        }
    };
    // A file each (500 in a plan of 500): split across the cores.
    let parsed = crate::parallel::map(&paths, RECORDS_PER_THREAD, |(path, listed)| {
        load_listed::<T>(path, *listed).and_then(|record| {
            if let Some(record) = &record {
                check(record)?;
            }
            Ok(record)
        })
    });
    for ((path, _), parsed) in paths.into_iter().zip(parsed) {
        match parsed {
            Ok(Some(record)) => listing.records.push((path, record)),
            // Deleted since the directory was read: no longer part of the listing.
            Ok(None) => {}
            Err(e) => listing.corrupt.push(CorruptRecord {
                path,
                reason: corrupt_reason(&e),
            }),
        }
    }
    listing
}

/// Fewer records than this are not worth a thread.
const RECORDS_PER_THREAD: usize = 64;

/// The reason for a [`CorruptRecord`]: the error without its path, which the
/// listing already carries.
fn corrupt_reason(e: &RegistryError) -> String {
    match e {
        RegistryError::Io { kind, .. } => {
            format!("cannot read the file: {}", crate::fsutil::IoKind(*kind))
        }
        RegistryError::NotRegular { what, .. } => format!("it is {what}, not a regular file"),
        // Listed (`plan` says it as a corrupt record's) and never acted on.
        RegistryError::NotYours { path, refusal } => format!(
            "refused, it is {refusal}; the-loop acts only on records that are yours alone: check it, then {}",
            refusal.fix(path)
        ),
        RegistryError::Corrupt { reason, .. } => reason.clone(),
        RegistryError::InvalidName(e) => e.reason.to_string(),
        other => other.to_string(),
    }
}

/// The record files in `dir`, sorted, each with the type its directory
/// entry gave when that said "a regular file" (so no stat is needed).
fn record_files(dir: &Path) -> io::Result<Vec<(PathBuf, Option<fs::FileType>)>> {
    let mut paths = Vec::new();
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') || !name.ends_with(".json") {
            continue;
        }
        // Follows symlinks, so a linked record still counts as a file. The
        // directory entry already says what most entries are, sparing a
        // stat per record.
        let (is_file, listed) = match entry.file_type() {
            Ok(t) if t.is_file() => (true, Some(t)),
            Ok(t) if t.is_dir() => (false, None),
            _ => (fs::metadata(entry.path()).is_ok_and(|m| m.is_file()), None),
        };
        if is_file {
            paths.push((entry.path(), listed));
        }
    }
    // Every path has the same directory, so its bytes order as its
    // components do, without splitting each into components to compare.
    paths.sort_unstable_by(|a, b| a.0.as_os_str().cmp(b.0.as_os_str()));
    Ok(paths)
}

/// A parse failure described by category and position only. serde_json's own
/// messages can quote the offending value (`invalid type: string "..."`), so
/// they are not used, except for a missing field, whose name comes from this
/// crate's schema rather than from the file. A wrong value in one of the
/// shared parts (`SessionFields`, `LaunchFields`) is placed at the record's
/// closing brace, as a missing field is: serde reads flattened fields once
/// the whole object has been read.
fn parse_reason(e: &serde_json::Error) -> String {
    use serde_json::error::Category;
    let what = match e.classify() {
        Category::Io => "the file could not be read".to_string(),
        Category::Syntax => "invalid JSON".to_string(),
        Category::Eof => "the JSON ends early".to_string(),
        Category::Data => match missing_field(e) {
            Some(field) => format!("the record has no `{field}` field"),
            None => "a value has the wrong type or is not allowed".to_string(),
        },
    };
    format!("{what} at line {} column {}", e.line(), e.column())
}

/// The name in serde's `missing field `name`` message, accepted only when it
/// looks like one of this crate's camelCase field names.
fn missing_field(e: &serde_json::Error) -> Option<String> {
    let message = e.to_string();
    let name = message.strip_prefix("missing field `")?.split('`').next()?;
    let plausible =
        !name.is_empty() && name.len() <= 32 && name.bytes().all(|b| b.is_ascii_alphabetic());
    plausible.then(|| name.to_string())
}

/// Pretty JSON with a trailing newline, written atomically.
fn write_record<T: Serialize>(path: &Path, record: &T) -> Result<(), RegistryError> {
    let mut bytes = serde_json::to_vec_pretty(record).map_err(|_| RegistryError::Unencodable {
        path: path.to_path_buf(),
    })?;
    bytes.push(b'\n');
    write_atomic(path, &bytes)
}

fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), RegistryError> {
    crate::fsutil::write_atomic(path, bytes, crate::fsutil::PRIVATE_FILE).map_err(io_error(path))
}

fn remove(path: &Path) -> Result<bool, RegistryError> {
    match fs::remove_file(path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(io_error(path)(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reason_for(text: &str) -> String {
        let e = serde_json::from_str::<WorkItemRecord>(text).unwrap_err();
        parse_reason(&e)
    }

    #[test]
    fn parse_reasons_never_quote_values() {
        let canary = "CANARY-7f3a";
        let bad_type = format!(r#"{{"workItem": "{canary}"}}"#);
        let bad_syntax = format!(r#"{{"workItem": {canary}}}"#);
        let bad_variant = format!(
            r#"{{"workItem": {{"ref": "github:o/r#1", "provider": "github", "owner": "o",
                "repo": "r", "number": 1}}, "harness": "claude", "status": "{canary}"}}"#
        );
        for text in [bad_type, bad_syntax, bad_variant] {
            let reason = reason_for(&text);
            assert!(!reason.contains(canary), "{reason}");
            assert!(reason.contains("line "), "{reason}");
        }
    }

    #[test]
    fn missing_field_is_named() {
        assert_eq!(
            reason_for("{}"),
            "the record has no `workItem` field at line 1 column 2"
        );
    }

    #[test]
    fn eof_is_its_own_category() {
        assert_eq!(
            reason_for("{\"workItem\": "),
            "the JSON ends early at line 1 column 13"
        );
    }
}
