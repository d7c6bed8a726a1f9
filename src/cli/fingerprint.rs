//! `the-loop fingerprint NAME`: a value on stdin → [`crate::ops::fingerprint`]
//! → `views::fingerprint`.

use crate::ops::Context;
use crate::secret::SecretValue;
use crate::views::Format;
use clap::Args;
use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct FingerprintArgs {
    /// The variable's name, as the env file and the plan spell it.
    #[arg(value_name = "NAME", value_parser = env_name)]
    pub name: String,
    /// Print the result as one JSON object (format_version "1").
    #[arg(long)]
    pub json: bool,
}

/// `[A-Za-z_][A-Za-z0-9_]*`, as a variable's name is everywhere else.
fn env_name(name: &str) -> Result<String, String> {
    let mut chars = name.chars();
    let starts = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    if starts && chars.all(|c| c.is_ascii_alphanumeric() || c == '_') {
        Ok(name.to_owned())
    } else {
        Err("a name matches [A-Za-z_][A-Za-z0-9_]*; the value goes on stdin".into())
    }
}

pub fn run(config: Option<&Path>, args: FingerprintArgs) -> miette::Result<ExitCode> {
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        crate::errln!(
            "the-loop fingerprint: reads the value from stdin, which is a terminal here; \
             pipe it in (`printf %s \"$V\" | the-loop fingerprint {}`) or redirect a file, \
             so it is neither echoed nor kept in your shell's history",
            args.name
        );
        return Ok(ExitCode::FAILURE);
    }
    let bytes = crate::bounded_read::read_stream(stdin.lock(), &crate::bounded_read::VALUE)
        .map_err(|e| {
            miette::miette!(
                code = "the_loop::fingerprint::stdin",
                "cannot read the value from stdin: {}",
                crate::bounded_read::describe(&e)
            )
        })?;
    if bytes.ends_with(b"\n") {
        // The fingerprint is of the bytes as given, as sha256sum's is: a
        // newline that `echo` added makes it another value's.
        crate::errln!(
            "note: the value read ends with a newline, which is part of it; \
             `printf %s \"$V\"`, not `echo`, gives the value alone"
        );
    }
    let value = SecretValue::new(bytes);
    let ctx = Context::load_without_tmux(config)?;
    let report = crate::ops::fingerprint::fingerprint(&ctx, &args.name, &value)?;
    crate::views::fingerprint::show(&report, Format::json_if(args.json));
    Ok(ExitCode::SUCCESS)
}
