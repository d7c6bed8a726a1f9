//! The store: layout, listings, atomic writes, corrupt records, names that never become paths.

use super::*;
use serde_json::json;
use std::path::PathBuf;
use the_loop::registry::RegistryError;

#[test]
fn paths_follow_the_layout() {
    let registry = Registry::new(Path::new("/state"));
    assert_eq!(
        registry.work_item_path(&parse("github:ghe.example.com:8443/octo/repo#15")),
        Path::new("/state/local/github-ghe.example.com-8443-octo-repo-15.json")
    );
    assert_eq!(
        registry.standing_path("ops-watch"),
        Path::new("/state/local/standing/ops-watch.json")
    );
}

#[test]
fn a_missing_directory_is_an_empty_listing() {
    let temp = tempfile::tempdir().unwrap();
    let registry = Registry::new(&temp.path().join("nowhere"));
    let listing = registry.work_items();
    assert!(listing.records.is_empty() && listing.corrupt.is_empty());
    let standing = registry.standing();
    assert!(standing.records.is_empty() && standing.corrupt.is_empty());
}

#[test]
fn missing_records_load_as_none_and_delete_as_false() {
    let (_temp, registry) = scratch();
    let r = parse("github:octo/repo#15");
    assert!(registry.load_work_item(&r).unwrap().is_none());
    assert!(registry.load_standing("ops").unwrap().is_none());
    assert!(!registry.delete_work_item(&r).unwrap());
    assert!(!registry.delete_standing("ops").unwrap());

    registry.save_work_item(&item(&r)).unwrap();
    registry.save_standing(&standing("ops")).unwrap();
    assert!(registry.delete_work_item(&r).unwrap());
    assert!(registry.delete_standing("ops").unwrap());
    assert!(registry.load_work_item(&r).unwrap().is_none());
    assert!(registry.load_standing("ops").unwrap().is_none());
}

#[test]
fn a_corrupt_record_is_reported_and_the_others_load() {
    const CANARY: &str = "CANARY-e4b1-do-not-print";
    let (temp, registry) = scratch();
    let good = parse("github:octo/repo#1");
    registry.save_work_item(&item(&good)).unwrap();
    let local = temp.path().join("local");
    let cases = [
        // Not JSON at all.
        ("a-syntax.json", format!("{{\"workItem\": {CANARY}\n")),
        // Valid JSON, wrong type: serde_json would quote the string.
        (
            "b-type.json",
            format!(r#"{{"workItem": "{CANARY}", "harness": "claude", "status": "active"}}"#),
        ),
        // Valid record shape, impossible status: serde_json would quote the variant.
        (
            "c-variant.json",
            json!({
                "workItem": {"ref": "github:o/r#2", "provider": "github", "owner": "o", "repo": "r", "number": 2},
                "harness": "claude", "status": CANARY
            })
            .to_string(),
        ),
        // Parses, but its ref is not a ref.
        (
            "d-ref.json",
            json!({
                "workItem": {"ref": CANARY, "provider": "github", "owner": "o", "repo": "r", "number": 3},
                "harness": "claude", "status": "active"
            })
            .to_string(),
        ),
        ("e-empty.json", String::new()),
    ];
    for (name, text) in &cases {
        fs::write(local.join(name), text).unwrap();
    }

    let listing = registry.work_items();
    assert_eq!(listing.records.len(), 1);
    assert_eq!(listing.records[0].1.work_item_ref(), Ok(good));
    let reported: Vec<String> = listing
        .corrupt
        .iter()
        .map(|c| c.path.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    let planted: Vec<&str> = cases.iter().map(|(name, _)| *name).collect();
    assert_eq!(reported, planted);
    for corrupt in &listing.corrupt {
        assert!(!corrupt.reason.contains(CANARY), "{}", corrupt.reason);
        assert!(!corrupt.reason.is_empty());
    }
    let reasons: Vec<String> = listing
        .corrupt
        .iter()
        .map(|c| {
            format!(
                "{}: {}",
                c.path.file_name().unwrap().to_string_lossy(),
                c.reason
            )
        })
        .collect();
    insta::assert_yaml_snapshot!(reasons);

    // Loading the same kind of file by ref is an error that is just as quiet.
    let bad = parse("github:octo/bad#9");
    fs::write(registry.work_item_path(&bad), &cases[1].1).unwrap();
    let err = registry.load_work_item(&bad).unwrap_err();
    assert!(matches!(err, RegistryError::Corrupt { .. }), "{err:?}");
    assert!(!err.to_string().contains(CANARY), "{err}");
    assert!(!format!("{err:?}").contains(CANARY), "{err:?}");
}

#[test]
fn a_corrupt_standing_record_is_reported_and_the_others_load() {
    let (_temp, registry) = scratch();
    registry.save_standing(&standing("ops")).unwrap();
    fs::write(registry.standing_dir().join("broken.json"), "[").unwrap();
    let misnamed = standing("Not Valid");
    fs::write(
        registry.standing_dir().join("misnamed.json"),
        serde_json::to_string(&misnamed).unwrap(),
    )
    .unwrap();

    let listing = registry.standing();
    assert_eq!(listing.records.len(), 1);
    assert_eq!(listing.records[0].1.name, "ops");
    assert_eq!(listing.corrupt.len(), 2);
    assert!(listing
        .corrupt
        .iter()
        .all(|c| !c.reason.contains("Not Valid")));
}

#[test]
fn writes_leave_no_temp_files_behind() {
    let (temp, registry) = scratch();
    let r = parse("github:octo/repo#15");
    let mut record = item(&r);
    for i in 0..5 {
        record.session.record_delivery(format!("d{i}"));
        registry.save_work_item(&record).unwrap();
    }
    registry.save_standing(&standing("ops")).unwrap();

    assert_eq!(
        dir_entries(&temp.path().join("local")),
        ["github-octo-repo-15.json", "standing"]
    );
    assert_eq!(dir_entries(&registry.standing_dir()), ["ops.json"]);
    let saved = registry.load_work_item(&r).unwrap().unwrap();
    assert_eq!(
        saved.session.recent_deliveries,
        ["d0", "d1", "d2", "d3", "d4"]
    );
}

#[test]
fn a_failed_write_leaves_the_old_record_and_no_temp_file() {
    let (temp, registry) = scratch();
    let r = parse("github:octo/repo#15");
    let mut record = item(&r);
    let path = registry.save_work_item(&record).unwrap();
    let before = fs::read(&path).unwrap();

    // A cwd that is not UTF-8 cannot be written as JSON.
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        record.session.cwd = Some(std::ffi::OsStr::from_bytes(b"/work/\xff").into());
        let err = registry.save_work_item(&record).unwrap_err();
        assert!(matches!(err, RegistryError::Unencodable { .. }), "{err:?}");
    }
    // The target is a directory: refused before any temp file exists, and
    // left as it is.
    let blocked = parse("github:octo/blocked#1");
    fs::create_dir_all(registry.work_item_path(&blocked)).unwrap();
    let err = registry.save_work_item(&item(&blocked)).unwrap_err();
    assert!(matches!(err, RegistryError::NotRegular { .. }), "{err:?}");
    assert!(registry.work_item_path(&blocked).is_dir());

    assert_eq!(fs::read(&path).unwrap(), before);
    assert_eq!(
        dir_entries(&temp.path().join("local")),
        ["github-octo-blocked-1.json", "github-octo-repo-15.json"]
    );
}

#[test]
fn listing_skips_temp_files_and_other_entries() {
    let (temp, registry) = scratch();
    let r = parse("github:octo/repo#15");
    registry.save_work_item(&item(&r)).unwrap();
    registry.save_standing(&standing("ops")).unwrap();
    let local = temp.path().join("local");
    // An in-flight write by another process, half written.
    fs::write(
        local.join(".github-octo-repo-15.json.tmp-4242-0"),
        "{\"workItem\":",
    )
    .unwrap();
    fs::write(local.join(".hidden.json"), "not json").unwrap();
    fs::write(local.join("notes.txt"), "not json").unwrap();
    fs::write(local.join("github-octo-repo-15.json.bak"), "not json").unwrap();
    fs::create_dir(local.join("archive.json")).unwrap();

    let listing = registry.work_items();
    assert!(listing.corrupt.is_empty(), "{:?}", listing.corrupt);
    assert_eq!(listing.records.len(), 1);
    assert_eq!(listing.records[0].0, registry.work_item_path(&r));
    assert_eq!(registry.standing().records.len(), 1);
}

#[test]
fn listing_is_sorted_by_path() {
    let (_temp, registry) = scratch();
    for input in [
        "github:octo/zeta#1",
        "github:octo/alpha#2",
        "github:octo/mid#3",
    ] {
        registry.save_work_item(&item(&parse(input))).unwrap();
    }
    let paths: Vec<PathBuf> = registry
        .work_items()
        .records
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    let mut sorted = paths.clone();
    sorted.sort();
    assert_eq!(paths, sorted);
    assert_eq!(paths.len(), 3);
}

#[test]
fn invalid_standing_names_never_become_paths() {
    let (temp, registry) = scratch();
    let err = registry.save_standing(&standing("../escape")).unwrap_err();
    assert!(matches!(err, RegistryError::InvalidName(_)), "{err:?}");
    assert!(registry.load_standing("../escape").is_err());
    assert!(registry.delete_standing("../escape").is_err());
    assert!(dir_entries(temp.path()).is_empty());
}

#[test]
fn a_record_with_an_invalid_ref_is_not_saved() {
    let (temp, registry) = scratch();
    let mut record = item(&parse("github:octo/repo#1"));
    record.work_item.reference = "github:../../etc#1".into();
    let err = registry.save_work_item(&record).unwrap_err();
    assert!(matches!(err, RegistryError::InvalidName(_)), "{err:?}");
    assert!(dir_entries(temp.path()).is_empty());
}

#[test]
fn two_refs_sharing_a_slug_do_not_overwrite_each_other() {
    let (_temp, registry) = scratch();
    let first = parse("github:a-b/c#1");
    let second = parse("github:a/b-c#1");
    assert_eq!(first.slug(), second.slug());

    registry.save_work_item(&item(&first)).unwrap();
    let second_record = item(&second);
    let taken = |r: Result<_, RegistryError>| matches!(r, Err(RegistryError::SlugTaken { .. }));
    assert!(taken(registry.save_work_item(&second_record).map(drop)));
    assert!(taken(registry.load_work_item(&second).map(drop)));
    assert!(taken(registry.delete_work_item(&second).map(drop)));
    assert!(registry.load_work_item(&first).unwrap().is_some());
}

#[test]
fn a_corrupt_record_can_be_replaced_and_deleted() {
    let (_temp, registry) = scratch();
    let r = parse("github:octo/repo#15");
    let path = registry.work_item_path(&r);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, "{").unwrap();
    registry.save_work_item(&item(&r)).unwrap();
    assert!(registry.load_work_item(&r).unwrap().is_some());
    fs::write(&path, "{").unwrap();
    assert!(registry.delete_work_item(&r).unwrap());
}
