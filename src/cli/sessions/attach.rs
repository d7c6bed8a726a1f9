//! `the-loop sessions attach`: replaces itself with `tmux attach` on the
//! session's tmux session, or, run inside tmux (the web-terminal hub, a
//! person's own tmux), switches that client over with `switch-client`:
//! nesting tmux inside tmux is what tmux refuses. A closed session is always
//! attached read-only.

use crate::lifecycle::key;
use crate::lifecycle::probe::probe;
use crate::lifecycle::SessionKey;
use crate::observed::Probe;
use crate::ops::resolve::resolve;
use crate::ops::Context;
use crate::registry::Status;
use crate::runner::spawn::exact;
use clap::Args;
use std::os::unix::process::CommandExt;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct AttachArgs {
    /// The session: a work-item ref (github:octo/repo#15), a short form when
    /// it matches one registered session (#15, repo#15, owner/repo#15), a
    /// standing-session name, or the tmux name `sessions list` shows.
    #[arg(
        value_name = "REF",
        required_unless_present = "work_item",
        conflicts_with = "work_item"
    ,
        add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::session_refs)
    )]
    reference: Option<String>,
    /// The work item, in any form REF takes.
    #[arg(long, value_name = "REF", add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::session_refs))]
    work_item: Option<String>,
    /// Watch without being able to type (`tmux attach -r`). Deliveries are
    /// not affected by a read-only observer.
    #[arg(long)]
    read_only: bool,
}

pub fn run(ctx: &Context, args: AttachArgs) -> miette::Result<ExitCode> {
    let typed = args
        .reference
        .as_deref()
        .or(args.work_item.as_deref())
        .unwrap_or_default();
    let key = resolve(&ctx.registry, typed)?;
    if args.work_item.is_some() && key.as_work_item().is_none() {
        miette::bail!(
            code = "the_loop::attach::not_a_work_item",
            help = "pass a standing session's name as REF, without --work-item",
            "--work-item names a standing session"
        );
    }
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
            help = respawn_hint(&key, "it gets one when"),
            "no tmux session recorded yet for {}",
            key.label()
        );
    };
    let closed = record.status() == Status::Closed;
    if probe(&ctx.tmux, &target).0 == Probe::Absent {
        let help = if closed {
            "the work item is closed and its tmux session was not kept; there is nothing left to attach to".to_owned()
        } else {
            respawn_hint(&key, "it comes back when")
        };
        miette::bail!(
            code = "the_loop::attach::absent",
            help = help,
            "tmux session {target} of {} does not exist",
            key.label()
        );
    }
    if closed && !args.read_only {
        crate::errln!(
            "note: {} is closed; attaching read-only so its retained transcript cannot be typed into.",
            key.label()
        );
    }
    let read_only = args.read_only || closed;
    if std::env::var_os("TMUX").is_some_and(|v| !v.is_empty()) {
        return switch_client(ctx, &target, read_only);
    }
    let mut command = std::process::Command::new("tmux");
    command.arg("attach-session");
    if read_only {
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

fn respawn_hint(key: &SessionKey, lead: &str) -> String {
    match key {
        SessionKey::WorkItem(_) => format!(
            "{lead} the next delivery respawns it (`the-loop sessions deliver {} --message …`)",
            key.label()
        ),
        SessionKey::Standing(name) => {
            format!("{lead} it is started again (`the-loop standing start {name}`)")
        }
    }
}

/// Moves the tmux client this runs under to `target`. tmux finds that client
/// from `$TMUX` and the pane, so it works from any pane of the same server.
fn switch_client(ctx: &Context, target: &str, read_only: bool) -> miette::Result<ExitCode> {
    let mut argv = vec!["switch-client", "-t"];
    let exact_target = exact(target);
    argv.push(&exact_target);
    if read_only {
        // `switch-client -r` toggles, so a client already read-only would be
        // made writable; setting the flag is what "read-only" means here.
        argv.extend([";", "refresh-client", "-f", "read-only"]);
    }
    let out = ctx.tmux.run(&argv).map_err(|err| {
        miette::miette!(
            code = "the_loop::attach::switch",
            help = "check that tmux is installed and on PATH",
            "cannot ask tmux to switch this client: {err}"
        )
    })?;
    if !out.success {
        miette::bail!(
            code = "the_loop::attach::switch",
            help = "$TMUX is set, so this runs inside tmux; the session must be on that same tmux server (unset TMUX to attach from a nested client instead)",
            "tmux refused to switch this client to {target}: {}",
            out.stderr
        );
    }
    if read_only {
        crate::errln!(
            "note: this tmux client is now read-only (tmux's client flag, which stays when it switches away); detach and attach again to type."
        );
    }
    Ok(ExitCode::SUCCESS)
}
