//! `the-loop sessions attach`: replaces itself with `tmux attach` on the
//! session's tmux session. A closed session is always attached read-only.

use super::deliver::parse_ref;
use crate::cli::context::Context;
use crate::lifecycle::key;
use crate::lifecycle::probe::probe;
use crate::lifecycle::SessionKey;
use crate::observed::Probe;
use crate::registry::Status;
use crate::runner::spawn::exact;
use clap::Args;
use std::os::unix::process::CommandExt;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct AttachArgs {
    /// Work-item ref, e.g. github:octo/repo#15.
    #[arg(value_name = "REF")]
    reference: String,
    /// Watch without being able to type (`tmux attach -r`). Deliveries are
    /// not affected by a read-only observer.
    #[arg(long)]
    read_only: bool,
}

pub fn run(ctx: &Context, args: AttachArgs) -> miette::Result<ExitCode> {
    let key = SessionKey::WorkItem(parse_ref(&args.reference)?);
    let Some(record) = key::load(&ctx.registry, &key)? else {
        miette::bail!(
            code = "the_loop::attach::not_registered",
            help = format!(
                "`the-loop sessions list` shows the registered sessions; a session kept after a reset is read with `tmux attach -r -t {}`",
                key.tmux_name()
            ),
            "no session is registered for {}",
            key.label()
        );
    };
    let Some(target) = record.tmux_target() else {
        miette::bail!(
            code = "the_loop::attach::no_target",
            help = format!(
                "it gets one on its next delivery (`the-loop sessions deliver {} --message …`), which respawns it",
                key.label()
            ),
            "no tmux session recorded yet for {}",
            key.label()
        );
    };
    let closed = record.status() == Status::Closed;
    if probe(&ctx.tmux, &target).0 == Probe::Absent {
        let help = if closed {
            "the work item is closed and its tmux session was not kept; there is nothing left to attach to".to_owned()
        } else {
            format!(
                "the next delivery respawns it (`the-loop sessions deliver {} --message …`)",
                key.label()
            )
        };
        miette::bail!(
            code = "the_loop::attach::absent",
            help = help,
            "tmux session {target} of {} does not exist",
            key.label()
        );
    }
    if closed && !args.read_only {
        eprintln!(
            "note: {} is closed; attaching read-only so its retained transcript cannot be typed into.",
            key.label()
        );
    }
    let mut command = std::process::Command::new("tmux");
    command.arg("attach-session");
    if args.read_only || closed {
        command.arg("-r");
    }
    command.args(["-t", &exact(&target)]);
    let err = command.exec();
    Err(miette::miette!(
        code = "the_loop::attach::exec",
        help = "check that tmux is installed and on PATH",
        "cannot run tmux attach: {}",
        err.kind()
    ))
}
