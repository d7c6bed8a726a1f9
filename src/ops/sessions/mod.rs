//! The `sessions` verbs on work-item sessions.

pub mod attach;
pub mod cleanup;
pub mod close;
pub mod deliver;
pub mod forget;
pub mod link_pr;
pub mod list;
pub mod pause;
pub mod relaunch;
pub mod reset;
pub mod revival;
pub mod revive;
pub mod shared;
pub mod start;
pub mod start_all;
