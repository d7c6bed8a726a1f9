//! The launcher a pane runs. It reads the config and env file itself, so no
//! value ever travels through an argv, builds the session's environment,
//! and replaces itself with the harness (same pid).
//!
//! It reads the file as it is when it starts, which during a roll may be
//! newer than what the roll's plan read: the roll checks the file before it
//! ends each harness and compares the new process with the file as it is
//! then too (`apply/roll/verify.rs`), so a rewrite is reported as such,
//! never as the newest holder being stale.

use crate::desired::config;
use crate::registry::SessionKey as Identity;
use clap::{Args, Parser};
use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::ExitCode;

/// `the-loop exec …` parsed on its own, without the rest of the command
/// tree: every harness start runs the launcher (hundreds of them in one
/// roll), and building the whole tree cost each about a millisecond of CPU.
#[derive(Debug, Parser)]
#[command(
    name = "exec",
    bin_name = "the-loop exec",
    about = "(internal) The pane launcher: builds the desired environment and execs the harness.",
    disable_version_flag = true
)]
pub struct Launcher {
    #[command(flatten)]
    pub args: ExecArgs,
}

#[derive(Debug, Args)]
pub struct ExecArgs {
    #[arg(long, value_name = "FILE")]
    config: PathBuf,
    #[arg(
        long,
        conflicts_with = "standing",
        required_unless_present = "standing"
    )]
    work_item: Option<String>,
    #[arg(long)]
    standing: Option<String>,
    /// The harness the record names, whose hook settings the launch gets.
    /// A pane started before the flag existed ran Claude Code, then the only
    /// harness, so its absence means `claude`.
    #[arg(long = "harness", value_name = "NAME", default_value = crate::harness::CLAUDE)]
    harness_name: String,
    /// A file holding the first prompt; appended as the harness's last
    /// argument and removed once read, so the text never sits in tmux's argv.
    #[arg(long, value_name = "FILE")]
    prompt_file: Option<PathBuf>,
    /// The harness and its arguments.
    #[arg(last = true, required = true)]
    harness: Vec<OsString>,
}

pub fn run(args: ExecArgs) -> miette::Result<ExitCode> {
    let config = config::load(&args.config)?;
    // An env file that no longer parses means the desired environment is
    // unknown: refuse rather than start a harness on a guess.
    let policy = crate::desired::load_policy(&config, false)?;
    let identity = match (args.work_item, args.standing) {
        // The ref was a parsed one when the pane's argv was written.
        (Some(r), _) => Identity::work_item(&r).map_err(|e| miette::miette!("--work-item: {e}"))?,
        (None, Some(n)) => Identity::Standing(n),
        (None, None) => unreachable!("clap requires one"),
    };
    let harness = crate::harness::by_name(&args.harness_name).ok_or_else(|| {
        miette::miette!(
            code = "the_loop::harness::unsupported",
            "{}",
            crate::harness::refusal(&args.harness_name)
        )
    })?;
    let desired = policy.desired_for(&identity);
    let (program, rest) = args
        .harness
        .split_first()
        .expect("clap requires the harness");
    let mut command = std::process::Command::new(program);
    let helper = policy
        .helper_value(crate::harness::hooks::HELPER_DELIVERED)
        .is_some();
    let settings = hook_settings(harness, &config, helper);
    // Said only where the layer really carries the helper.
    if helper && harness.uses_key_helper() && !settings.is_empty() {
        command.env(crate::harness::hooks::VAR_KEY_HELPER, "1");
    } else {
        command.env_remove(crate::harness::hooks::VAR_KEY_HELPER);
    }
    command.args(settings);
    command.args(rest);
    if let Some(prompt) = args
        .prompt_file
        .as_deref()
        .and_then(crate::runner::boot_prompt::take)
    {
        command.arg(crate::harness::PROMPT_SEPARATOR).arg(prompt);
    }
    desired.apply_to(&mut command);
    // The harness keeps this process's pid and start time across `exec`:
    // its hooks file their events under it ([`crate::activity::lineage`]).
    if let Some(start) = crate::activity::store::process_start(std::process::id() as i32) {
        let me = crate::activity::lineage::ProcessId {
            pid: std::process::id() as i32,
            start,
        };
        command.env(crate::activity::lineage::VARIABLE, me.to_variable());
    } else {
        // Never a name inherited from an outer harness.
        command.env_remove(crate::activity::lineage::VARIABLE);
    }
    let err = command.exec();
    Err(miette::miette!(
        code = "the_loop::exec::harness",
        help = format!(
            "check that the harness is installed, or set routing.harnessBinary.{}",
            harness.name()
        ),
        "cannot start the harness {}: {}",
        PathBuf::from(program).display(),
        crate::fsutil::IoKind(err.kind())
    ))
}

/// `--settings <file>` for the harness's hooks, written now so it names this
/// binary. A file that cannot be written costs the session its activity
/// (`unknown`), never its start: the harness runs without the layer.
///
/// With `key_helper`, the layer also makes the-loop's key helper Claude
/// Code's `apiKeyHelper` (the name itself is withheld from the environment
/// by the desired state).
fn hook_settings(
    harness: &dyn crate::harness::Harness,
    config: &config::Config,
    key_helper: bool,
) -> Vec<OsString> {
    let written = std::env::current_exe().and_then(|the_loop| {
        let helper = key_helper.then(|| crate::harness::hooks::key_helper(&the_loop, &config.path));
        harness.hook_settings(&config.state_root, &the_loop, helper.as_deref())
    });
    match written {
        Ok(words) => words,
        Err(err) => {
            crate::errln!(
                "the-loop: starting without activity hooks: cannot write {}: {}",
                crate::harness::hooks::settings_path(&config.state_root).display(),
                crate::fsutil::describe(&err)
            );
            Vec::new()
        }
    }
}
