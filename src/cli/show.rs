//! `the-loop show PLANFILE`

use super::output::{print_json, stdout_style};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// A plan saved with `the-loop plan --out FILE`.
    #[arg(value_name = "PLANFILE")]
    pub planfile: PathBuf,
    /// Print the plan as one JSON object, as `plan --json` printed it
    /// (schemas/plan.schema.json).
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: ShowArgs) -> miette::Result<ExitCode> {
    let plan = crate::ops::show::saved_plan(&args.planfile)?;
    if args.json {
        print_json(&plan);
    } else {
        crate::out!(
            "{}",
            crate::views::show::render(&args.planfile, &plan, stdout_style())
        );
    }
    Ok(ExitCode::SUCCESS)
}
