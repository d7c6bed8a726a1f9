//! `show`: a saved plan (`plan --out FILE`), read back for review. It needs
//! no config, tmux or `/proc`: a reviewer may read the file anywhere, and
//! the file holds names and fingerprints only.

use crate::plan::saved::{self, SavedPlanError};
use crate::plan::Plan;
use std::path::Path;

/// The plan saved at `path`, refused (naming the file) when it is not one.
pub fn saved_plan(path: &Path) -> Result<Plan, SavedPlanError> {
    saved::read(path)
}
