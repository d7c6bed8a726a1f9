//! A directory of small JSON files, one per tmux session, beside the
//! registry: the intent journal ([`super::journal`]) and the remembered
//! failed resumes ([`super::resume_failures`]) both keep their state so.
//!
//! Both key a file on a tmux session name, which a record's `tmuxTarget`
//! makes input: the check that keeps a name from climbing out of the
//! directory, the atomic 0600 write in a 0700 directory, the bounded read
//! that refuses a FIFO, a link or a huge file, and the removal of a regular
//! file only, are each kept here once, so the two cannot drift apart.

use crate::bounded_read::Limit;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::io;
use std::path::{Path, PathBuf};

/// What a directory of target files is called, how large a file may be,
/// and the words its warnings use.
pub struct Kind {
    /// The directory's name under the state root.
    pub folder: &'static str,
    pub limit: &'static Limit,
    /// Starts the warning for a file that cannot be read or parsed.
    pub unreadable: &'static str,
    /// Says why, for a file that reads but does not parse.
    pub unparsed: &'static str,
    /// Starts the warning for a file that cannot be removed.
    pub unremovable: &'static str,
}

pub struct TargetFile {
    dir: PathBuf,
    kind: &'static Kind,
}

impl TargetFile {
    pub fn under(state_root: &Path, kind: &'static Kind) -> Self {
        TargetFile {
            dir: state_root.join(kind.folder),
            kind,
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where the file of `tmux_target` is kept. `None` for a name that
    /// could climb out of the directory; tmux names the-loop builds never
    /// can, but a record's `tmuxTarget` is input.
    pub fn path(&self, tmux_target: &str) -> Option<PathBuf> {
        let safe = !tmux_target.is_empty()
            && !tmux_target.starts_with('.')
            && !tmux_target.contains(['/', '\0']);
        safe.then(|| self.dir.join(format!("{tmux_target}.json")))
    }

    /// Writes `value` as the file of `tmux_target`, atomically and durably,
    /// replacing what was kept for it.
    pub fn write(&self, tmux_target: &str, value: &impl Serialize) -> io::Result<()> {
        let path = self.path(tmux_target).ok_or_else(|| {
            io::Error::new(io::ErrorKind::InvalidInput, "unsafe tmux session name")
        })?;
        crate::fsutil::create_private_dir(&self.dir)?;
        let bytes = serde_json::to_vec_pretty(value).map_err(io::Error::other)?;
        crate::fsutil::write_atomic(&path, &bytes, crate::fsutil::PRIVATE_FILE)
    }

    /// The file of `tmux_target`, as [`TargetFile::read`] reads it.
    pub fn load<T: DeserializeOwned>(&self, tmux_target: &str) -> Option<T> {
        self.read(&self.path(tmux_target)?)
    }

    /// One file, read without blocking and within its cap; `None` when
    /// there is none, or (with a warning naming the file and why) when it
    /// cannot be read or parsed: what is kept here can only ever make a
    /// session be reported or left alone, so an unreadable file is passed.
    pub fn read<T: DeserializeOwned>(&self, path: &Path) -> Option<T> {
        let why = match crate::bounded_read::read(path, self.kind.limit) {
            Ok(bytes) => match serde_json::from_slice::<T>(&bytes) {
                Ok(value) => return Some(value),
                Err(_) => self.kind.unparsed.to_owned(),
            },
            Err(e) if e.kind() == io::ErrorKind::NotFound => return None,
            Err(e) => crate::bounded_read::describe(&e),
        };
        tracing::warn!(path = %path.display(), "{}: {why}", self.kind.unreadable);
        None
    }

    /// Removes the file of `tmux_target`; a missing one is already gone.
    /// Only a regular file is removed: a FIFO, a directory or a link in its
    /// place is not one the-loop wrote, and is left there.
    pub fn remove(&self, tmux_target: &str) {
        let Some(path) = self.path(tmux_target) else {
            return;
        };
        if let Err(e) = crate::fsutil::remove_regular(&path) {
            tracing::warn!(
                path = %path.display(),
                "{}: {}",
                self.kind.unremovable,
                crate::fsutil::describe(&e)
            )
        }
    }
}
