//! Operations: one function per verb, below the command line (as cargo's
//! `ops`). Each takes a [`Context`] and options, does the work and returns a
//! report; `cli/` only turns arguments into options and hands the report to a
//! view. Nothing here knows a command line exists.

pub mod apply;
pub mod fingerprint;
pub mod history;
pub mod import;
pub mod notes;
pub mod on_host;
pub mod replace_server;
pub mod resolve;
pub mod sessions;
pub mod show;
pub mod spawn;
pub mod standing;
pub mod status;
pub mod top;
pub mod uninstall;
pub mod validate;
pub mod web_terminal;

pub use crate::lifecycle::context::Context;
