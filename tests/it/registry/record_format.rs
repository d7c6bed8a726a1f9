//! The record format of existing deployments: loaded, round-tripped, written the same way.

use super::*;
use serde_json::json;

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
