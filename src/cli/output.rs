//! Shared output helpers.

use crate::plan::render::Style;
use std::io::IsTerminal;

pub fn stdout_style() -> Style {
    Style::detect(std::io::stdout().is_terminal())
}

pub fn stderr_style() -> Style {
    Style::detect(std::io::stderr().is_terminal())
}

pub fn print_json<T: serde::Serialize>(value: &T) {
    println!(
        "{}",
        serde_json::to_string_pretty(value).expect("report serialises")
    );
}
