//! The `sessions` verbs on work-item sessions.

pub mod list;
