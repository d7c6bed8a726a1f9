//! `the-loop man`: manual pages generated from the same definitions as
//! `--help` (clap_mangen), so the two cannot disagree. Packagers install them
//! with `the-loop man --out-dir <dir>/share/man/man1`.
//!
//! clap_mangen renders the name, synopsis, description, options and
//! subcommands; a command's epilogue (its `after_help`, the text `--help`
//! ends with) becomes EXIT STATUS, NOTES and EXAMPLES rather than clap_mangen's
//! one EXTRA section, and the-loop.1 gets the sections of `man_root.rs`
//! (EXIT STATUS, ENVIRONMENT, FILES, EXAMPLES).

use super::man_root;
use clap::{Args, CommandFactory};
use clap_mangen::roff::{bold, roman, Roff};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write the-loop.1 and one page per subcommand (the-loop-sessions-list.1,
    /// …) into this directory instead of printing the-loop.1 on stdout.
    #[arg(long, value_name = "DIR")]
    out_dir: Option<PathBuf>,
}

/// A page for a command whose epilogue names no exit codes.
const DEFAULT_EXIT: &str = "0 success; 1 an error, a usage error included \
(the-loop(1), EXIT STATUS, gives every command's codes).";

pub fn run(args: ManArgs) -> miette::Result<ExitCode> {
    let mut command = super::Cli::command().disable_help_subcommand(true);
    command.build();
    match args.out_dir {
        Some(dir) => {
            std::fs::create_dir_all(&dir)
                .and_then(|()| write_pages(command, &dir, true))
                .map_err(|err| {
                    miette::miette!(
                        code = "the_loop::man::write",
                        help = "pass a directory you can write to",
                        "cannot write manual pages into {}: {}",
                        dir.display(),
                        crate::fsutil::IoKind(err.kind())
                    )
                })?;
            crate::outln!("Wrote manual pages into {}.", dir.display());
        }
        None => {
            let mut page = Vec::new();
            render(&command, true, &mut page).map_err(|err| {
                miette::miette!(
                    code = "the_loop::man::write",
                    "cannot make the manual page: {}",
                    crate::fsutil::IoKind(err.kind())
                )
            })?;
            // Through the output a closed pipe cannot crash (`man | head`).
            crate::out!("{}", String::from_utf8_lossy(&page));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// One page per command that is not hidden (the launcher gets none), as
/// `clap_mangen::generate_to` names them: the-loop-sessions-list.1, …
fn write_pages(command: clap::Command, dir: &Path, root: bool) -> std::io::Result<()> {
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        write_pages(sub.clone(), dir, false)?;
    }
    let name = clap_mangen::Man::new(command.clone()).get_filename();
    let mut page = Vec::new();
    render(&command, root, &mut page)?;
    let mut file = std::fs::File::create(dir.join(name))?;
    file.write_all(&page)?;
    file.flush()
}

/// clap_mangen's sections, then the epilogue's (or the-loop.1's own), then
/// the version, in the order man-pages(7) gives them.
fn render(command: &clap::Command, root: bool, w: &mut dyn Write) -> std::io::Result<()> {
    let man = clap_mangen::Man::new(command.clone());
    man.render_title(w)?;
    man.render_name_section(w)?;
    man.render_synopsis_section(w)?;
    man.render_description_section(w)?;
    if command.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(w)?;
    }
    if command.get_subcommands().any(|s| !s.is_hide_set()) {
        man.render_subcommands_section(w)?;
    }
    let mut roff = Roff::new();
    if root {
        root_sections(&mut roff);
    } else {
        let epilogue = Epilogue::of(command);
        exit_status(&mut roff, epilogue.exit.as_deref().unwrap_or(DEFAULT_EXIT));
        if !epilogue.notes.is_empty() {
            roff.control("SH", ["NOTES"]);
            for note in &epilogue.notes {
                paragraph(&mut roff, note);
            }
        }
        if !epilogue.examples.is_empty() {
            roff.control("SH", ["EXAMPLES"]);
            for example in &epilogue.examples {
                paragraph(&mut roff, example);
            }
        }
    }
    roff.to_writer(w)?;
    if command
        .get_version()
        .or(command.get_long_version())
        .is_some()
    {
        man.render_version_section(w)?;
    }
    if command.get_author().is_some() {
        man.render_authors_section(w)?;
    }
    Ok(())
}

/// the-loop.1's own sections (`man_root.rs`).
fn root_sections(roff: &mut Roff) {
    roff.control("SH", ["EXIT STATUS"]);
    terms(roff, man_root::EXIT_STATUS);
    roff.control("PP", []);
    roff.text([roman(man_root::EXIT_STATUS_NOTE)]);
    roff.control("SH", ["ENVIRONMENT"]);
    terms(roff, man_root::ENVIRONMENT);
    roff.control("SH", ["FILES"]);
    terms(roff, man_root::FILES);
    roff.control("SH", ["EXAMPLES"]);
    for example in man_root::EXAMPLES {
        paragraph(roff, example);
    }
}

/// A list of terms, each in bold above its indented description.
fn terms(roff: &mut Roff, list: &[(&str, &str)]) {
    for (term, description) in list {
        roff.control("TP", []);
        roff.text([bold(*term)]);
        roff.text([roman(*description)]);
    }
}

/// `EXIT STATUS`, from the one line `--help` gives it.
fn exit_status(roff: &mut Roff, text: &str) {
    roff.control("SH", ["EXIT STATUS"]);
    roff.text([roman(text)]);
}

/// A block of the epilogue: prose is filled as man fills any paragraph;
/// from its first indented line on (commands, tables) the lines and their
/// spacing are kept.
fn paragraph(roff: &mut Roff, lines: &[impl AsRef<str>]) {
    roff.control("PP", []);
    let split = lines
        .iter()
        .position(|l| l.as_ref().starts_with(' '))
        .unwrap_or(lines.len());
    let (prose, verbatim) = lines.split_at(split);
    for line in prose {
        roff.text([roman(line.as_ref())]);
    }
    if !verbatim.is_empty() {
        roff.control("nf", []);
        for line in verbatim {
            roff.text([roman(line.as_ref())]);
        }
        roff.control("fi", []);
    }
}

/// A command's epilogue, cut where `--help` cuts it: the "Exit codes:"
/// line, the "Examples:" blocks, and any other paragraph, as notes.
#[derive(Debug, Default, PartialEq)]
struct Epilogue {
    exit: Option<String>,
    notes: Vec<Vec<String>>,
    examples: Vec<Vec<String>>,
}

impl Epilogue {
    fn of(command: &clap::Command) -> Epilogue {
        let text = command
            .get_after_long_help()
            .or(command.get_after_help())
            .map(|t| t.to_string())
            .unwrap_or_default();
        Epilogue::parse(&text)
    }

    fn parse(text: &str) -> Epilogue {
        let mut epilogue = Epilogue::default();
        // Whether the paragraph before was an example, which an indented
        // paragraph after a blank line continues.
        let mut in_examples = false;
        for block in text.split("\n\n").filter(|b| !b.trim().is_empty()) {
            let lines: Vec<String> = block.lines().map(str::to_owned).collect();
            let first = lines[0].as_str();
            if let Some(exit) = first.strip_prefix("Exit codes:") {
                let rest = std::iter::once(exit.trim()).chain(lines[1..].iter().map(|l| l.trim()));
                epilogue.exit = Some(rest.collect::<Vec<_>>().join(" "));
                in_examples = false;
            } else if first.starts_with("Example") && first.ends_with(':') {
                let mut example = lines[1..].to_vec();
                if first != "Examples:" {
                    // "Example, for a bug report:" says what the lines are for.
                    example.insert(0, first.to_owned());
                }
                epilogue.examples.push(example);
                in_examples = true;
            } else if in_examples && first.starts_with(' ') {
                epilogue.examples.push(lines);
            } else {
                epilogue.notes.push(lines);
                in_examples = false;
            }
        }
        epilogue
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_epilogue_is_cut_into_exit_codes_examples_and_notes() {
        let e = Epilogue::parse(
            "Exit codes: 0 yes;\n1 no.\n\nExamples:\n  a\n  b\n\n  # more\n  c\n\nNote this.\n  indented",
        );
        assert_eq!(e.exit.as_deref(), Some("0 yes; 1 no."));
        assert_eq!(e.examples, [vec!["  a", "  b"], vec!["  # more", "  c"]]);
        assert_eq!(e.notes, [vec!["Note this.", "  indented"]]);
    }

    #[test]
    fn a_captioned_example_keeps_its_caption() {
        let e = Epilogue::parse("Example, for a bug report:\n  the-loop version --json");
        assert_eq!(
            e.examples,
            [vec![
                "Example, for a bug report:",
                "  the-loop version --json"
            ]]
        );
        assert_eq!(e.exit, None);
    }
}
