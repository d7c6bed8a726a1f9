//! The registry against real files: naming, the record format of existing
//! deployments, atomic writes and corrupt-record handling.

mod record_format;
mod refs_and_names;
mod store;

use serde_json::Value;
use std::fs;
use std::path::Path;
use the_loop::registry::{Registry, StandingRecord, Status, WorkItemRecord, WorkItemRef};

/// A state root holding records written by an existing deployment: a copy,
/// this process's own (the-loop refuses records another user owns, and CI
/// checks the repository out as another user).
fn fixture_root() -> crate::support::own_copy::OwnCopy {
    crate::support::own_copy::own_copy(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/fixtures/registry"),
    )
}

fn parse(s: &str) -> WorkItemRef {
    s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
}

/// An empty state root and the registry over it.
fn scratch() -> (tempfile::TempDir, Registry) {
    let temp = tempfile::tempdir().unwrap();
    let registry = Registry::new(temp.path());
    (temp, registry)
}

/// A fresh active work-item record for `r`, as `sessions start` begins one.
fn item(r: &WorkItemRef) -> WorkItemRecord {
    WorkItemRecord::new(r, "claude", Status::Active)
}

/// A fresh active standing record named `name`.
fn standing(name: &str) -> StandingRecord {
    StandingRecord::new(name, "claude", Status::Active)
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&fs::read(path).unwrap()).unwrap()
}

fn dir_entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}
