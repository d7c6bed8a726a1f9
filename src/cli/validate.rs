//! `the-loop validate`

use super::output::{print_json, stdout_style};
use clap::Args;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// Check CANDIDATE instead of the configured env.file, before it is
    /// swapped in (a pre-commit hook, an Ansible task before the push).
    #[arg(long, value_name = "CANDIDATE")]
    pub env_file: Option<PathBuf>,
    /// Print the result as one JSON object (schemas/validate.schema.json),
    /// errors included; the exit code is the same.
    #[arg(long)]
    pub json: bool,
}

pub fn run(config: Option<&Path>, args: ValidateArgs) -> miette::Result<ExitCode> {
    let validated = crate::ops::validate::validate(config, args.env_file.as_deref());
    if args.json {
        print_json(&validated.report);
    } else if let Some(error) = validated.error {
        // The loaders' own diagnostic, as `plan` would print it.
        return Err(error);
    } else {
        crate::out!(
            "{}",
            crate::views::validate::render(&validated.report, stdout_style())
        );
    }
    Ok(if validated.report.valid {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
