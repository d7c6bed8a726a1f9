//! `import ID REF --host H` and `sessions start REF --host H` for a host
//! beside tmux (`docs/hosts.md`): the host must be turned on in the
//! config, and its module does the rest.

use crate::host_kind::Host;
use crate::hosts::commands::{require, ImportedOnHost, StartedOnHost};
use crate::hosts::SessionHost;
use crate::ops::Context;
use std::path::Path;

fn host_of(ctx: &Context, host: Host) -> miette::Result<&'static dyn SessionHost> {
    require(&ctx.config, host)?;
    crate::hosts::of(host).ok_or_else(|| {
        miette::miette!(
            code = "the_loop::host::panes",
            "{} sessions are panes: import and start them without --host",
            host.name()
        )
    })
}

pub fn import(
    ctx: &Context,
    host: Host,
    id: &str,
    reference: &str,
    dry_run: bool,
) -> miette::Result<ImportedOnHost> {
    host_of(ctx, host)?.import(&ctx.config, id, reference, dry_run)
}

pub fn start(
    ctx: &Context,
    host: Host,
    reference: &str,
    cwd: &Path,
    prompt: Option<&str>,
) -> miette::Result<StartedOnHost> {
    host_of(ctx, host)?.start(&ctx.config, reference, cwd, prompt)
}
