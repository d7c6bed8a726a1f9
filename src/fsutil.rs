//! Every file the-loop keeps under its state root goes through here.
//!
//! State files (records, the event log, locks, queue tickets, plans) are
//! created with an explicit mode, whatever the umask, and never through a
//! symlink: a link planted at `apply.lock` or `events.jsonl` would otherwise
//! make the-loop write over whatever it points at. Nothing here ever opens a
//! FIFO or a device blocking: a FIFO planted where a record belongs would
//! otherwise hang a start forever. Reading goes through
//! [`crate::bounded_read`], which uses the reads below, and [`owner`] holds
//! what is read to being the caller's own.

pub mod owner;
mod user_name;

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// Mode of every state file the-loop creates: its own user only.
pub const PRIVATE_FILE: u32 = 0o600;
/// Mode of every state directory the-loop creates.
pub const PRIVATE_DIR: u32 = 0o700;

/// What sits where a regular file was expected. Carried inside an
/// [`io::Error`] of kind `InvalidInput`; [`not_regular`] finds it again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SpecialFile {
    #[error("a directory")]
    Directory,
    #[error("a symbolic link")]
    Symlink,
    #[error("a FIFO")]
    Fifo,
    #[error("a socket")]
    Socket,
    #[error("a device")]
    Device,
}

impl SpecialFile {
    /// What a file of type `t` is, when it is not a regular file.
    pub fn of(t: std::fs::FileType) -> Option<SpecialFile> {
        if t.is_file() {
            None
        } else if t.is_dir() {
            Some(SpecialFile::Directory)
        } else if t.is_symlink() {
            Some(SpecialFile::Symlink)
        } else if t.is_fifo() {
            Some(SpecialFile::Fifo)
        } else if t.is_socket() {
            Some(SpecialFile::Socket)
        } else {
            Some(SpecialFile::Device)
        }
    }

    /// This refusal as an [`io::Error`] that [`not_regular`] recognises.
    pub fn into_error(self) -> io::Error {
        io::Error::new(io::ErrorKind::InvalidInput, self)
    }
}

/// The [`SpecialFile`] an error from this module was refused for, if any.
pub fn not_regular(e: &io::Error) -> Option<SpecialFile> {
    e.get_ref()?.downcast_ref::<SpecialFile>().copied()
}

/// A short reason for an error from this module: the special file it met,
/// or the error's kind in words. Never the file's content.
pub fn describe(e: &io::Error) -> String {
    match not_regular(e) {
        Some(special) => format!("it is {special}, not a regular file; left alone"),
        None => IoKind(e.kind()).to_string(),
    }
}

/// An I/O error's kind in an operator's words. Errors keep the kind alone
/// (an `io::Error` may carry text from elsewhere), and Rust's own wording
/// of a kind is a programmer's: `NotFound` is "entity not found".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IoKind(pub io::ErrorKind);

impl std::fmt::Display for IoKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use io::ErrorKind as K;
        f.write_str(match self.0 {
            K::NotFound => "no such file or directory",
            K::PermissionDenied => "permission denied",
            K::AlreadyExists => "it already exists",
            K::IsADirectory => "it is a directory",
            K::NotADirectory => "a part of the path is not a directory",
            K::DirectoryNotEmpty => "the directory is not empty",
            K::ReadOnlyFilesystem => "the file system is read-only",
            K::StorageFull => "no space is left on the device",
            K::QuotaExceeded => "the disk quota is exceeded",
            K::FileTooLarge => "the file is too large",
            K::InvalidFilename => "the file name is too long or not valid",
            // What `bounded_read::read_string` and the lock file say of a
            // file that is not UTF-8: the only producers of this kind here.
            K::InvalidData => "it is not UTF-8 text",
            K::TimedOut => "it timed out",
            K::Interrupted => "interrupted by a signal",
            K::ResourceBusy => "the resource is busy",
            K::ExecutableFileBusy => "the executable is being written (text file busy)",
            K::CrossesDevices => "it would cross file systems",
            K::TooManyLinks => "too many links",
            K::OutOfMemory => "out of memory",
            K::AddrInUse => "the address is already in use",
            K::AddrNotAvailable => "the address is not one of this machine's",
            K::ConnectionRefused => "the connection was refused",
            K::BrokenPipe => "the other end went away (broken pipe)",
            K::Unsupported => "it is not supported on this system",
            K::UnexpectedEof => "it ended early",
            K::WouldBlock => "it would block",
            K::ArgumentListTooLong => "the argument list is too long",
            K::Other => "an unexpected error",
            // Rust's wording, which is plain enough for the rest.
            other => return write!(f, "{other}"),
        })
    }
}

/// Creates `dir` and its missing parents as 0700. Directories that exist
/// keep their mode: the operator may have chosen it.
pub fn create_private_dir(dir: &Path) -> io::Result<()> {
    if dir.as_os_str().is_empty() {
        return Ok(());
    }
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(PRIVATE_DIR)
        .create(dir)
}

/// True the first time it is asked for `name` under `dir` (a private
/// marker file is created, never written through a link), false after.
/// When the marker cannot be made, true: a thing said twice is better than
/// a thing never said.
pub fn first_time(dir: &Path, name: &str) -> bool {
    if create_private_dir(dir).is_err() {
        return true;
    }
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(PRIVATE_FILE)
        .open(dir.join(name))
    {
        Ok(_) => true,
        Err(e) => e.kind() != io::ErrorKind::AlreadyExists,
    }
}

/// Fails unless `path` is absent or a regular file (not followed if a link).
pub fn check_regular_or_absent(path: &Path) -> io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) => match SpecialFile::of(meta.file_type()) {
            None => Ok(()),
            Some(special) => Err(special.into_error()),
        },
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// Removes `path` if it is a regular file; absent is already removed. A
/// directory, link, FIFO, socket or device there is refused (the error
/// [`not_regular`] recognises) and left in place: the-loop writes only
/// regular files, so anything else was put there by someone else.
pub fn remove_regular(path: &Path) -> io::Result<()> {
    check_regular_or_absent(path)?;
    match std::fs::remove_file(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

/// Writes `bytes` to a temp file beside `path`, syncs it, then renames it
/// over `path`, so readers see the old file or the new one, never a mix.
/// The file gets exactly `mode`. A directory, link, FIFO or socket at
/// `path` is refused, never replaced: something put it there on purpose.
pub fn write_atomic(path: &Path, bytes: &[u8], mode: u32) -> io::Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    create_private_dir(dir)?;
    check_regular_or_absent(path)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // tempfile creates with O_CREAT|O_EXCL under a random name, so a link
    // planted at the temp name is never followed, and removes the temp file
    // if anything below fails.
    let tmp = synced_temp(dir, &format!(".{name}.tmp-"), bytes, mode)?;
    // rename(2) replaces whatever name is at `path` (checked above to be a
    // regular file or nothing) without following it.
    tmp.persist(path).map_err(|e| e.error)?;
    // Makes the rename itself durable. Best-effort: not every filesystem
    // lets a directory be fsynced, and the file is already in place.
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// `bytes` in a new temp file in `dir` of exactly `mode` (set before any
/// byte is written, so the umask can neither narrow nor the default widen
/// it), synced: what both atomic writes put in place.
fn synced_temp(
    dir: &Path,
    prefix: &str,
    bytes: &[u8],
    mode: u32,
) -> io::Result<tempfile::NamedTempFile> {
    let mut tmp = tempfile::Builder::new()
        .prefix(prefix)
        .permissions(std::fs::Permissions::from_mode(mode))
        .tempfile_in(dir)?;
    tmp.as_file()
        .set_permissions(std::fs::Permissions::from_mode(mode))?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    Ok(tmp)
}

/// Writes `bytes` to `path` as a new file of exactly `mode`, only if no
/// file is there: `AlreadyExists` when one is (another process made it
/// first, and its file is the one to use). The file has `mode` from the
/// moment it is created, and is in place whole or not at all: written to a
/// temp file beside it, synced, then linked at `path` without replacing
/// anything.
pub fn create_new_atomic(path: &Path, bytes: &[u8], mode: u32) -> io::Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    create_private_dir(dir)?;
    let tmp = synced_temp(dir, ".new.tmp-", bytes, mode)?;
    tmp.persist_noclobber(path).map_err(|e| e.error)?;
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Beyond this a first buffer is not reserved up front: the read grows it.
pub const MAX_FIRST_BUFFER: usize = 1 << 20;

/// Reads `file` from where it stands to its end into a buffer of
/// `capacity` bytes first. `File::read_to_end` would ask the file's size
/// (`statx`) and position (`lseek`) before reading, and then read 32 bytes
/// to probe for the end: for a `/proc` file, whose size reads 0, that is
/// three calls wasted on every read, and a plan of 500 sessions reads
/// about 3,000 such files. Here a file that fits is two `read`s: its
/// bytes, and the end. They go straight into the buffer's spare capacity
/// (rustix's `spare_capacity`): the generic `read_to_end` would zero it
/// first, and at a plan's 3,000 reads that was about 12 MB of `memset`.
pub fn read_whole(file: &File, capacity: usize) -> io::Result<Vec<u8>> {
    read_into(file, capacity, None, usize::MAX)
}

/// [`read_whole`] for a file that hands over all it has in one read when the
/// buffer is larger: a regular file whose size is known (`size`), or a
/// `/proc` file the kernel formats whole, such as `stat` (`size` 0). The
/// read that returns less than was asked, once `size` bytes are in, ends it:
/// one `read` a file instead of two. `environ` and `cmdline` too: the
/// kernel copies them out of the other process's memory page by page, but
/// all within one `read` ([`crate::proc_env::ProcessDir`]).
pub fn read_short_ends(file: &File, capacity: usize, size: usize) -> io::Result<Vec<u8>> {
    read_into(file, capacity, Some(size), usize::MAX)
}

/// [`read_short_ends`] that stops once `limit` bytes are in: the buffer
/// never holds more, whatever the file holds or keeps producing.
pub fn read_at_most(
    file: &File,
    capacity: usize,
    size: usize,
    limit: usize,
) -> io::Result<Vec<u8>> {
    read_into(file, capacity, Some(size), limit)
}

fn read_into(
    file: &File,
    capacity: usize,
    short_ends_after: Option<usize>,
    limit: usize,
) -> io::Result<Vec<u8>> {
    // `with_capacity` gives exactly what it is asked for, so the spare room
    // a read fills never reaches past `limit`.
    let mut bytes = Vec::with_capacity(capacity.max(64).min(limit));
    loop {
        if bytes.len() >= limit {
            return Ok(bytes);
        }
        if bytes.len() == bytes.capacity() {
            let more = bytes.len().min(limit - bytes.len());
            if limit == usize::MAX {
                bytes.reserve(more);
            } else {
                let mut bigger = Vec::with_capacity(bytes.len() + more);
                bigger.extend_from_slice(&bytes);
                bytes = bigger;
            }
        }
        let asked = bytes.capacity() - bytes.len();
        match rustix::io::read(file, rustix::buffer::spare_capacity(&mut bytes)) {
            Ok(0) => return Ok(bytes),
            Ok(got) if got < asked && short_ends_after.is_some_and(|size| bytes.len() >= size) => {
                return Ok(bytes)
            }
            Ok(_) => {}
            Err(rustix::io::Errno::INTR) => {}
            Err(err) => return Err(err.into()),
        }
    }
}

/// Opens a state file for appending (the event log), creating it with
/// `mode`. A link or special file at `path` is refused.
pub fn open_append(path: &Path, mode: u32) -> io::Result<File> {
    open_state(path, mode, OpenOptions::new().append(true))
}

/// Opens a state file for reading and writing (locks, counters), creating
/// it with `mode`. A link or special file at `path` is refused.
pub fn open_read_write(path: &Path, mode: u32) -> io::Result<File> {
    open_state(path, mode, OpenOptions::new().read(true).write(true))
}

fn open_state(path: &Path, mode: u32, options: &mut OpenOptions) -> io::Result<File> {
    if let Some(dir) = path.parent() {
        create_private_dir(dir)?;
    }
    // O_NOFOLLOW fails on a link (ELOOP); O_NONBLOCK keeps a FIFO from
    // hanging the open, and the type check below then refuses it.
    options
        .custom_flags(nix::libc::O_NOFOLLOW | nix::libc::O_NONBLOCK)
        .mode(mode);
    let created = options.clone().create_new(true).open(path);
    let (file, new) = match created {
        Ok(file) => (file, true),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => match options.open(path) {
            Ok(file) => (file, false),
            // ELOOP for a link; ENXIO for a FIFO with no reader: say which.
            Err(e) => {
                check_regular_or_absent(path)?;
                return Err(e);
            }
        },
        Err(e) => return Err(e),
    };
    if let Some(special) = SpecialFile::of(file.metadata()?.file_type()) {
        return Err(special.into_error());
    }
    if new {
        file.set_permissions(std::fs::Permissions::from_mode(mode))?;
    }
    Ok(file)
}

/// `path` joined to `base` when relative, with `.` components and repeated
/// separators removed (`..` is kept: it may cross a symlink).
pub fn absolute(base: &std::path::Path, path: &std::path::Path) -> std::path::PathBuf {
    base.join(path).components().collect()
}

#[cfg(test)]
mod tests;
