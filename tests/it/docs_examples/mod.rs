//! The command examples in `README.md` and `docs/*.md` are run, and what
//! they print is compared with what the pages show.
//!
//! Every ```` ```console ```` block is an example. Each `$ the-loop …` line
//! in it runs against a private world (its own tmux server, HOME, state
//! root and config, the stand-in harness on PATH; `THE_LOOP_CLI_CONFIG`
//! names the config, the working directory is HOME), and its output
//! (stdout and stderr together, as a terminal shows them, then
//! `[exit code N]` when it is not 0) must match the lines under it.
//! snapbox compares them: `[..]` matches the rest of a line, `...` on a
//! line of its own any number of lines, and the placeholders of
//! [`shell::redactions`] (`[ROOT]`, `[PID]`, `[TIME]`, `[UUID]`,
//! `[CONFIG_FP]`, `[RECORD_FP]`, `[CONVID]`, `[TMUX_VERSION]`) what changes
//! from run to run. A line `^C` marks a foreground service: it is
//! interrupted (SIGINT, as Ctrl-C) once what it printed matches the lines
//! above it, and what it prints then follows. The one pipe allowed is a
//! literal value handed to the-loop's stdin, `$ printf %s 'VALUE' |
//! the-loop …` ([`shell::piped`]), as `the-loop fingerprint` takes it. The
//! one other program is `curl` of the metrics port the pages name
//! ([`shell::DOCUMENTED_PORT`]), pointed at the port a watch the setups
//! started in the background listens on; except in `docs/fleet.md`, whose
//! tool scenes ([`tools`]) run the fleet playbook with a real
//! `ansible-playbook` and `curl` a real Prometheus ([`tools::PROMETHEUS`]),
//! and are skipped (loudly; failed under THE_LOOP_REQUIRE_TOOLS) when the
//! tool is missing.
//!
//! An HTML comment on the line before a block steers it:
//! `<!-- docs-test: scene: rotation -->` builds a fresh world
//! ([`scenes::build`]) that this block and the page's later ones share, in
//! page order; `setup: …` does a step first, unseen
//! ([`scenes::setup`]: among them a the-loop command left running in the
//! background, and steps timed to happen while the block runs); `tty` runs
//! the block's commands on a pseudo-terminal, for what the-loop prints only
//! there; `unordered` compares the output's lines as a set;
//! `skip: REASON` shows a block that cannot run here
//! (it needs systemd, a real Claude, another machine) and says why. The
//! test counts the blocks it runs and the ones marked skip. A block of
//! another language that shows a `$ the-loop` command fails the check:
//! every example is run, or marked.
//!
//! `UPDATE_DOCS=1 cargo test --test it docs_examples::` writes what the
//! commands printed into the pages (keeping the wildcards that still
//! match); `DOCS_PAGE=README.md` runs one page.

mod background;
mod links;
mod markdown;
mod scenes;
mod shell;
mod tools;

use markdown::{Block, Directive, Page};
use scenes::Scene;
use std::path::{Path, PathBuf};

/// `README.md`, `SECURITY.md` and every page directly under `docs/` (the
/// history under `docs/bench/` records past runs, and is not run).
fn pages() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut pages = vec![root.join("README.md"), root.join("SECURITY.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages.retain(|p| p.exists());
    pages
}

fn parsed() -> Vec<(PathBuf, String, Page)> {
    pages()
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            let page = markdown::parse(&path, &text).unwrap_or_else(|e| panic!("{e}"));
            (path, text, page)
        })
        .collect()
}

#[test]
fn every_command_example_is_a_console_block_that_runs_or_says_why_not() {
    let mut problems = Vec::new();
    for (_, _, page) in parsed() {
        for stray in &page.strays {
            problems.push(format!(
                "{}:{}: a ```{} block shows a `$ the-loop` command: make it a ```console block (run, or marked skip with a reason)",
                stray.file.display(),
                stray.line,
                stray.info
            ));
        }
        for block in page.blocks.iter().filter(|b| b.skip_reason().is_none()) {
            for step in &block.steps {
                let command = match shell::piped(&step.command, Path::new("~")) {
                    Ok(Some((_, command))) => command,
                    _ => step.command.clone(),
                };
                let scrape = command.starts_with("curl ")
                    && (command.contains(shell::DOCUMENTED_PORT)
                        || command.contains(tools::PROMETHEUS));
                let play = command.starts_with(tools::PLAYBOOK);
                if !command.starts_with("the-loop ") && command != "the-loop" && !scrape && !play {
                    problems.push(format!(
                        "{}: `$ {}` is not a the-loop command (nor a curl of the metrics port or Prometheus, nor the fleet playbook): mark the block skip, with a reason",
                        block.at(),
                        step.command
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// `.ci/run` runs "the test command from the README": the two must not
/// part ways.
#[test]
fn the_readme_gives_the_test_command_ci_runs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let ci = std::fs::read_to_string(root.join(".ci/run")).unwrap();
    let command = "cargo test --locked";
    assert!(
        readme.lines().any(|l| l == format!("$ {command}")),
        "README lost `{command}`"
    );
    assert!(
        ci.lines().any(|l| l == command),
        ".ci/run no longer runs `{command}`"
    );
}

#[test]
#[allow(
    clippy::print_stderr,
    reason = "how many blocks ran and how many are marked skip is the test's report"
)]
fn the_documented_examples_print_what_the_pages_show() {
    let update = std::env::var_os("UPDATE_DOCS").is_some();
    let only = std::env::var("DOCS_PAGE").ok();
    let (mut ran, mut commands, mut skipped, mut failures) = (0, 0, 0, Vec::new());
    for (path, text, page) in parsed() {
        if only.as_deref().is_some_and(|o| !path.ends_with(o)) {
            continue;
        }
        let mut world: Option<scenes::Scene> = None;
        let mut rewrites = Vec::new();
        for block in &page.blocks {
            if block.skip_reason().is_some() {
                skipped += 1;
                continue;
            }
            if let Some(scene) = block.scene() {
                drop(world.take());
                world =
                    Some(scenes::build(scene).unwrap_or_else(|e| panic!("{}: {e}", block.at())));
            }
            let scene = world.as_mut().unwrap_or_else(|| {
                panic!(
                    "{}: no scene yet: add <!-- docs-test: scene: NAME -->",
                    block.at()
                )
            });
            if matches!(scene.tools, Some(tools::Tools::Missing)) {
                skipped += 1;
                continue;
            }
            for action in block.setups() {
                scenes::setup(scene, action).unwrap_or_else(|e| panic!("{}: {e}", block.at()));
            }
            ran += 1;
            let (body, failed) = run_block(scene, block, &mut failures);
            commands += block.steps.len();
            if failed {
                rewrites.push((block.body, body));
            }
        }
        if update && !rewrites.is_empty() {
            rewrite(&path, &text, rewrites);
        }
    }
    eprintln!("docs examples: {ran} blocks run ({commands} commands), {skipped} marked skip");
    assert!(
        failures.is_empty(),
        "{} documented command(s) print something else now; update the page (UPDATE_DOCS=1 writes what they print):\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// Runs a block's commands in order; the block's text as the commands
/// printed it, and whether any differed from the page.
fn run_block(scene: &Scene, block: &Block, failures: &mut Vec<String>) -> (String, bool) {
    let w = &scene.w;
    let mut redactions = shell::redactions(w);
    tools::redact(scene.tools.as_ref(), &mut redactions);
    let assert = snapbox::Assert::new().redact_with(redactions);
    let tty = block.has(&Directive::Tty);
    let mut body = String::new();
    let mut failed = false;
    for step in &block.steps {
        let piped =
            shell::piped(&step.command, &w.home).unwrap_or_else(|e| panic!("{}: {e}", block.at()));
        let (stdin, command) = match &piped {
            Some((value, command)) => (Some(value.as_str()), command.as_str()),
            None => (None, step.command.as_str()),
        };
        let words =
            shell::words(command, &w.home).unwrap_or_else(|e| panic!("{}: {e}", block.at()));
        let interrupt_at = step.expected.lines().position(|l| l == "^C");
        let before: Option<String> = interrupt_at.map(|at| {
            step.expected
                .lines()
                .take(at)
                .map(|l| format!("{l}\n"))
                .collect()
        });
        let said_enough = |out: &str| {
            let before = before.clone().unwrap_or_default();
            assert
                .try_eq(
                    None,
                    snapbox::Data::text(out.to_owned()),
                    snapbox::Data::text(before),
                )
                .is_ok()
        };
        let said_enough: &dyn Fn(&str) -> bool = &said_enough;
        let interrupt_when = before.as_ref().map(|_| said_enough);
        let prometheus = tools::prometheus_address(scene.tools.as_ref())
            .filter(|_| command.contains(tools::PROMETHEUS));
        let actual = if words[0] == "ansible-playbook" {
            let tools = scene.tools.as_ref().unwrap_or_else(|| {
                panic!("{}: ansible-playbook outside the fleet scene", block.at())
            });
            tools::playbook(tools, &words[1..]).unwrap_or_else(|e| panic!("{}: {e}", block.at()))
        } else if let (true, Some(address)) = (words[0] == "curl", prometheus) {
            shell::curl(&words[1..], tools::PROMETHEUS, &address)
        } else if words[0] == "curl" {
            let address = scene
                .background
                .iter()
                .find_map(|b| b.metrics_address())
                .unwrap_or_else(|| panic!("{}: curl, but no watch serves metrics", block.at()));
            shell::curl(&words[1..], shell::DOCUMENTED_PORT, &address)
        } else {
            shell::run(w, &words[1..], interrupt_when, stdin, tty)
        };
        let expected: String = step
            .expected
            .lines()
            .filter(|l| *l != "^C")
            .map(|l| format!("{l}\n"))
            .collect();
        let expected = snapbox::Data::text(expected.clone());
        let expected = if block.has(&Directive::Unordered) {
            expected.unordered()
        } else {
            expected
        };
        body.push_str(&format!("$ {}\n", step.command));
        let label = format!("{} `$ {}`", block.at(), step.command);
        match assert.try_eq(
            Some(&label),
            snapbox::Data::text(actual.clone()),
            expected.clone(),
        ) {
            Ok(()) => body.push_str(&step.expected),
            Err(err) => {
                failed = true;
                failures.push(format!("{label}\n{err}"));
                let (shown, _) = assert.normalize(snapbox::Data::text(actual), expected);
                let mut shown = shown.render().unwrap_or_default();
                if let Some(at) = interrupt_at {
                    let mut lines: Vec<String> = shown.lines().map(str::to_owned).collect();
                    lines.insert(at.min(lines.len()), "^C".to_owned());
                    shown = lines.join("\n") + "\n";
                }
                if !shown.is_empty() && !shown.ends_with('\n') {
                    shown.push('\n');
                }
                body.push_str(&shown);
            }
        }
    }
    (body, failed)
}

/// Replaces the bodies of blocks (0-based line ranges) with new text.
fn rewrite(path: &Path, text: &str, mut rewrites: Vec<((usize, usize), String)>) {
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    rewrites.sort_by_key(|((start, _), _)| std::cmp::Reverse(*start));
    for ((start, end), body) in rewrites {
        lines.splice(start..end, body.lines().map(str::to_owned));
    }
    std::fs::write(path, lines.join("\n") + "\n").unwrap();
}

/// `top` needs a terminal, so its screen is not a console block: the one
/// the pages show (a ```` ```text ```` block whose first line is top's
/// header) must be the screen `tests/it/top.rs` captures at 80×24 in a tmux
/// pane, its insta snapshot, blank rows left out.
#[test]
fn the_top_screen_the_pages_show_is_the_one_top_draws() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let snapshot =
        std::fs::read_to_string(root.join("tests/it/snapshots/it__top__top_80x24.snap")).unwrap();
    // insta's header is the lines between the first two `---`.
    let captured: Vec<&str> = snapshot
        .lines()
        .skip_while(|l| *l != "---")
        .skip(1)
        .skip_while(|l| *l != "---")
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .collect();
    assert!(
        captured
            .first()
            .is_some_and(|l| l.starts_with("the-loop top ·")),
        "the snapshot's screen does not start with top's header:\n{snapshot}"
    );
    let (mut shown, mut problems) = (0, Vec::new());
    for (path, text, _) in parsed() {
        let lines: Vec<&str> = text.lines().collect();
        for (at, line) in lines.iter().enumerate() {
            let header = lines.get(at + 1);
            if *line != "```text" || !header.is_some_and(|h| h.starts_with("the-loop top ·")) {
                continue;
            }
            shown += 1;
            let block: Vec<&str> = lines[at + 1..]
                .iter()
                .take_while(|l| !l.starts_with("```"))
                .copied()
                .collect();
            if block != captured {
                problems.push(format!(
                    "{}:{}: shows\n{}\nbut top draws (tests/it/snapshots/it__top__top_80x24.snap)\n{}",
                    path.display(),
                    at + 1,
                    block.join("\n"),
                    captured.join("\n")
                ));
            }
        }
    }
    assert!(shown > 0, "no page shows top's screen any more");
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}
