//! Tests of `bounded_read`, kept apart so the module stays readable.

use super::*;
use crate::fsutil::not_regular;

const SMALL: Limit = Limit {
    what: "a test file",
    cap: 100,
    links: Links::Refuse,
    owner: None,
};

#[test]
fn fifos_devices_directories_and_planted_links_are_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    let zero = dir.path().join("zero");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    let file = dir.path().join("file");
    std::fs::write(&file, b"x\n").unwrap();
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&file, &link).unwrap();
    let follow = Limit {
        links: Links::Follow,
        ..SMALL
    };
    for limit in [SMALL, follow] {
        let e = read(&fifo, &limit).unwrap_err();
        assert_eq!(not_regular(&e), Some(SpecialFile::Fifo));
        assert_eq!(describe(&e), "it is a FIFO, not a regular file; left alone");
        let e = read(dir.path(), &limit).unwrap_err();
        assert_eq!(not_regular(&e), Some(SpecialFile::Directory));
        let e = read_tail(&fifo, &limit).unwrap_err();
        assert_eq!(not_regular(&e), Some(SpecialFile::Fifo));
    }
    let e = read(&zero, &follow).unwrap_err();
    assert_eq!(not_regular(&e), Some(SpecialFile::Device));
    let e = read(&zero, &SMALL).unwrap_err();
    assert_eq!(not_regular(&e), Some(SpecialFile::Symlink));
    let e = read(&link, &SMALL).unwrap_err();
    assert_eq!(not_regular(&e), Some(SpecialFile::Symlink));
    assert_eq!(read(&link, &follow).unwrap(), b"x\n");
    let e = read(&dir.path().join("absent"), &SMALL).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::NotFound);
    assert_eq!(refusal(&e), None);
}

#[test]
fn a_file_over_its_cap_is_refused_by_its_size_naming_size_and_cap() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big");
    let exact: Vec<u8> = (0..100u8).collect();
    std::fs::write(&path, &exact).unwrap();
    assert_eq!(read(&path, &SMALL).unwrap(), exact);
    std::fs::File::create(&path)
        .unwrap()
        .set_len(3 << 30)
        .unwrap();
    let e = read(&path, &SMALL).unwrap_err();
    assert_eq!(too_large(&e).map(|t| t.size), Some(Some(3 << 30)), "{e:?}");
    assert_eq!(
        describe(&e),
        "it is 3221225472 bytes, over the 100-byte limit for a test file"
    );
    let kib = Limit {
        cap: 64 * KIB,
        ..SMALL
    };
    let e = read(&path, &kib).unwrap_err();
    assert!(describe(&e).ends_with("over the 64 KiB limit for a test file"));
    let e = read_stream(&[7u8; 101][..], &SMALL).unwrap_err();
    assert_eq!(too_large(&e).map(|t| t.size), Some(None));
    assert_eq!(read_stream(&[7u8; 100][..], &SMALL).unwrap().len(), 100);
}

#[test]
fn a_tail_is_the_newest_whole_lines_within_the_cap() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log");
    let short = b"one\ntwo\n";
    std::fs::write(&path, short).unwrap();
    assert_eq!(read_tail(&path, &SMALL).unwrap(), short);
    let mut long = Vec::new();
    for i in 0..100 {
        long.extend_from_slice(format!("line {i}\n").as_bytes());
    }
    std::fs::write(&path, &long).unwrap();
    let tail = read_tail(&path, &SMALL).unwrap();
    assert!(tail.len() <= 100, "{}", tail.len());
    assert!(tail.starts_with(b"line "), "starts at a line");
    assert!(tail.ends_with(b"line 99\n"));
    // Gigabytes of nothing, then one line: the line, and nothing else.
    let file = std::fs::File::create(&path).unwrap();
    file.set_len(3 << 30).unwrap();
    file.write_at(b"\nnewest\n", (3 << 30) - 8).unwrap();
    assert_eq!(read_tail(&path, &SMALL).unwrap(), b"newest\n");
}

#[test]
fn a_file_that_must_be_yours_is_refused_when_others_can_write_it() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("record");
    std::fs::write(&path, b"{}").unwrap();
    let owned = Limit {
        owner: Some(Rule::Unwritable),
        ..SMALL
    };
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    assert_eq!(read(&path, &owned).unwrap(), b"{}");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o666)).unwrap();
    assert_eq!(read(&path, &SMALL).unwrap(), b"{}");
    let e = read(&path, &owned).unwrap_err();
    assert_eq!(
        describe(&e),
        "it is writable by its group and others (mode 0666)"
    );
}
