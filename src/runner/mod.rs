//! The session runner: starting the harness in tmux through the launcher,
//! ending it gracefully, and respawning it in place.

pub mod launch;
pub mod signal;
pub mod spawn;

pub use launch::LaunchSpec;
