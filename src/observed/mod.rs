//! Actual state: the registry's records, the panes tmux reports, the
//! layers tmux keeps and the environments their processes hold, read once
//! into one [`Observation`].

pub mod detached;
pub mod fleet;
pub mod harness;
pub mod harness_pane;
pub mod markers;
pub mod observation;
pub mod ownership;
pub mod registered;
pub mod residue;
pub mod script;
pub mod session_loop;
pub mod unmanaged;

pub use crate::proc_env::{EnvRead, ProcessEnv};
pub use fleet::{Fleet, FleetView, Pane, Probe};
pub use harness::HarnessProcess;
pub use observation::{observe, Observation, Wanted};
pub use registered::ManagedSession;
