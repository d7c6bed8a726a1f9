//! What each `sessions list` column shows, and that wide names keep the columns in place.

use super::*;

const LONG_REF: &str =
    "github:a-very-long-organisation-name/an-even-longer-repository-name-for-tables#1234";

#[test]
fn list_shows_age_last_event_cwd_conversation_and_pull_requests_and_wide_names_keep_the_columns() {
    let w = world();
    let proj = w
        .home
        .join("src/deeply/nested/project/directories/for/the/agent");
    std::fs::create_dir_all(&proj).unwrap();
    let a = w.started_session_in("github:octo/repo#15", "github-octo-repo-15", &proj);
    let long = w.started_session(LONG_REF, "long");
    let out = w.the_loop(&[
        "sessions",
        "link-pr",
        &a.reference,
        "--pull-request",
        "github:octo/repo#16",
    ]);
    assert!(out.status.success(), "{}", explain(&out));
    // Ages are measured from what the record says; set them to known instants.
    w.edit_record(&a.slug, |r| {
        r["createdAt"] = "2026-01-01T00:00:00Z".into();
        r["lastEventAt"] = "2026-01-01T00:00:00.250Z".into();
    });

    let listed = list_json(&w, &[]);
    assert_eq!(listed["format_version"], "1");
    let row = listed["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["ref"] == a.reference.as_str())
        .unwrap()
        .clone();
    assert_eq!(row["kind"], "work_item");
    assert_eq!(row["live"], "live");
    assert_eq!(row["conversation_id"], a.session_id.as_str());
    assert_eq!(row["cwd"], proj.to_str().unwrap());
    assert_eq!(
        row["pull_requests"],
        serde_json::json!(["github:octo/repo#16"])
    );
    assert_eq!(row["created_at"], "2026-01-01T00:00:00Z");
    let age = row["age_seconds"].as_u64().unwrap();
    assert!(age > 86_400 * 300, "{age}");
    assert!(row["last_event_seconds"].as_u64().unwrap() <= age);

    // Every JSON field is in the published schema.
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/schemas/sessions-list.schema.json"
        ))
        .unwrap(),
    )
    .unwrap();
    for key in row.as_object().unwrap().keys() {
        assert!(
            schema["$defs"]["Listed"]["properties"].get(key).is_some(),
            "{key} is not in the schema"
        );
    }

    let out = w.the_loop(&["sessions", "list"]);
    assert!(out.status.success(), "{}", explain(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    let names = [
        "STATUS",
        "LIVE",
        "ACTIVITY",
        "ATTACHED",
        "AGE",
        "LAST EVENT",
        "CWD",
        "CONVERSATION",
        "PRS",
    ];
    let starts = column_starts(lines[0], &names);
    let line_a = lines
        .iter()
        .find(|l| l.starts_with("github:octo/repo#15"))
        .unwrap();
    let line_long = lines
        .iter()
        .find(|l| l.starts_with("github:a-very"))
        .unwrap();
    for line in [line_a, line_long] {
        let chars: Vec<char> = line.chars().collect();
        for (name, at) in names.iter().zip(&starts) {
            // The text before each column is padding, so a cell starts there.
            assert!(
                chars[*at - 2..*at] == [' ', ' '] && chars[*at] != ' ',
                "{name} does not start at {at} in\n{text}"
            );
        }
    }
    assert!(
        line_long.contains('…') && line_long.contains("#1234"),
        "a wide ref loses its middle, not its number:\n{text}"
    );
    let cells: String = line_a.chars().skip(starts[0]).collect();
    let cells: Vec<&str> = cells.split("  ").filter(|c| !c.is_empty()).collect();
    assert_eq!(cells[0].trim(), "active", "{text}");
    assert_eq!(cells[1].trim(), "live", "{text}");
    // Idle once the harness's start hook ran, unknown just before it.
    assert!(
        ["idle", "unknown"].contains(&cells[2].trim()),
        "activity: {text}"
    );
    assert_eq!(cells[3].trim(), "0", "no client attached: {text}");
    assert!(cells[4].trim().ends_with('d'), "age in days: {text}");
    assert!(cells[5].trim().ends_with("d ago"), "{text}");
    assert!(
        cells[6].trim().starts_with("~/src/")
            && cells[6].contains('…')
            && cells[6].trim().ends_with("agent"),
        "cwd under HOME, shortened in the middle: {text}"
    );
    assert_eq!(cells[7].trim(), &a.session_id[..8], "{text}");
    assert_eq!(cells[8].trim(), "#16", "{text}");
    assert!(text.contains(&long.name[..15]), "{text}");
}

/// Terminal columns of `text`, independently of the crate's own measure:
/// the CJK ideographs and kana used here take two columns, the rest one.
fn terminal_columns(text: &str) -> usize {
    text.chars()
        .map(|c| {
            if ('\u{3000}'..='\u{9fff}').contains(&c) {
                2
            } else {
                1
            }
        })
        .sum()
}

/// A cwd in Japanese takes two columns a character on a terminal; the
/// columns after it still line up (they shifted by one column a character
/// when cells were padded by characters).
#[test]
fn a_cjk_cwd_keeps_every_later_column_in_place() {
    let w = world();
    let wide = w.home.join("作業/リポジトリ");
    std::fs::create_dir_all(&wide).unwrap();
    let plain = w.home.join("work/repo");
    std::fs::create_dir_all(&plain).unwrap();
    let a = w.started_session_in("github:octo/repo#21", "github-octo-repo-21", &wide);
    let b = w.started_session_in("github:octo/repo#22", "github-octo-repo-22", &plain);
    let out = w.the_loop(&["sessions", "list"]);
    assert!(out.status.success(), "{}", explain(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    let header = lines[0];
    let names = ["CONVERSATION", "PRS", "HARNESS", "TMUX"];
    let starts = column_starts(header, &names);
    for (session, cwd) in [(&a, "~/作業/リポジトリ"), (&b, "~/work/repo")] {
        let line = lines
            .iter()
            .find(|l| l.starts_with(session.reference.as_str()))
            .unwrap_or_else(|| panic!("no row for {}:\n{text}", session.reference));
        assert!(line.contains(cwd), "{text}");
        // Each cell is looked for after the one before it ("-" may be
        // another column's cell too).
        let mut from = 0;
        for (name, want) in names.iter().zip(&starts) {
            let cell = match *name {
                "CONVERSATION" => &session.session_id[..8],
                "PRS" => "-",
                "HARNESS" => "claude",
                _ => session.name.as_str(),
            };
            // Where the cell starts on the screen, in columns.
            let at = line[from..]
                .find(&format!("  {cell}"))
                .map(|i| from + i + 2);
            let at = at.unwrap_or_else(|| panic!("no {name} cell in {line}"));
            from = at;
            assert_eq!(
                terminal_columns(&line[..at]),
                *want,
                "{name} of {} is not under its header:\n{text}",
                session.reference
            );
        }
    }
}

/// The row whose ref is `reference`, from a fresh `sessions list --json`.
fn row_of(w: &World, reference: &str) -> serde_json::Value {
    list_json(w, &[])["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["ref"] == reference)
        .unwrap_or_else(|| panic!("{reference} not listed"))
        .clone()
}

fn wait_row(w: &World, reference: &str, field: &str, want: serde_json::Value) {
    wait_for(
        || row_of(w, reference)[field] == want,
        &format!("{reference} {field} {want}"),
    );
}

fn type_line(w: &World, name: &str, text: &str) {
    w.tmux_ok(&["send-keys", "-t", &format!("={name}:"), "-l", text]);
    w.tmux_ok(&["send-keys", "-t", &format!("={name}:"), "Enter"]);
}

#[test]
fn list_shows_what_each_harness_is_doing_and_how_many_clients_watch_it() {
    let w = world();
    let busy = w.started_session("github:octo/repo#31", "github-octo-repo-31");
    let watched = w.started_session("github:octo/repo#32", "github-octo-repo-32");
    // Started by hand, without the-loop's hook settings: nothing to report.
    let hookless = w.legacy_session("github:octo/repo#33", "github-octo-repo-33");
    let gone = w.started_session("github:octo/repo#34", "github-octo-repo-34");
    w.tmux_ok(&["kill-session", "-t", &format!("={}", gone.name)]);

    wait_row(&w, &busy.reference, "activity", "idle".into());
    type_line(&w, &busy.name, "/busy");
    wait_row(&w, &busy.reference, "activity", "busy".into());
    type_line(&w, &watched.name, "/wait");
    wait_row(&w, &watched.reference, "activity", "waiting".into());

    assert!(w.clients().is_empty());
    let client = w.the_loop_in_pty(&["sessions", "attach", &watched.reference]);
    wait_for(|| !w.clients().is_empty(), "a real client attached");
    let listed = list_json(&w, &[]);
    let row = |r: &str| {
        listed["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["ref"] == r)
            .unwrap()
            .clone()
    };
    assert_eq!(row(&watched.reference)["attached"], 1, "{listed}");
    assert_eq!(row(&watched.reference)["activity"], "waiting", "{listed}");
    assert_eq!(row(&busy.reference)["attached"], 0, "{listed}");
    assert_eq!(row(&busy.reference)["activity"], "busy", "{listed}");
    assert_eq!(row(&hookless.reference)["activity"], "unknown", "{listed}");
    assert_eq!(row(&hookless.reference)["live"], "live", "{listed}");
    // Nothing runs in an absent session, so nothing is doing anything.
    assert_eq!(row(&gone.reference)["live"], "absent", "{listed}");
    assert!(row(&gone.reference)["activity"].is_null(), "{listed}");
    assert_eq!(row(&gone.reference)["attached"], 0, "{listed}");

    let out = w.the_loop(&["sessions", "list"]);
    assert!(out.status.success(), "{}", explain(&out));
    let text = stdout(&out);
    let header = text.lines().next().unwrap();
    let starts = column_starts(header, &["ACTIVITY", "ATTACHED", "AGE"]);
    let cells = |reference: &str| -> Vec<String> {
        let line = text.lines().find(|l| l.starts_with(reference)).unwrap();
        let chars: Vec<char> = line.chars().collect();
        [(starts[0], starts[1]), (starts[1], starts[2])]
            .iter()
            .map(|(from, to)| {
                chars[*from..*to]
                    .iter()
                    .collect::<String>()
                    .trim()
                    .to_owned()
            })
            .collect()
    };
    assert_eq!(cells(&busy.reference), ["busy", "0"], "{text}");
    assert_eq!(cells(&watched.reference), ["waiting", "1"], "{text}");
    assert_eq!(cells(&hookless.reference), ["unknown", "0"], "{text}");
    assert_eq!(cells(&gone.reference), ["-", "0"], "{text}");
    drop(client);
    wait_for(|| w.clients().is_empty(), "detached");
    wait_row(&w, &watched.reference, "attached", 0.into());
}
