//! The machine-local registry of sessions: work-item records and standing
//! records under `<state root>/local/`, in the upstream-compatible format.
//!
//! [`refs`] turns a work-item ref into the names everything else keys on (the
//! record's file name and the tmux session name), [`record`] is the JSON
//! format, and [`store`] reads and writes the files. The intent journal
//! ([`journal`]) sits beside the records: what a roll in flight meant to do;
//! [`resume_failures`] beside it: the sessions whose harness exited when a
//! roll resumed them, so later rolls leave them alone.

pub mod background;
pub mod follow;
pub mod host_roll;
pub mod identity;
pub mod journal;
pub mod key;
pub mod queue;
pub mod record;
pub mod refs;
pub mod resume_failures;
pub mod server;
pub mod store;
pub mod target_file;

pub use identity::{Collision, Shared};
pub use key::{RecordFacts, SessionKey};
pub use record::{
    LaunchArgs, LaunchFields, SessionFields, StandingRecord, Status, WorkItemField, WorkItemRecord,
    RECENT_DELIVERIES_KEPT,
};
pub use refs::{
    is_valid_session_id, normalise_tmux_target, standing_tmux_name, tmux_session_name,
    validate_standing_name, RefError, WorkItemRef,
};
pub use store::{CorruptRecord, Listing, Registry, RegistryError};
