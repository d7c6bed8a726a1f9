//! The files in `schemas/` are exactly what the code generates.
//! `UPDATE_SCHEMAS=1 cargo test --test it schemas::` rewrites them.

use std::path::Path;

#[test]
fn published_schemas_are_up_to_date() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas");
    for (name, schema) in the_loop::schemas::published() {
        let path = dir.join(name);
        let generated = serde_json::to_string_pretty(&schema).unwrap() + "\n";
        if std::env::var_os("UPDATE_SCHEMAS").is_some() {
            std::fs::write(&path, &generated).unwrap();
            continue;
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == generated,
            "{} is stale: run `UPDATE_SCHEMAS=1 cargo test --test it schemas::`",
            path.display()
        );
    }
}

#[test]
fn the_plan_schema_keeps_the_contract_fields() {
    let schema = the_loop::schemas::plan().to_string();
    for field in [
        "format_version",
        "sessions",
        "tmux_target",
        "action",
        "reason",
        "observation",
        "changes",
        "have",
        "want",
        "\"ref\"",
        "attached",
    ] {
        assert!(schema.contains(field), "plan schema lost {field}");
    }
}

#[test]
fn the_sessions_list_schema_keeps_the_contract_fields() {
    let schema = the_loop::schemas::sessions_list().to_string();
    for field in [
        "format_version",
        "sessions",
        "\"ref\"",
        "tmux_target",
        "live",
        "status",
        "unmanaged",
        "conversation_id",
        "pull_requests",
        "activity",
        "attached",
        "waiting",
    ] {
        assert!(schema.contains(field), "sessions-list schema lost {field}");
    }
}

/// docs/contracts.md, "Safe points" and "Readiness": the fields scripts read.
#[test]
fn the_safe_point_contract_is_in_the_plan_apply_and_event_schemas() {
    let plan = the_loop::schemas::plan().to_string();
    for field in [
        "\"activity\"",
        "\"apply_will\"",
        "\"wait_busy\"",
        "\"leave_attached\"",
        "\"delivered_by_helper\"",
    ] {
        assert!(plan.contains(field), "plan schema lacks {field}");
    }
    let report = the_loop::schemas::apply_report().to_string();
    for field in [
        "\"conversation\"",
        "\"confirmed\"",
        "\"unconfirmed\"",
        "\"deferred\"",
        "\"blocked\"",
    ] {
        assert!(report.contains(field), "apply report schema lacks {field}");
    }
    let events = the_loop::schemas::events().to_string();
    for field in ["session.blocked", "session.deferred", "\"conversation\""] {
        assert!(events.contains(field), "events schema lacks {field}");
    }
}
