//! The registry against real files: naming, the record format of existing
//! deployments, atomic writes and corrupt-record handling.

use serde::Serialize;
use serde_json::{json, Value};
use std::fs;
use std::path::{Path, PathBuf};
use the_loop::registry::{
    normalise_tmux_target, standing_tmux_name, validate_standing_name, Registry, RegistryError,
    StandingRecord, Status, WorkItemRecord, WorkItemRef,
};

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

// ---- refs and names ----

#[derive(Serialize)]
struct Names {
    input: &'static str,
    canonical: String,
    slug: String,
    tmux: String,
}

#[test]
fn refs_map_to_canonical_text_slug_and_tmux_name() {
    let table: Vec<Names> = [
        "github:octo/repo#15",
        "github:octo/foo.js#3",
        "github:ghe.example.com/octo/repo#15",
        "github:ghe.example.com:8443/octo/repo#15",
        "github:Octo-Org/My_Repo.v2#7",
        "github:octo/..hidden.#1",
        "gitlab:gitlab.example.org/group/project#12345",
        "github:a-b/c#1",
        "github:a/b-c#1",
    ]
    .into_iter()
    .map(|input| {
        let r = parse(input);
        Names {
            input,
            canonical: r.to_string(),
            slug: r.slug(),
            tmux: r.tmux_name(),
        }
    })
    .collect();
    for row in &table {
        assert_eq!(
            row.canonical, row.input,
            "Display gives back the canonical text"
        );
        assert!(!row.tmux.contains(['.', ':']), "{}", row.tmux);
    }
    insta::assert_yaml_snapshot!(table);
}

#[test]
fn bad_refs_are_refused_without_echoing_them() {
    let bad = [
        "",
        "octo/repo#15",
        "GitHub:octo/repo#15",
        "git-hub:octo/repo#15",
        ":octo/repo#15",
        "github:octo/repo",
        "github:octo/repo#",
        "github:octo/repo#0",
        "github:octo/repo#015",
        "github:octo/repo#-1",
        "github:octo/repo#+1",
        "github:octo/repo#1.5",
        "github:octo/repo#99999999999999999999999",
        "github:octo/repo#15 ",
        "github:octo#15",
        "github:/repo#15",
        "github:octo/#15",
        "github:a/b/c/d#15",
        "github:octo/re po#15",
        "github:octo/repo;rm#15",
        "github:octo/..#15",
        "github:../repo#15",
        "github:octo/rëpo#15",
        "github:ghe..example.com/octo/repo#15",
        "github:-ghe.example.com/octo/repo#15",
        "github:ghe_example.com/octo/repo#15",
        "github:ghe.example.com:/octo/repo#15",
        "github:ghe.example.com:0/octo/repo#15",
        "github:ghe.example.com:65536/octo/repo#15",
        "github:ghe.example.com:84a3/octo/repo#15",
        "github:ghe.example.com:8443:1/octo/repo#15",
    ];
    let mut table = String::new();
    for input in bad {
        let err = input.parse::<WorkItemRef>().expect_err(input);
        let message = err.to_string();
        if !input.is_empty() {
            assert!(!message.contains(input), "{message}");
        }
        table.push_str(&format!("{input:?}\n    {message}\n"));
    }
    insta::assert_snapshot!(table);
}

#[test]
fn tmux_targets_read_back_are_spelled_as_tmux_spells_them() {
    let table: Vec<(&str, String)> = [
        "",
        "loop-github-octo-repo-15",
        "loop-github-octo-foo.js-3",
        "loop-github-octo-foo_js-3",
        "loop-github-ghe.example.com-8443-octo-repo-15",
        "loop-github-octo-foo.js-3:0",
        "loop-github-octo-foo.js-3:1.2",
        "loop-github-octo-foo.js-3:1.",
        "loop-github-ghe.example.com:8443-octo-repo-15",
        "loop-standing-ops-watch",
        "%12",
        ":1",
    ]
    .into_iter()
    .map(|target| (target, normalise_tmux_target(target)))
    .collect();
    for (target, normalised) in &table {
        assert_eq!(
            &normalise_tmux_target(normalised),
            normalised,
            "idempotent for {target}"
        );
    }
    insta::assert_yaml_snapshot!(table);
}

#[test]
fn a_minted_tmux_name_is_already_normal() {
    let r = parse("github:ghe.example.com:8443/octo/foo.js#3");
    assert_eq!(normalise_tmux_target(&r.tmux_name()), r.tmux_name());
}

#[test]
fn standing_names_follow_the_pattern() {
    assert_eq!(validate_standing_name("ops-watch"), Ok(()));
    assert_eq!(standing_tmux_name("ops-watch"), "loop-standing-ops-watch");
    for bad in [
        "",
        "Ops",
        "-ops",
        "ops_watch",
        "ops.watch",
        "../ops",
        &"x".repeat(41),
    ] {
        let err = validate_standing_name(bad).expect_err(bad);
        assert!(
            err.to_string().starts_with("not a standing-session name"),
            "{err}"
        );
    }
}

// ---- the record format of existing deployments ----

#[test]
fn a_record_from_an_existing_deployment_loads() {
    let root = fixture_root();
    let registry = Registry::new(&root);
    let r = parse("github:octo/widgets.js#42");
    let record = registry
        .load_work_item(&r)
        .unwrap()
        .expect("fixture present");

    assert_eq!(record.work_item_ref(), Ok(r));
    assert_eq!(record.session.harness, "claude");
    assert_eq!(
        record.session.harness_session_id.as_deref(),
        Some("0b9f7c1e-5d2a-4c6e-9a43-7e1f2d8b6a10")
    );
    assert_eq!(
        record.session.cwd.as_deref(),
        Some(Path::new(
            "/home/dev/.the-loop/workspaces/github-octo-widgets.js-42"
        ))
    );
    assert_eq!(record.session.status, Status::Active);
    assert!(record.session.is_live());
    assert_eq!(
        record.session.created_at.as_deref(),
        Some("2026-08-01T09:14:03Z")
    );
    assert_eq!(
        record.session.last_event_at.as_deref(),
        Some("2026-08-03T17:42:51Z")
    );
    // Written before issue-154: the dotted name is read as the one tmux holds.
    assert_eq!(
        record.session.tmux_target.as_deref(),
        Some("loop-github-octo-widgets.js-42")
    );
    assert_eq!(
        record.session.tmux_target().as_deref(),
        Some("loop-github-octo-widgets_js-42")
    );
    assert_eq!(record.session.recent_deliveries.len(), 3);
    assert_eq!(
        record.url.as_deref(),
        Some("https://github.com/octo/widgets.js/issues/42")
    );
    assert_eq!(
        record.pull_request_refs(),
        ["github:octo/widgets.js#43", "github:octo/widgets.js#44"]
    );
    assert_eq!(record.launch.model.as_deref(), Some("opus"));
    assert_eq!(record.launch.effort.as_deref(), Some("high"));
    assert_eq!(
        record.launch.harness_args.as_deref(),
        Some(&["--permission-mode".to_string(), "acceptEdits".to_string()][..])
    );
    assert_eq!(record.extra["runner"], json!("process"));
    assert_eq!(
        record.work_item.extra["title"],
        json!("Widgets render twice on resize")
    );
}

#[test]
fn an_enterprise_record_with_no_session_yet_loads() {
    let root = fixture_root();
    let registry = Registry::new(&root);
    let r = parse("github:ghe.example.com:8443/platform/infra#7");
    let record = registry.load_work_item(&r).unwrap().unwrap();
    assert_eq!(record.session.status, Status::Closed);
    assert!(!record.session.is_live());
    assert_eq!(
        record.session.tmux_target(),
        None,
        "an empty tmuxTarget heals lazily"
    );
    assert_eq!(record.session.harness_session_id, None);
}

#[test]
fn a_standing_record_from_an_existing_deployment_loads() {
    let root = fixture_root();
    let registry = Registry::new(&root);
    let record = registry.load_standing("ops-watch").unwrap().unwrap();
    assert_eq!(record.session.status, Status::Paused);
    assert_eq!(
        record.session.tmux_target().as_deref(),
        Some("loop-standing-ops-watch")
    );
    assert_eq!(record.extra["schedule"], json!({"cron": "0 * * * *"}));
}

#[test]
fn the_fixture_listing_has_every_record_and_nothing_corrupt() {
    let root = fixture_root();
    let registry = Registry::new(&root);
    let listing = registry.work_items();
    assert!(listing.corrupt.is_empty(), "{:?}", listing.corrupt);
    let refs: Vec<String> = listing
        .records
        .iter()
        .map(|(_, r)| r.work_item.reference.clone())
        .collect();
    assert_eq!(
        refs,
        [
            "github:ghe.example.com:8443/platform/infra#7",
            "github:octo/widgets.js#42"
        ]
    );
    for (path, record) in &listing.records {
        assert_eq!(
            path,
            &registry.work_item_path(&record.work_item_ref().unwrap())
        );
    }
    assert_eq!(registry.standing().records.len(), 1);
}

#[test]
fn unknown_fields_survive_a_round_trip() {
    let temp = tempfile::tempdir().unwrap();
    let root = fixture_root();
    let source = Registry::new(&root);
    let target = Registry::new(temp.path());

    let work_items = source.work_items();
    assert_eq!(work_items.records.len(), 2);
    for (path, record) in &work_items.records {
        let written = target.save_work_item(record).unwrap();
        assert_same_bytes(&written, path);
    }
    for (path, record) in &source.standing().records {
        let written = target.save_standing(record).unwrap();
        assert_same_bytes(&written, path);
    }
}

/// Byte for byte, so the key order is compared too: two `Value`s with the
/// same keys in another order are equal.
fn assert_same_bytes(written: &Path, original: &Path) {
    assert_eq!(
        fs::read_to_string(written).unwrap(),
        fs::read_to_string(original).unwrap(),
        "{}",
        original.display()
    );
}

/// The keys of a JSON object file, in the order they are written.
fn key_order(path: &Path) -> Vec<String> {
    read_json(path)
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect()
}

#[test]
fn an_update_keeps_every_key_in_its_place() {
    let temp = tempfile::tempdir().unwrap();
    let root = fixture_root();
    let source = Registry::new(&root);
    let target = Registry::new(temp.path());

    let r = parse("github:octo/widgets.js#42");
    let mut record = source.load_work_item(&r).unwrap().unwrap();
    record.session.record_delivery("delivery-new");
    record.session.status = Status::Paused;
    record.launch.model = Some("sonnet".into());
    let written = target.save_work_item(&record).unwrap();
    assert_eq!(key_order(&written), key_order(&source.work_item_path(&r)));
    let value = read_json(&written);
    assert_eq!(value["status"], json!("paused"));
    assert_eq!(value["model"], json!("sonnet"));
    assert_eq!(
        value["channelThreads"]["slack"]["channel"],
        json!("C0123456")
    );

    let mut standing = source.load_standing("ops-watch").unwrap().unwrap();
    standing.session.record_delivery("delivery-new");
    let written = target.save_standing(&standing).unwrap();
    assert_eq!(
        key_order(&written),
        key_order(&source.standing_path("ops-watch"))
    );
}

#[test]
fn unknown_fields_survive_an_update() {
    let (_temp, registry) = scratch();
    let r = parse("github:octo/repo#15");
    let mut record = item(&r);
    record.extra.insert(
        "futureField".into(),
        json!({"nested": [1, 2, {"deep": null}]}),
    );
    record.work_item.extra.insert("kind".into(), json!("issue"));
    registry.save_work_item(&record).unwrap();

    let mut loaded = registry.load_work_item(&r).unwrap().unwrap();
    loaded.session.record_delivery("delivery-1");
    loaded.session.status = Status::Paused;
    let path = registry.save_work_item(&loaded).unwrap();

    let value = read_json(&path);
    assert_eq!(
        value["futureField"],
        json!({"nested": [1, 2, {"deep": null}]})
    );
    assert_eq!(value["workItem"]["kind"], json!("issue"));
    assert_eq!(value["recentDeliveries"], json!(["delivery-1"]));
    assert_eq!(value["status"], json!("paused"));
}

#[test]
fn a_new_record_is_written_in_the_upstream_format() {
    let (temp, registry) = scratch();
    let r = parse("github:octo/foo.js#3");
    let mut record = item(&r);
    record.session.harness_session_id = Some("11111111-2222-4333-8444-555555555555".into());
    record.session.cwd = Some("/work/foo.js".into());
    record.session.created_at = Some("2026-10-01T12:00:00Z".into());
    record.session.tmux_target = Some(r.tmux_name());
    record.launch.model = Some("opus".into());
    record.launch.harness_args = Some(vec![]);

    let path = registry.save_work_item(&record).unwrap();
    assert_eq!(path, temp.path().join("local/github-octo-foo.js-3.json"));
    let text = fs::read_to_string(&path).unwrap();
    assert!(text.ends_with("}\n"));
    insta::assert_snapshot!(text);
}

// ---- the store ----

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
