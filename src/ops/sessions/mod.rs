//! The `sessions` verbs on work-item sessions.

pub mod list;
pub mod pause;
pub mod start;
