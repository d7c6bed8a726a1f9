//! `the-loop watch`: a long-running reconciler. It notices a rotation of the
//! env file within seconds (inotify, debounced), re-plans on an interval to
//! catch sessions started by other means, reports drift once per change,
//! and with auto-apply rolls drifted sessions with the same canaried,
//! verified roll as `apply`, at most once per session per desired state.
//!
//! [`debounce`], [`decide`] and [`report`] are pure; [`memory`] and
//! [`crate::services::watch_lock`] hold the little state `watch` keeps under the state root;
//! [`reconcile`] is plan-then-apply without printing; [`run()`] is the loop;
//! [`metrics`] keeps what the loop saw for Prometheus, and [`metrics_server`]
//! serves it; [`sd_notify`] tells a service manager that watch is ready,
//! alive, and stopping.

pub mod debounce;
pub mod decide;
pub mod held;
pub mod memory;
pub mod metrics;
pub mod metrics_http;
pub mod metrics_server;
pub mod reconcile;
pub mod report;
pub mod run;
pub mod sd_notify;

pub use run::{run, WatchOptions};
