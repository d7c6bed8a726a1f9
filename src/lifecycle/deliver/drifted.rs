//! Whether the live harness a delivery would paste into runs the launch
//! its record asks for. One that drifted (the record says `--effort high`,
//! the process runs `--effort max`) is relaunched before the text goes in,
//! by the caller that owns the roll engine (`ops::sessions::relaunch`).

use super::Record;
use crate::events::roll::ArgsChange;
use crate::lifecycle::context::Context;
use crate::lifecycle::owner::Owned;

/// The launch arguments the proven harness runs that differ from the
/// record's; empty when they agree, when the record stored none (older
/// records are never checked), or when the argv could not be read.
pub fn args(ctx: &Context, record: &Record, owned: &Owned) -> Vec<ArgsChange> {
    let Some(recorded) = record.stored_launch_args() else {
        return Vec::new();
    };
    let Some(harness) = crate::harness::by_name(record.harness()) else {
        return Vec::new();
    };
    let Some(argv) = owned.harness.as_ref().and_then(|h| h.argv.as_deref()) else {
        return Vec::new();
    };
    crate::plan::args::drift(harness, &recorded, argv, &ctx.config.routing.models)
}
