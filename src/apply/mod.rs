//! Apply: roll sessions onto the desired environment by respawning each
//! pane in place, resuming its conversation, and verifying what the new
//! process holds.
//!
//! The flow is: select the sessions from a plan, check each one
//! ([`crate::plan::resumable`])
//! (never touching a session whose conversation cannot be resumed), roll a
//! canary alone, then the rest in parallel ([`fleet`], [`pipeline`]), each
//! through [`roll`], and collect a [`report`]. A session whose harness
//! exited at once when a roll resumed it is never the canary again while it
//! stays failed ([`failures`]).

pub mod deadline;
pub mod drain;
pub mod failures;
pub mod fleet;
pub mod interrupt;
pub mod lock;
pub mod pipeline;
pub mod ready;
pub mod report;
pub mod roll;
pub mod screen;
pub mod scrub;

pub use crate::plan::safe_point::Mode;
pub use fleet::{execute, RollOptions};
pub use report::{Conversation, Outcome, Report, SessionReport};
