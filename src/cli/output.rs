//! Shared output helpers.

use crate::views::Style;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once by `--no-color`, before anything is printed.
static COLOR_DISABLED: AtomicBool = AtomicBool::new(false);

pub fn disable_color() {
    COLOR_DISABLED.store(true, Ordering::Relaxed);
}

/// False under `--no-color` or a non-empty `NO_COLOR` (no-color.org).
pub fn color_allowed() -> bool {
    !COLOR_DISABLED.load(Ordering::Relaxed)
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

fn style_for(is_terminal: bool) -> Style {
    if color_allowed() {
        Style::detect(is_terminal)
    } else {
        Style::PLAIN
    }
}

pub fn stdout_style() -> Style {
    style_for(std::io::stdout().is_terminal())
}

pub fn stderr_style() -> Style {
    style_for(std::io::stderr().is_terminal())
}

pub use crate::views::print_json;

/// An operation's running notes, on stderr as they happen.
pub struct StderrNotes;

impl crate::ops::notes::Notes for StderrNotes {
    fn note(&self, note: crate::ops::notes::Note) {
        crate::errln!("{}", crate::views::notes::render(&note));
    }
}
