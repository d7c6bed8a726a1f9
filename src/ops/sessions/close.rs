//! `sessions stop` and `sessions close` (and, through [`stop_session`],
//! `standing stop`): the close path of [`crate::lifecycle::close`], and for
//! a close by a work item's closure, the cleanup its actor allows.

use crate::lifecycle::cleanup::{cleanup, closure_cleanup, CleanupReport, Deferral};
use crate::lifecycle::close::{close as close_session, CloseOptions, CloseReport};
use crate::lifecycle::key;
use crate::lifecycle::links::owner_of;
use crate::lifecycle::{queue, SessionKey};
use crate::ops::Context;
use crate::registry::WorkItemRef;
use serde::Serialize;

/// `--keep-tmux` / `--kill-tmux`: both false leaves it to
/// routing.tmux.keepSessionOnClose.
#[derive(Debug, Default, Clone, Copy)]
pub struct TmuxChoice {
    pub keep: bool,
    pub kill: bool,
}

#[derive(Debug)]
pub struct StopOptions {
    /// The work item as recorded ([`crate::ops::resolve::resolve_ref`]).
    pub reference: WorkItemRef,
    pub tmux: TmuxChoice,
}

/// How a report names its session: `{"ref": …}` or `{"standing": …}`.
#[derive(Debug, Serialize)]
pub enum Named {
    #[serde(rename = "ref")]
    WorkItem(String),
    #[serde(rename = "standing")]
    Standing(String),
}

impl Named {
    pub fn label(&self) -> &str {
        match self {
            Named::WorkItem(label) | Named::Standing(label) => label,
        }
    }
}

/// What `sessions stop` and `standing stop` did (their `--json` document).
#[derive(Debug, Serialize)]
pub struct Stopped {
    #[serde(flatten)]
    pub session: Named,
    pub close: CloseReport,
}

pub fn stop(ctx: &Context, options: &StopOptions) -> miette::Result<Stopped> {
    let key = SessionKey::WorkItem(options.reference.clone());
    let named = Named::WorkItem(key.label());
    stop_session(ctx, &key, named, options.tmux, || not_registered(&key))
}

/// Closes the registered session `key` and ends it as `tmux` and the
/// config say; `not_registered` is the error when there is no record.
pub fn stop_session(
    ctx: &Context,
    key: &SessionKey,
    session: Named,
    tmux: TmuxChoice,
    not_registered: impl FnOnce() -> miette::Report,
) -> miette::Result<Stopped> {
    let options = CloseOptions::from_config(ctx, tmux.keep, tmux.kill);
    let _turn = queue::wait_turn(
        &ctx.config.state_root,
        &key.tmux_name(),
        queue::DEFAULT_WAIT,
    )?;
    let Some(mut record) = key::load(&ctx.registry, key)? else {
        return Err(not_registered());
    };
    let close = close_session(ctx, key, Some(&mut record), options, true)?;
    Ok(Stopped { session, close })
}

fn not_registered(key: &SessionKey) -> miette::Report {
    miette::miette!(
        code = "the_loop::close::not_registered",
        help = "`the-loop sessions list` shows the registered sessions",
        "no session is registered for {}",
        key.label()
    )
}

#[derive(Debug)]
pub struct CloseItemOptions {
    /// The work item as recorded ([`crate::ops::resolve::resolve_ref`]).
    pub reference: WorkItemRef,
    pub tmux: TmuxChoice,
    /// Who closed the work item: a cleanup follows only for one in
    /// routing.authorizedUsers.
    pub actor: Option<String>,
}

/// What `sessions close` did (its `--json` document).
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Closed {
    /// The ref is a pull request linked to a work item: nothing was closed.
    Linked {
        #[serde(rename = "ref")]
        reference: String,
        linked_to: String,
        close: Option<CloseReport>,
        cleanup: Option<CleanupReport>,
    },
    Closed {
        #[serde(rename = "ref")]
        reference: String,
        close: CloseReport,
        cleanup: Option<CleanupReport>,
        cleanup_deferred: Option<Deferral>,
        /// Whether a record was there to close.
        #[serde(skip)]
        registered: bool,
    },
}

impl Closed {
    /// False when a cleanup ran and left something behind.
    pub fn complete(&self) -> bool {
        match self {
            Closed::Closed {
                cleanup: Some(c), ..
            } => c.complete(),
            _ => true,
        }
    }
}

pub fn close(ctx: &Context, options: &CloseItemOptions) -> miette::Result<Closed> {
    let reference = &options.reference;
    // A linked pull request closing does not end the work item it delivers.
    if let Some(owner) = owner_of(&ctx.registry, reference) {
        return Ok(Closed::Linked {
            reference: reference.to_string(),
            linked_to: owner.to_string(),
            close: None,
            cleanup: None,
        });
    }
    let key = SessionKey::WorkItem(reference.clone());
    let close_options = CloseOptions::from_config(ctx, options.tmux.keep, options.tmux.kill);
    let _turn = queue::wait_turn(
        &ctx.config.state_root,
        &key.tmux_name(),
        queue::DEFAULT_WAIT,
    )?;
    let mut record = key::load(&ctx.registry, &key)?;
    let close = close_session(ctx, &key, record.as_mut(), close_options, true)?;
    let actor = options.actor.as_deref();
    let decision = closure_cleanup(actor, &ctx.config.routing.authorized_users);
    let (cleanup, cleanup_deferred) = match decision {
        Ok(()) => (Some(cleanup(ctx, reference, record.as_ref())?), None),
        Err(reason) => {
            ctx.events.emit(crate::events::Event::CleanupDeferred {
                subject: key.subject(),
                reason,
                actor: actor.map(String::from),
            });
            (None, Some(reason))
        }
    };
    Ok(Closed::Closed {
        reference: key.label(),
        close,
        cleanup,
        cleanup_deferred,
        registered: record.is_some(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lifecycle::close::TmuxResult;
    use crate::observed::Probe;

    /// The documents `sessions stop --json` and `standing stop --json`
    /// printed before there was a report type: the name first, then the close.
    #[test]
    fn a_stop_names_its_session_first_as_ref_or_standing() {
        let close = || CloseReport {
            tmux_target: "loop-x".into(),
            record_target: None,
            probe: Probe::Absent,
            record_closed: true,
            harness: Vec::new(),
            tmux: TmuxResult::Absent,
            problems: Vec::new(),
        };
        let text = |session| {
            serde_json::to_string(&Stopped {
                session,
                close: close(),
            })
            .unwrap()
        };
        let item = text(Named::WorkItem("github:octo/repo#15".into()));
        assert!(
            item.starts_with(r#"{"ref":"github:octo/repo#15","close":{"tmux_target":"loop-x""#),
            "{item}"
        );
        let standing = text(Named::Standing("triage".into()));
        assert!(
            standing.starts_with(r#"{"standing":"triage","close":{"#),
            "{standing}"
        );
    }
}
