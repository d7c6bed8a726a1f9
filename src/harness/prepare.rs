//! Pre-spawn harness preparation, run before every spawn and respawn so a
//! session opens straight into work (trust dialog, plugin). Best-effort:
//! a failure is reported and the spawn proceeds.

use crate::desired::config::Config;
use crate::events::EventLog;
use std::path::Path;

/// Prepares the harness's own config for a session in `cwd`. Nothing is
/// written yet: trust and plugin seeding arrive with their own change.
pub fn before_spawn(_config: &Config, _cwd: &Path, _events: &EventLog) {}
