//! `the-loop api-key-helper --config FILE`: Claude Code's `apiKeyHelper`
//! (hidden). It prints the env file's current value of the delivered
//! `ANTHROPIC_API_KEY` to its stdout, which is a pipe to the harness.
//!
//! This is the one place a value is written out, so it refuses whenever its
//! stdout is a terminal: run by hand, it prints nothing but why. Errors name
//! the config and the name, never the value.

use crate::desired::config;
use crate::harness::hooks::HELPER_DELIVERED;
use clap::Args;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct ApiKeyHelperArgs {
    #[arg(long, value_name = "FILE")]
    config: PathBuf,
}

pub fn run(args: ApiKeyHelperArgs) -> miette::Result<ExitCode> {
    let mut stdout = std::io::stdout().lock();
    if stdout.is_terminal() {
        crate::errln!(
            "the-loop api-key-helper: refusing to print {HELPER_DELIVERED} to a terminal; \
             Claude Code runs this as its apiKeyHelper, with its stdout a pipe"
        );
        return Ok(ExitCode::FAILURE);
    }
    let config = config::load(&args.config)?;
    let policy = crate::desired::load_policy(&config, false)?;
    let Some(value) = policy.helper_value(HELPER_DELIVERED) else {
        crate::errln!(
            "the-loop api-key-helper: {} does not deliver {HELPER_DELIVERED} from an env file",
            config.path.display()
        );
        return Ok(ExitCode::FAILURE);
    };
    // A closed pipe is the harness's business; nothing else may be printed.
    if stdout
        .write_all(value.expose_bytes())
        .and_then(|()| stdout.flush())
        .is_err()
    {
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}
