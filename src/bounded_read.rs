//! The one way the-loop reads a file: without blocking, and within a bound.
//!
//! Every config, env file, registry record, intent journal entry, activity
//! file, saved plan and state file is read here. Before the open the path
//! is looked at, and anything but a regular file (a FIFO, a device, a
//! socket, a directory) is refused without being opened: opening a FIFO
//! blocks until a writer comes, and reading `/dev/zero` never ends. The
//! open itself is `O_NONBLOCK | O_NOCTTY` (and `O_NOFOLLOW` for the files
//! the-loop writes itself, where a link can only be planted), and the file
//! is looked at again through its descriptor, in case the name was swapped
//! in between. Each kind of file has a [`Limit`]: a file over its cap is
//! refused by its size before a byte is read, and a file that grows while
//! it is read is never read past one byte more than the cap. The caps are
//! listed in `docs/reliability.md` (issue 34, part 3).
//!
//! Errors are [`io::Error`]s whose payload says what was refused:
//! [`crate::fsutil::SpecialFile`] for a file that is not regular, [`TooLarge`]
//! for one over its cap, [`crate::fsutil::owner::NotYours`] for one whose
//! kind must be the caller's own and is not (checked through the same
//! descriptor). [`describe`] says any of them in words, naming sizes, owners
//! and modes, never content.

use crate::fsutil::owner::Rule;
use crate::fsutil::SpecialFile;
use std::fs::{File, FileType, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;

/// Whether a symbolic link at the path is followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Links {
    /// A file the operator names (the config, the env file, a saved plan)
    /// may be a link to a regular file.
    Follow,
    /// A file the-loop writes itself is never a link: one found there was
    /// planted, and is refused as "a symbolic link".
    Refuse,
}

/// What a kind of file is called in an error, how large it may be,
/// whether a link to it is followed, and whether it must be the caller's
/// own ([`crate::fsutil::owner`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    pub what: &'static str,
    pub cap: u64,
    pub links: Links,
    /// `Some` for a file whose writer decides what the-loop does (the
    /// config, the env file, records, journal entries, the key): one owned
    /// by another user, or writable by others, is refused.
    pub owner: Option<Rule>,
}

const KIB: u64 = 1024;
const MIB: u64 = 1024 * KIB;

/// `cli-config.yaml`.
pub const CONFIG: Limit = Limit {
    what: "a config",
    cap: MIB,
    links: Links::Follow,
    owner: Some(Rule::Unwritable),
};
/// The env file. 200,000 names (`tests/it/envfile/errors.rs`) are about 1.8 MB.
pub const ENV_FILE: Limit = Limit {
    what: "an env file",
    cap: 4 * MIB,
    links: Links::Follow,
    owner: Some(Rule::Unwritable),
};
/// A registry record (`local/*.json`, `standing/*.json`).
pub const RECORD: Limit = Limit {
    what: "a registry record",
    cap: 256 * KIB,
    links: Links::Refuse,
    owner: Some(Rule::Unwritable),
};
/// An intent journal entry (`journal/*.json`): names, ids and three paths.
pub const JOURNAL_ENTRY: Limit = Limit {
    what: "an intent journal entry",
    cap: 64 * KIB,
    links: Links::Refuse,
    owner: Some(Rule::Unwritable),
};
/// A remembered failed resume (`resume-failures/*.json`): names and ids.
pub const RESUME_FAILURE: Limit = Limit {
    what: "a remembered failed resume",
    cap: 64 * KIB,
    links: Links::Refuse,
    owner: Some(Rule::Unwritable),
};
/// An activity file (`activity/<pid>.jsonl`), read with [`read_tail`]: the
/// hook starts a file over past 256 KiB, so its newest records are always
/// within this many bytes of its end.
pub const ACTIVITY_TAIL: Limit = Limit {
    what: "an activity file",
    cap: 320 * KIB,
    links: Links::Refuse,
    owner: None,
};
/// The event log (`events.jsonl`), read from its end by `the-loop
/// history`: it only grows, so its newest lines are what is read, from a
/// line start, and a longer log says its oldest rolls are not listed.
pub const EVENT_LOG_TAIL: Limit = Limit {
    what: "the event log",
    cap: 16 * MIB,
    links: Links::Refuse,
    owner: None,
};
/// A plan saved by `plan --out`, read by `apply --plan`.
pub const SAVED_PLAN: Limit = Limit {
    what: "a saved plan",
    cap: 32 * MIB,
    links: Links::Follow,
    owner: None,
};
/// What `watch` remembers (`watch-state.json`): a few hundred bytes a session.
pub const WATCH_MEMORY: Limit = Limit {
    what: "the watch memory",
    cap: 16 * MIB,
    links: Links::Refuse,
    owner: None,
};
/// The fingerprint key (`fingerprint.key`): 32 bytes. The cap is a little
/// over, so a file of the wrong size is read and refused by its size.
pub const FINGERPRINT_KEY: Limit = Limit {
    what: "the fingerprint key",
    cap: 64,
    links: Links::Refuse,
    owner: Some(Rule::Private),
};
/// A state file of a few words: a pidfile, a lock's holder line, a counter,
/// the hook settings the-loop writes for its harnesses, a control file.
pub const STATE_TEXT: Limit = Limit {
    what: "a state file",
    cap: 64 * KIB,
    links: Links::Refuse,
    owner: None,
};
/// What a harness itself writes about one of its running processes
/// (Claude Code's `sessions/<pid>.json`: a pid, a conversation id, a few
/// words of state).
pub const HARNESS_SESSION: Limit = Limit {
    what: "a harness's session file",
    cap: 64 * KIB,
    links: Links::Refuse,
    owner: None,
};
/// A first prompt the-loop saved for a launcher to take.
pub const BOOT_PROMPT: Limit = Limit {
    what: "a boot prompt",
    cap: MIB,
    links: Links::Refuse,
    owner: None,
};
/// A message for `sessions deliver --file` (or its stdin).
pub const MESSAGE: Limit = Limit {
    what: "a message",
    cap: MIB,
    links: Links::Follow,
    owner: None,
};
/// A value `the-loop fingerprint` reads from stdin: as large as an env
/// file may be, since one value can fill it.
pub const VALUE: Limit = Limit {
    what: "a value",
    cap: 4 * MIB,
    links: Links::Follow,
    owner: None,
};
/// A harness's own settings in the person's home (`~/.claude.json`, which
/// Claude Code grows with every project it has seen).
pub const USER_SETTINGS: Limit = Limit {
    what: "a harness settings file",
    cap: 64 * MIB,
    links: Links::Follow,
    owner: None,
};
/// A small file of the system's, such as `/etc/os-release`.
pub const SYSTEM_FILE: Limit = Limit {
    what: "a system file",
    cap: 64 * KIB,
    links: Links::Follow,
    owner: None,
};

/// A file over its kind's cap. Carried inside an [`io::Error`] of kind
/// `FileTooLarge`; [`too_large`] finds it again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooLarge {
    /// Its size when it was opened; `None` when it grew past the cap while
    /// it was read.
    pub size: Option<u64>,
    pub limit: Limit,
}

impl std::fmt::Display for TooLarge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let cap = size_words(self.limit.cap);
        let what = self.limit.what;
        match self.size {
            Some(size) => write!(f, "it is {size} bytes, over the {cap} limit for {what}"),
            None => write!(
                f,
                "it grew past the {cap} limit for {what} while it was read"
            ),
        }
    }
}

impl std::error::Error for TooLarge {}

impl TooLarge {
    fn into_error(self) -> io::Error {
        io::Error::new(io::ErrorKind::FileTooLarge, self)
    }
}

/// `64 KiB`, `4 MiB`: a cap as the docs write it.
fn size_words(bytes: u64) -> String {
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else if bytes >= KIB && bytes.is_multiple_of(KIB) {
        format!("{} KiB", bytes / KIB)
    } else {
        format!("{bytes}-byte")
    }
}

/// The [`TooLarge`] an error from this module was refused for, if any.
pub fn too_large(e: &io::Error) -> Option<TooLarge> {
    e.get_ref()?.downcast_ref::<TooLarge>().copied()
}

/// Why a file was refused (not a regular file, over its cap, or not the
/// caller's own), in words that name sizes, kinds, owners and modes only;
/// `None` for any other error.
pub fn refusal(e: &io::Error) -> Option<String> {
    if crate::fsutil::not_regular(e).is_some() {
        return Some(crate::fsutil::describe(e));
    }
    if let Some(not_yours) = crate::fsutil::owner::not_yours(e) {
        return Some(format!("it is {not_yours}"));
    }
    too_large(e).map(|t| t.to_string())
}

/// [`refusal`], or the error's kind in words.
pub fn describe(e: &io::Error) -> String {
    refusal(e).unwrap_or_else(|| crate::fsutil::IoKind(e.kind()).to_string())
}

/// Opens `path` for reading if it is a regular file; with its size.
/// `listed` is what a directory listing just said the entry is, when the
/// caller has one: a regular file there spares the look before the open
/// (a stat per record in a plan of 500); the look through the descriptor
/// still follows.
fn open(path: &Path, limit: &Limit, listed: Option<FileType>) -> io::Result<(File, u64)> {
    // Looked at before the open: opening a FIFO may block, and opening some
    // devices does something (a tape rewinds), so neither is ever opened.
    if !listed.is_some_and(|t| t.is_file()) {
        let seen = match limit.links {
            Links::Follow => std::fs::metadata(path)?,
            Links::Refuse => std::fs::symlink_metadata(path)?,
        };
        if let Some(special) = SpecialFile::of(seen.file_type()) {
            return Err(special.into_error());
        }
    }
    let mut flags = nix::libc::O_NONBLOCK | nix::libc::O_NOCTTY;
    if limit.links == Links::Refuse {
        flags |= nix::libc::O_NOFOLLOW;
    }
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(flags)
        .open(path)
        .map_err(|e| match e.raw_os_error() {
            // A link put there since it was looked at.
            Some(nix::libc::ELOOP) if limit.links == Links::Refuse => {
                SpecialFile::Symlink.into_error()
            }
            _ => e,
        })?;
    // And again through the descriptor: the name may have been swapped.
    // The owner and mode are read there too, so the file held to being
    // the caller's own is the one read, and no stat is added to a plan.
    let meta = file.metadata()?;
    if let Some(special) = SpecialFile::of(meta.file_type()) {
        return Err(special.into_error());
    }
    if let Some(rule) = limit.owner {
        crate::fsutil::owner::check(&meta, rule).map_err(|n| n.into_error())?;
    }
    Ok((file, meta.len()))
}

/// Reads the regular file at `path` whole, within `limit`; `NotFound` when
/// there is none.
pub fn read(path: &Path, limit: &Limit) -> io::Result<Vec<u8>> {
    read_listed(path, limit, None)
}

/// [`read`], for an entry a directory listing just named with its type
/// (`std::fs::DirEntry::file_type`, which costs no stat), when it did.
pub fn read_listed(path: &Path, limit: &Limit, listed: Option<FileType>) -> io::Result<Vec<u8>> {
    let (file, size) = open(path, limit, listed)?;
    read_opened(&file, size, limit)
}

/// [`read`], as UTF-8 text (`InvalidData` when it is not).
pub fn read_string(path: &Path, limit: &Limit) -> io::Result<String> {
    String::from_utf8(read(path, limit)?).map_err(|_| io::ErrorKind::InvalidData.into())
}

/// Reads an open file from where it stands, within `limit`, if it is a
/// regular file (a lock file, opened and locked by the caller).
pub fn read_file(file: &File, limit: &Limit) -> io::Result<Vec<u8>> {
    let meta = file.metadata()?;
    if let Some(special) = SpecialFile::of(meta.file_type()) {
        return Err(special.into_error());
    }
    read_opened(file, meta.len(), limit)
}

/// Reads a stream (stdin) to its end, within `limit`.
pub fn read_stream(stream: impl Read, limit: &Limit) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    stream
        .take(limit.cap.saturating_add(1))
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit.cap {
        return Err(TooLarge {
            size: None,
            limit: *limit,
        }
        .into_error());
    }
    Ok(bytes)
}

fn read_opened(file: &File, size: u64, limit: &Limit) -> io::Result<Vec<u8>> {
    if size > limit.cap {
        return Err(TooLarge {
            size: Some(size),
            limit: *limit,
        }
        .into_error());
    }
    let cap = usize::try_from(limit.cap).unwrap_or(usize::MAX);
    let size = usize::try_from(size).unwrap_or(cap);
    // One byte more than the size, so the read that finds the end needs no
    // room of its own; one more than the cap, so a file that grew past it
    // is seen to have, and never read further.
    let bytes =
        crate::fsutil::read_at_most(file, size.saturating_add(1), size, cap.saturating_add(1))?;
    if bytes.len() > cap {
        return Err(TooLarge {
            size: None,
            limit: *limit,
        }
        .into_error());
    }
    Ok(bytes)
}

/// The last `limit.cap` bytes of the file at `path` (all of it when it is
/// smaller), starting at a line: when the file is cut, its first, torn
/// line is dropped. For a file only its newest lines matter in.
pub fn read_tail(path: &Path, limit: &Limit) -> io::Result<Vec<u8>> {
    let (file, size) = open(path, limit, None)?;
    if size <= limit.cap {
        match read_opened(&file, size, limit) {
            Err(e) if too_large(&e).is_some() => {}
            read => return read,
        }
    }
    let size = file.metadata()?.len();
    // From one byte before the last `cap`: when that byte ends a line, the
    // line after it is whole and kept.
    let from = size.saturating_sub(limit.cap.saturating_add(1));
    let mut tail = vec![0; usize::try_from(size - from).unwrap_or(0)];
    let mut got = 0;
    while got < tail.len() {
        match file.read_at(&mut tail[got..], from + got as u64) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    tail.truncate(got);
    if from > 0 || got as u64 > limit.cap {
        match memchr::memchr(b'\n', &tail) {
            Some(end) => drop(tail.drain(..=end)),
            None => tail.clear(),
        }
    }
    Ok(tail)
}

#[cfg(test)]
mod tests;
