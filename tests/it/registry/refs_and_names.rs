//! Refs and names: canonical text, slug and tmux name; bad refs; tmux targets; standing names.

use super::*;
use serde::Serialize;
use the_loop::registry::{normalise_tmux_target, standing_tmux_name, validate_standing_name};

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
