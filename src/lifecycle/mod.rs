//! The session lifecycle behind the `sessions` and `standing` verbs:
//! delivering into a session (respawning it when it is gone), pausing,
//! closing, resetting and cleaning up, for work items and standing sessions
//! alike.
//!
//! The rules that decide between pasting, clearing and spawning are pure
//! functions in [`decide`]; the rest is the imperative shell around tmux,
//! the registry and the event log. Every verb on a session runs in that
//! session's turn ([`queue`]), so concurrent callers are served one at a
//! time, in arrival order.

pub mod cleanup;
pub mod close;
pub mod context;
pub mod control;
pub mod decide;
pub mod deliver;
pub mod key;
pub mod links;
pub mod owner;
pub mod probe;
pub use crate::registry::queue;
pub mod ready;
pub mod respawn;
pub mod spawn;

pub use key::{Record, SessionKey};
