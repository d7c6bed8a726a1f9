//! `the-loop --help` shows the loop first, the sessions next and the rest
//! after, with a three-line recipe; and every leaf command's `--help` ends
//! with its exit codes and an example (the blocks `the-loop man` turns
//! into EXIT STATUS and EXAMPLES). The test walks the command tree, so a
//! new command without them fails here.

use crate::support::*;
use clap::CommandFactory;

/// Every visible leaf command: its path and its full `--help` text.
fn leaves() -> Vec<(String, String)> {
    fn walk(cmd: &mut clap::Command, path: &str, out: &mut Vec<(String, String)>) {
        let names: Vec<String> = cmd
            .get_subcommands()
            .filter(|c| !c.is_hide_set() && c.get_name() != "help")
            .map(|c| c.get_name().to_owned())
            .collect();
        if names.is_empty() {
            out.push((path.trim().to_owned(), cmd.render_long_help().to_string()));
        }
        for name in names {
            let sub = cmd.find_subcommand_mut(&name).unwrap();
            walk(sub, &format!("{path} {name}"), out);
        }
    }
    let mut root = the_loop::cli::Cli::command();
    root.build();
    let mut out = Vec::new();
    walk(&mut root, "", &mut out);
    out
}

#[test]
fn every_leaf_command_has_exit_codes_and_an_example() {
    let leaves = leaves();
    assert!(leaves.len() > 30, "{}", leaves.len());
    let mut missing = Vec::new();
    for (path, help) in &leaves {
        let blocks: Vec<&str> = help.split("\n\n").map(str::trim_start).collect();
        let exit = blocks.iter().any(|b| b.starts_with("Exit codes:"));
        let example = blocks.iter().any(|b| {
            let first = b.lines().next().unwrap_or_default();
            first.starts_with("Example") && first.ends_with(':') && b.contains("the-loop ")
        });
        if !exit {
            missing.push(format!("`the-loop {path}`: no \"Exit codes:\" block"));
        }
        if !example {
            missing.push(format!("`the-loop {path}`: no \"Examples:\" block"));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

#[test]
fn the_top_level_help_groups_the_loop_first_and_gives_a_recipe() {
    let w = World::new();
    for flag in ["--help", "-h"] {
        let help = stdout(&ok(w.the_loop_bare().arg(flag).output().unwrap()));
        let at = |text: &str| {
            help.find(text)
                .unwrap_or_else(|| panic!("{flag}: no `{text}` in\n{help}"))
        };
        let headings = [
            "The loop (declare, see the drift, roll it, keep watching):",
            "Sessions:",
            "Other commands:",
            "Start here:",
            "Options:",
        ];
        let places: Vec<usize> = headings.iter().map(|h| at(h)).collect();
        assert!(places.is_sorted(), "{flag}: headings out of order:\n{help}");
        let listed = |from: usize, to: usize| -> Vec<String> {
            help[from..to]
                .lines()
                .skip(1)
                .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
                .map(|l| l.split_whitespace().next().unwrap().to_owned())
                .collect()
        };
        assert_eq!(
            listed(places[0], places[1]),
            ["validate", "plan", "apply", "watch", "top"]
        );
        assert_eq!(
            listed(places[1], places[2]),
            ["sessions", "standing", "import"]
        );
        // Every visible command is listed exactly once, with its own about.
        let mut all: Vec<String> = (0..3)
            .flat_map(|i| listed(places[i], places[i + 1]))
            .collect();
        let root = the_loop::cli::Cli::command();
        for sub in root.get_subcommands().filter(|c| !c.is_hide_set()) {
            let name = sub.get_name();
            let count = all.iter().filter(|n| *n == name).count();
            assert_eq!(count, 1, "{flag}: `{name}` listed {count} times:\n{help}");
            let about = sub.get_about().unwrap().to_string();
            let first_words: String = about.split(' ').take(4).collect::<Vec<_>>().join(" ");
            assert!(
                help.contains(&first_words),
                "{flag}: {name}'s about:\n{help}"
            );
        }
        all.retain(|n| n != "help");
        assert_eq!(
            all.len(),
            root.get_subcommands().filter(|c| !c.is_hide_set()).count()
        );
        let recipe = listed(places[3], places[4]);
        assert_eq!(recipe, ["the-loop", "the-loop", "the-loop"], "{help}");
        for step in ["the-loop validate", "the-loop plan", "the-loop apply"] {
            assert!(help[places[3]..places[4]].contains(step), "{help}");
        }
    }
}
