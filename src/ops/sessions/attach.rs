//! `sessions attach`: replaces this process with `tmux attach` on the
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
use std::os::unix::process::CommandExt;

#[derive(Debug)]
pub struct AttachOptions {
    /// The session as typed: a ref, a short form, a standing name or a tmux name.
    pub reference: String,
    /// It was named with `--work-item`, so a standing session is refused.
    pub work_item_only: bool,
    /// Attach without being able to type.
    pub read_only: bool,
    /// Outside tmux, run `tmux attach` and return when it ends (`top`,
    /// which takes its terminal back), instead of becoming it.
    pub come_back: bool,
}

/// This tmux client was switched to the session (run inside tmux); outside
/// tmux, `attach` does not return (it becomes `tmux attach`) unless asked to
/// come back, when it returns after the attach ended.
#[derive(Debug)]
pub struct Switched {
    /// The client is now read-only, a flag that stays with it.
    pub read_only: bool,
    /// Outside tmux and asked to come back: how `tmux attach` ended
    /// (`None` when this client was switched instead).
    pub attach_ended: Option<std::process::ExitStatus>,
}

pub fn attach(
    ctx: &Context,
    options: &AttachOptions,
    notes: &dyn crate::ops::notes::Notes,
) -> miette::Result<Switched> {
    let key = resolve(&ctx.registry, &options.reference)?;
    if options.work_item_only && key.as_work_item().is_none() {
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
    // Said on stderr and again on tmux's status line: tmux discards what
    // the terminal has not yet shown when it takes it over (it flushes the
    // terminal's output as it starts), so the stderr line alone can be lost.
    let banner = (closed && !options.read_only).then(|| {
        notes.note(crate::ops::notes::Note::ClosedReadOnly { label: key.label() });
        closed_banner(&key.label())
    });
    let read_only = options.read_only || closed;
    if std::env::var_os("TMUX").is_some_and(|v| !v.is_empty()) {
        return switch_client(ctx, &target, read_only, banner.as_deref());
    }
    // On the fleet's server (`-S` when it is not tmux's own choice).
    let mut command = ctx.tmux.command(["attach-session"]);
    if read_only {
        command.arg("-r");
    }
    command.args(["-t", &exact(&target)]);
    if let Some(banner) = &banner {
        command.args(BANNER_ON_STATUS_LINE).arg(banner);
    }
    if options.come_back {
        let status = command.status().map_err(|err| {
            miette::miette!(
                code = "the_loop::attach::exec",
                help = "check that tmux is installed and on PATH",
                "cannot run tmux attach: {}",
                crate::fsutil::IoKind(err.kind())
            )
        })?;
        return Ok(Switched {
            read_only,
            attach_ended: Some(status),
        });
    }
    let err = command.exec();
    Err(miette::miette!(
        code = "the_loop::attach::exec",
        help = "check that tmux is installed and on PATH",
        "cannot run tmux attach: {}",
        crate::fsutil::IoKind(err.kind())
    ))
}

/// A tmux command chained after the attach or switch: the banner on the
/// client's status line for ten seconds.
const BANNER_ON_STATUS_LINE: [&str; 4] = [";", "display-message", "-d", "10000"];

/// The status-line words for a closed session. `display-message` expands
/// `#` formats, so a ref's `#` is doubled to stay literal; the words never
/// end in `;`, which tmux would read as a command separator.
fn closed_banner(label: &str) -> String {
    format!(
        "the-loop: {} is closed; attached read-only so its retained transcript cannot be typed into.",
        label.replace('#', "##")
    )
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
fn switch_client(
    ctx: &Context,
    target: &str,
    read_only: bool,
    banner: Option<&str>,
) -> miette::Result<Switched> {
    let mut argv = vec!["switch-client", "-t"];
    let exact_target = exact(target);
    argv.push(&exact_target);
    if read_only {
        // `switch-client -r` toggles, so a client already read-only would be
        // made writable; setting the flag is what "read-only" means here.
        argv.extend([";", "refresh-client", "-f", "read-only"]);
    }
    if let Some(banner) = banner {
        argv.extend(BANNER_ON_STATUS_LINE);
        argv.push(banner);
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
    Ok(Switched {
        read_only,
        attach_ended: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_banner_keeps_a_refs_hash_literal_and_never_ends_a_tmux_command() {
        let banner = closed_banner("github:octo/repo#29");
        assert!(
            banner.contains("github:octo/repo##29 is closed"),
            "{banner}"
        );
        assert!(!banner.ends_with(';'));
    }
}
