//! Actual state: the panes tmux reports and the environments their processes hold.

pub mod detached;
pub mod fleet;
pub mod harness_pane;
pub mod proc_env;
pub mod residue;

pub use fleet::{Fleet, FleetView, Pane, Probe};
pub use proc_env::{EnvRead, ProcessEnv};
