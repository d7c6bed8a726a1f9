//! Apply: roll sessions onto the desired environment by respawning each
//! pane in place, resuming its conversation, and verifying what the new
//! process holds.
//!
//! The flow is: [`select`] the sessions from a plan, [`precheck`] each one
//! (never touching a session whose conversation cannot be resumed), roll a
//! canary alone, then the rest in parallel ([`fleet`], [`pipeline`]), each
//! through [`roll`], and collect a [`report`].

pub mod deadline;
pub mod drain;
pub mod fleet;
pub mod interrupt;
pub mod journal;
pub mod lock;
pub mod pipeline;
pub mod precheck;
pub mod ready;
pub mod report;
pub mod roll;
pub mod scrub;

pub use fleet::{execute, Mode, RollOptions};
pub use report::{Conversation, Outcome, Report, SessionReport};
