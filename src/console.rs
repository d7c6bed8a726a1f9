//! Standard output and standard error that a closed reader cannot crash.
//!
//! `println!` panics when its stream is a pipe whose reader has gone
//! (`the-loop status --json | head -1`). A panic in the middle of a roll
//! would leave a harness ended and its pane dead, so every line the-loop
//! prints goes through these macros instead: a write that fails is dropped,
//! and the command carries on to its own end and its own exit code.
//!
//! `clippy::print_stdout` and `clippy::print_stderr` are denied crate-wide
//! (`[lints]` in Cargo.toml), so a stray `println!` fails the build instead
//! of waiting for a closed pipe to find it. These helpers write through
//! `std::io` handles, which those lints do not cover.

use std::fmt;
use std::io::Write;

/// Writes to stdout, ignoring a failed write (see the module docs).
pub fn write_out(args: fmt::Arguments<'_>) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_fmt(args);
    let _ = out.flush();
}

/// Writes to stderr, ignoring a failed write (see the module docs).
pub fn write_err(args: fmt::Arguments<'_>) {
    let _ = std::io::stderr().lock().write_fmt(args);
}

/// `println!` that survives a closed stdout.
#[macro_export]
macro_rules! outln {
    () => { $crate::console::write_out(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::console::write_out(format_args!("{}\n", format_args!($($arg)*))) };
}

/// `print!` that survives a closed stdout.
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => { $crate::console::write_out(format_args!($($arg)*)) };
}

/// `eprintln!` that survives a closed stderr.
#[macro_export]
macro_rules! errln {
    () => { $crate::console::write_err(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::console::write_err(format_args!("{}\n", format_args!($($arg)*))) };
}
