//! Copies of the repository's fixtures that are the test process's own.
//!
//! the-loop refuses a config, env file or record that another user owns,
//! or that others can write (issue 43, `src/fsutil/owner.rs`). CI checks
//! the repository out as one user and runs the suite as root, so a fixture
//! read where it lies would be refused there. A copy made here is this
//! process's own, with its modes set explicitly, whatever the umask.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// A copy of a fixture (a file or a directory tree), removed when dropped.
/// Derefs to the copy's path.
pub struct OwnCopy {
    _dir: tempfile::TempDir,
    path: PathBuf,
}

impl std::ops::Deref for OwnCopy {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<Path> for OwnCopy {
    fn as_ref(&self) -> &Path {
        &self.path
    }
}

/// `fixture` copied into a directory of its own, under the same name. A
/// fixture that does not exist gives a path where nothing is, as it was.
pub fn own_copy(fixture: &Path) -> OwnCopy {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(fixture.file_name().unwrap());
    if fixture.exists() {
        copy_tree(fixture, &path);
    }
    OwnCopy { _dir: dir, path }
}

fn copy_tree(from: &Path, to: &Path) {
    if from.is_dir() {
        std::fs::create_dir(to).unwrap();
        std::fs::set_permissions(to, std::fs::Permissions::from_mode(0o755)).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            copy_tree(&entry.path(), &to.join(entry.file_name()));
        }
    } else {
        std::fs::copy(from, to).unwrap();
        std::fs::set_permissions(to, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
}
