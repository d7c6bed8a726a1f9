//! Shared output helpers, and the one colour choice every stream follows.
//!
//! Colour is decided by anstream, the crate clap renders its own help and
//! errors through, so the views, miette's diagnostics, the logs and clap
//! cannot disagree: `--no-color` (written as anstream's global choice, which
//! clap reads too) wins; then a non-empty `NO_COLOR`; then `CLICOLOR_FORCE`
//! (colour even in a pipe); then `CLICOLOR=0`; otherwise colour only on a
//! terminal whose `TERM` is set and is not `dumb` (bixense.com/clicolors,
//! no-color.org).

use crate::views::Style;
use anstream::{AutoStream, ColorChoice};

/// `--no-color`: no stream gets colour, whatever the environment says.
/// Called before anything is printed, clap's own output included.
pub fn disable_color() {
    ColorChoice::Never.write_global();
}

/// Whether stdout gets colour codes.
pub fn stdout_color() -> bool {
    AutoStream::choice(&std::io::stdout()) != ColorChoice::Never
}

/// Whether stderr gets colour codes (diagnostics, logs, progress lines).
pub fn stderr_color() -> bool {
    AutoStream::choice(&std::io::stderr()) != ColorChoice::Never
}

pub fn stdout_style() -> Style {
    Style {
        color: stdout_color(),
    }
}

pub fn stderr_style() -> Style {
    Style {
        color: stderr_color(),
    }
}

/// miette's diagnostics follow the same choice. A report takes its handler
/// when it is created, not when it is printed, so this is installed before
/// any command runs; the choice itself is read at that moment, after
/// `--no-color` has been seen.
pub fn install_diagnostic_handler() {
    let _ = miette::set_hook(Box::new(|_| {
        let color = stderr_color();
        Box::new(
            miette::MietteHandlerOpts::new()
                .color(color)
                .terminal_links(color)
                .build(),
        )
    }));
}

pub use crate::views::print_json;

/// An operation's running notes, on stderr as they happen.
pub struct StderrNotes;

impl crate::ops::notes::Notes for StderrNotes {
    fn note(&self, note: crate::ops::notes::Note) {
        crate::errln!("{}", crate::views::notes::render(&note));
    }
}
