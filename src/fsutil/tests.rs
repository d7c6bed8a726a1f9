//! Tests of `fsutil`, kept apart so the module stays readable.

use super::*;

#[test]
fn write_atomic_refuses_links_and_directories_and_sets_the_mode() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim");
    std::fs::write(&victim, b"keep").unwrap();
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    let e = write_atomic(&link, b"x", PRIVATE_FILE).unwrap_err();
    assert_eq!(not_regular(&e), Some(SpecialFile::Symlink));
    assert_eq!(std::fs::read(&victim).unwrap(), b"keep");

    let sub = dir.path().join("sub.json");
    std::fs::create_dir(&sub).unwrap();
    let e = write_atomic(&sub, b"x", PRIVATE_FILE).unwrap_err();
    assert_eq!(not_regular(&e), Some(SpecialFile::Directory));

    let file = dir.path().join("new").join("file.json");
    write_atomic(&file, b"x", 0o640).unwrap();
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&file), 0o640);
    assert_eq!(mode(file.parent().unwrap()), PRIVATE_DIR);
}

#[test]
fn fifos_are_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    let e = open_append(&fifo, PRIVATE_FILE).unwrap_err();
    assert_eq!(not_regular(&e), Some(SpecialFile::Fifo));
    let e = write_atomic(&fifo, b"x", PRIVATE_FILE).unwrap_err();
    assert_eq!(not_regular(&e), Some(SpecialFile::Fifo));
}

#[test]
fn open_state_refuses_a_link_and_creates_private_files() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim");
    std::fs::write(&victim, b"keep").unwrap();
    let link = dir.path().join("apply.lock");
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    let e = open_read_write(&link, PRIVATE_FILE).unwrap_err();
    assert_eq!(not_regular(&e), Some(SpecialFile::Symlink));
    let dangling = dir.path().join("events.jsonl");
    std::os::unix::fs::symlink(dir.path().join("nowhere"), &dangling).unwrap();
    assert!(open_append(&dangling, PRIVATE_FILE).is_err());
    assert!(!dir.path().join("nowhere").exists());

    let fresh = dir.path().join("counter");
    open_read_write(&fresh, PRIVATE_FILE).unwrap();
    let mode = std::fs::metadata(&fresh).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, PRIVATE_FILE);
}

#[test]
fn read_whole_reads_past_its_first_buffer_and_proc_files_whole() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big");
    let bytes: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
    std::fs::write(&big, &bytes).unwrap();
    for capacity in [0, 1, 4096, 100_000, 200_000] {
        let read = read_whole(&File::open(&big).unwrap(), capacity).unwrap();
        assert_eq!(read, bytes, "first buffer {capacity}");
    }
    // Never more than the limit, whatever the first buffer.
    for (capacity, limit) in [(0, 1), (64, 1000), (100_001, 65_537), (8, 100_000)] {
        let read = read_at_most(&File::open(&big).unwrap(), capacity, 100_000, limit).unwrap();
        assert_eq!(read, bytes[..limit], "buffer {capacity}, limit {limit}");
        assert!(read.capacity() <= limit, "{}", read.capacity());
    }
    // A /proc file reads 0 as its size and is still read whole.
    let own = std::fs::read("/proc/self/cmdline").unwrap();
    let read = read_whole(&File::open("/proc/self/cmdline").unwrap(), 8).unwrap();
    assert_eq!(read, own);
}

/// The kinds a person meets are said in their words, not Rust's.
#[test]
fn io_kinds_are_said_in_words() {
    use io::ErrorKind as K;
    assert_eq!(IoKind(K::NotFound).to_string(), "no such file or directory");
    assert_eq!(IoKind(K::Other).to_string(), "an unexpected error");
    for kind in [K::NotFound, K::IsADirectory, K::InvalidData, K::Other] {
        assert_ne!(IoKind(kind).to_string(), kind.to_string(), "{kind:?}");
    }
}

#[test]
fn a_read_that_ends_short_is_whole_once_the_known_size_is_in() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("record");
    let bytes: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
    std::fs::write(&path, &bytes).unwrap();
    // A first buffer smaller than the file: reads go on past it.
    for (capacity, size) in [(100, 10_000), (10_001, 10_000), (64, 0), (20_000, 20_000)] {
        let read = read_short_ends(&File::open(&path).unwrap(), capacity, size).unwrap();
        assert_eq!(read, bytes, "buffer {capacity}, size {size}");
    }
    let stat = std::fs::read("/proc/self/stat").unwrap();
    let read = read_short_ends(&File::open("/proc/self/stat").unwrap(), 4096, 0).unwrap();
    // The same process, a moment later: its pid and name agree (its
    // state, the third field, may not: a CI run saw R, then S), and the
    // read is the whole line.
    let fields = |b: &[u8]| {
        b.split(|c| *c == b' ')
            .take(2)
            .map(<[u8]>::to_vec)
            .collect::<Vec<_>>()
    };
    assert_eq!(fields(&read), fields(&stat));
    assert!(read.ends_with(b"\n") && stat.ends_with(b"\n"));
}
