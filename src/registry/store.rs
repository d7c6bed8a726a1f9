//! STUB: replaced by the registry work. Signatures are the contract.
use super::record::{StandingRecord, WorkItemRecord};
use super::refs::WorkItemRef;
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

#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum RegistryError {
    #[error("registry {path}: {kind}")]
    Io { path: PathBuf, kind: std::io::ErrorKind },
    #[error("registry record {path} cannot be parsed: {reason}")]
    Corrupt { path: PathBuf, reason: String },
}

impl Registry {
    pub fn new(state_root: &Path) -> Self {
        Registry { root: state_root.to_path_buf() }
    }
    pub fn root(&self) -> &Path {
        &self.root
    }
    pub fn work_item_path(&self, _r: &WorkItemRef) -> PathBuf {
        todo!()
    }
    pub fn standing_path(&self, _name: &str) -> PathBuf {
        todo!()
    }
    pub fn work_items(&self) -> Listing<WorkItemRecord> {
        todo!()
    }
    pub fn standing(&self) -> Listing<StandingRecord> {
        todo!()
    }
    pub fn load_work_item(&self, _r: &WorkItemRef) -> Result<Option<WorkItemRecord>, RegistryError> {
        todo!()
    }
    pub fn load_standing(&self, _name: &str) -> Result<Option<StandingRecord>, RegistryError> {
        todo!()
    }
    /// Temp file in the same directory, then an atomic rename.
    pub fn save_work_item(&self, _record: &WorkItemRecord) -> Result<PathBuf, RegistryError> {
        todo!()
    }
    pub fn save_standing(&self, _record: &StandingRecord) -> Result<PathBuf, RegistryError> {
        todo!()
    }
    pub fn delete_work_item(&self, _r: &WorkItemRef) -> Result<bool, RegistryError> {
        todo!()
    }
    pub fn delete_standing(&self, _name: &str) -> Result<bool, RegistryError> {
        todo!()
    }
}
