//! The machine-local registry of sessions: work-item records and standing
//! records under `<state root>/local/`, in the upstream-compatible format.

pub mod record;
pub mod refs;
pub mod store;

pub use record::{StandingRecord, Status, WorkItemField, WorkItemRecord};
pub use refs::{normalise_tmux_target, standing_tmux_name, tmux_session_name, validate_standing_name, RefError, WorkItemRef};
pub use store::{CorruptRecord, Listing, Registry, RegistryError};
