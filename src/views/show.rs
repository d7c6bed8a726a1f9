//! A saved plan (`plan --out FILE`), shown again by `show FILE`: the plan's
//! own text view, headed by the file it came from and ended by what
//! `apply FILE` would do with it.

use super::plan::{render_plan_for, Next};
use super::Style;
use crate::plan::Plan;
use std::path::Path;

/// `show FILE`: the plan as `plan` printed it, for `apply FILE`.
pub fn render(path: &Path, plan: &Plan, style: Style) -> String {
    format!(
        "{} {} (names and fingerprints only)\n{}",
        style.bold("Saved plan:"),
        path.display(),
        render_plan_for(plan, Next::Saved { path }, style)
    )
}

/// What `plan --out FILE` says after the plan: how to apply that file.
pub fn saved_to(path: &Path, plan: &Plan) -> String {
    let refused = match &plan.candidate_for {
        Some(configured) => format!(
            "until {} holds what the candidate holds, or if anything else changed since",
            configured.display()
        ),
        None => "if the env file, a pane or a record changed since".to_owned(),
    };
    format!(
        "Saved this plan to {p}; `the-loop apply {p}` applies exactly it, without asking; it is refused {refused}.\n",
        p = path.display()
    )
}
