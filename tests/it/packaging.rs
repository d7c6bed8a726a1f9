//! What a packager uses: the manual pages, read back by `man` itself. The
//! completion scripts are driven through real shells in `completion.rs`.

use crate::support::*;

#[test]
fn man_prints_the_page_and_writes_one_per_command() {
    let w = World::new();
    let out = w.the_loop(&["man"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let page = stdout(&out);
    assert!(page.contains(".TH the-loop 1"), "{page}");
    assert!(page.contains("Keep long\\-lived agent sessions"), "{page}");
    // The sections a manual has beyond --help, and not clap_mangen's EXTRA.
    for heading in [
        ".SH \"EXIT STATUS\"\n",
        ".SH ENVIRONMENT\n",
        ".SH FILES\n",
        ".SH EXAMPLES\n",
    ] {
        assert!(page.contains(heading), "{heading}: {page}");
    }

    let dir = w.root().join("man1");
    let out = w.the_loop(&["man", "--out-dir", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let list = std::fs::read_to_string(dir.join("the-loop-sessions-list.1")).unwrap();
    assert!(list.contains("\\-\\-work\\-item"), "{list}");
    assert!(dir.join("the-loop-sessions-attach.1").is_file());
    assert!(
        !dir.join("the-loop-exec.1").exists(),
        "the internal launcher gets no page"
    );
    // The page written for packaging is the one printed.
    assert_eq!(
        std::fs::read_to_string(dir.join("the-loop.1")).unwrap(),
        page
    );

    // man itself can read them.
    let Some(list) = man(&dir.join("the-loop-sessions-list.1")) else {
        return;
    };
    assert!(list.contains("--status"), "{list}");
    assert!(list.contains("EXIT STATUS"), "{list}");

    let root = man(&dir.join("the-loop.1")).unwrap();
    let headings: Vec<&str> = root
        .lines()
        .filter(|l| l.starts_with(char::is_uppercase))
        .collect();
    for section in ["EXIT STATUS", "ENVIRONMENT", "FILES", "EXAMPLES"] {
        assert!(headings.contains(&section), "{section} not in {headings:?}");
    }
    assert!(!headings.contains(&"EXTRA"), "{headings:?}");
    for fact in [
        "the-loop plan --out tonight.plan",
        "the-loop show tonight.plan",
        "the-loop apply tonight.plan",
        "the-loop plan --detailed-exitcode",
        "systemctl --user enable --now the-loop-watch",
        "~/.the-loop/cli-config.yaml",
        "<state root>/events.jsonl",
        "<state root>/fingerprint.key",
        "THE_LOOP_CLI_CONFIG",
        "NO_COLOR",
        "CLICOLOR_FORCE",
        "RUST_LOG",
        "THE_LOOP_COMPLETE",
    ] {
        assert!(root.contains(fact), "{fact} not in:\n{root}");
    }

    // A command's page: its --help epilogue, cut into sections.
    let plan = man(&dir.join("the-loop-plan.1")).unwrap();
    let exit = section(&plan, "EXIT STATUS");
    assert!(exit.contains("2 = drift observed"), "{plan}");
    assert!(!exit.contains("Exit codes:"), "{plan}");
    assert!(
        section(&plan, "EXAMPLES").contains("the-loop plan --out tfplan"),
        "{plan}"
    );
    let start = man(&dir.join("the-loop-sessions-start.1")).unwrap();
    assert!(
        section(&start, "NOTES").contains("routing.harnessTrust: false"),
        "{start}"
    );
}

/// The page as `man -l` renders it, or `None` when man is not installed.
fn man(page: &std::path::Path) -> Option<String> {
    let out = std::process::Command::new("man")
        .arg("-l")
        .arg(page)
        .env("MANPAGER", "cat")
        .env("MANWIDTH", "100")
        .output()
        .ok()
        .filter(|out| out.status.success())?;
    Some(stdout(&out))
}

/// One section of a rendered page, from its heading to the next.
fn section(page: &str, heading: &str) -> String {
    let lines = page.lines().skip_while(|l| *l != heading).skip(1);
    let body: Vec<&str> = lines
        .take_while(|l| !l.starts_with(char::is_uppercase))
        .collect();
    body.join("\n")
}
