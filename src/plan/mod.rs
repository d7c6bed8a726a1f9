//! The plan: desired state compared with observed state, session by session.
//!
//! [`compute()`] is a pure function of its inputs; [`gather`] is the shell that
//! collects those inputs from the registry, tmux and `/proc`; [`saved`]
//! writes and checks plans for `apply --plan`. The text a person reads is a
//! view: `crate::views::plan`.

pub mod args;
pub mod change;
pub mod compute;
pub mod detached;
pub mod down;
pub mod failed_resume;
pub mod gather;
pub mod host;
pub mod interrupted;
pub mod model;
pub mod ownership;
pub mod reason;
pub mod residue;
pub mod resumable;
pub mod roll_order;
pub mod safe_point;
pub mod saved;
pub mod screen;
pub mod shared_conversation;
pub mod unmanaged;

pub use change::{Change, ChangeCase};
pub use compute::{compute, ManagedSession, Targets};
pub use model::{
    Action, ArgsChange, ArgsField, ConversationMoved, EnvReading, ObservationFailure, Plan,
    SafePoint, SessionKind, SessionPlan, Summary,
};
pub use reason::Reason;
