//! The session runner: starting the harness in tmux through the launcher,
//! pasting into it, ending it gracefully, and respawning it in place.

pub mod adopt;
pub mod batch;
pub mod boot_prompt;
pub mod close;
pub mod control;
pub mod conversation_holder;
pub mod deliver;
pub mod launch;
pub mod prelaunch;
pub mod remain_on_exit;
pub mod respawn;
pub mod signal;
pub mod spawn;

pub use launch::LaunchSpec;
