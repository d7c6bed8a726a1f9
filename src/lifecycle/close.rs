//! The close path, shared by `sessions stop`, `sessions close`,
//! `sessions reset` and `standing stop`: the record is closed first; then,
//! best-effort and logged, the tmux session is kept with its harness ended
//! (so a finished session is a record to read, not a live TUI a stray
//! keystroke could resume), or killed.

use super::key::{self, Record, SessionKey};
use super::owner::{prove, Intent, NotOwned, Owned, Proof};
pub use crate::events::session::TmuxResult;
use crate::events::TerminateResult;
use crate::lifecycle::context::Context;
use crate::observed::Probe;
use crate::registry::Status;
use crate::runner::close::{
    end_harness, end_moved_harness, kill, kill_moved_pane, CloseError, PaneEnding,
};
use serde::Serialize;

/// What happens to the tmux session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Disposition {
    Keep,
    Kill,
}

#[derive(Debug, Clone, Copy)]
pub struct CloseOptions {
    pub disposition: Disposition,
    /// End the harness in a kept session (`killHarnessOnClose`).
    pub end_harness: bool,
}

impl CloseOptions {
    /// The configured policy, with `--keep-tmux`/`--kill-tmux` overriding it.
    pub fn from_config(ctx: &Context, keep: bool, kill: bool) -> CloseOptions {
        let tmux = &ctx.config.routing.tmux;
        let disposition = if kill {
            Disposition::Kill
        } else if keep || tmux.keep_session_on_close {
            Disposition::Keep
        } else {
            Disposition::Kill
        };
        CloseOptions {
            disposition,
            end_harness: tmux.kill_harness_on_close,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct CloseReport {
    /// The tmux session acted on: the record's, or where its harness was
    /// found when a person renamed the session or moved its pane.
    pub tmux_target: String,
    /// The session the record names, when its harness was found elsewhere
    /// (`tmux_target`); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record_target: Option<String>,
    /// What the probe said before anything was done.
    pub probe: Probe,
    /// Whether a record was closed by this call.
    pub record_closed: bool,
    pub harness: Vec<PaneEnding>,
    pub tmux: TmuxResult,
    /// Best-effort steps that did not work, for people.
    pub problems: Vec<String>,
}

impl CloseReport {
    /// True when a running harness was ended (or killed with its session).
    pub fn ended_live_session(&self) -> bool {
        self.probe == Probe::Live && (self.tmux == TmuxResult::Killed || !self.harness.is_empty())
    }
}

/// Closes the record (when there is one and `close_record`), then ends the
/// session. The caller holds the session's turn. Refused, with nothing
/// done, when the session the record names is not the record's own.
pub fn close(
    ctx: &Context,
    key: &SessionKey,
    record: Option<&mut Record>,
    options: CloseOptions,
    close_record: bool,
) -> Result<CloseReport, NotOwned> {
    let target = key::target_of(key, record.as_deref());
    let owned = proven_or_said(ctx, key, record.as_deref(), &target)?;
    let mut report = CloseReport {
        tmux_target: target.clone(),
        record_target: None,
        probe: Probe::Unknown,
        record_closed: false,
        harness: Vec::new(),
        tmux: TmuxResult::Untouched,
        problems: Vec::new(),
    };
    if let (Some(record), true) = (record, close_record) {
        record.set_status(Status::Closed);
        record.touch();
        match key::save(&ctx.registry, record) {
            Ok(_) => {
                report.record_closed = true;
                ctx.events.emit(crate::events::Event::SessionClosed {
                    subject: key.subject().target(&target),
                });
            }
            Err(err) => report
                .problems
                .push(format!("the record was not closed: {err}")),
        }
    }
    end_session(ctx, key, &target, options, owned, &mut report);
    for problem in &report.problems {
        tracing::warn!(session = %target, problem = %problem, "close");
    }
    Ok(report)
}

/// [`prove`] for ending a session; a refusal is logged as the event a
/// refused ending always was.
pub fn proven_or_said(
    ctx: &Context,
    key: &SessionKey,
    record: Option<&Record>,
    target: &str,
) -> Result<Owned, NotOwned> {
    prove(ctx, key, record, target, Intent::End).inspect_err(|err| {
        ctx.events.emit(terminated(
            key,
            target,
            None,
            Some((TerminateResult::Refused, Some(err.code()))),
        ))
    })
}

/// The tmux half of a close: keep (ending the harness) or kill. `owned`
/// is the proof ([`prove`]) that the session is `key`'s; only the harness
/// process it read is signalled.
pub fn end_session(
    ctx: &Context,
    key: &SessionKey,
    target: &str,
    options: CloseOptions,
    owned: Owned,
    report: &mut CloseReport,
) {
    if owned.proof == Proof::Absent {
        report.probe = Probe::Absent;
        report.tmux = TmuxResult::Absent;
        return;
    }
    if let Some(moved) = &owned.moved_to {
        return end_moved(ctx, key, options, &owned, moved, report);
    }
    // The listing the proof read: what was proven is what is acted on.
    report.probe = owned.fleet.probe(target);
    match report.probe {
        Probe::Absent => {
            report.tmux = TmuxResult::Absent;
            return;
        }
        Probe::Unknown => {
            report
                .problems
                .push("tmux did not answer, so the session was left as it is".into());
            return;
        }
        Probe::Live | Probe::Dead => {}
    }
    let grace = ctx.config.routing.tmux.harness_kill_grace;
    // A kill ends the harness gracefully first as well: Claude Code writes
    // its conversation out on SIGTERM, and a killed session loses it.
    if options.end_harness || options.disposition == Disposition::Kill {
        let proven = owned.harness.as_ref().map(|h| (h.pid, h.start));
        match end_harness(&ctx.tmux, target, grace, proven) {
            Ok(endings) => {
                ctx.events
                    .emit(terminated(key, target, Some(endings.clone()), None));
                report.harness = endings;
            }
            Err(err) => {
                not_ended(ctx, key, target, &err, report);
                if let CloseError::NoHarnessPane { .. } = err {
                    // A kill now would end the harness with SIGHUP, which can
                    // lose its conversation: leave the session as it is.
                    report.problems.push(format!(
                        "the tmux session {target} was left as it is; close the operator's panes, then run the command again"
                    ));
                    return;
                }
            }
        }
    }
    match options.disposition {
        Disposition::Keep => {
            report.tmux = TmuxResult::Retained;
            ctx.events.emit(crate::events::Event::SessionRetained {
                subject: key.subject().target(target),
                harness_ended: options.end_harness,
            });
        }
        Disposition::Kill => match kill(&ctx.tmux, target) {
            Ok(()) => {
                report.tmux = TmuxResult::Killed;
                ctx.events.emit(crate::events::Event::SessionTerminated {
                    subject: key.subject().target(target),
                });
            }
            Err(err) => report
                .problems
                .push(format!("the tmux session was not killed: {err}")),
        },
    }
}

/// Says, in the report and the event log, that the harness in `target`
/// was not ended, and why.
fn not_ended(
    ctx: &Context,
    key: &SessionKey,
    target: &str,
    err: &CloseError,
    report: &mut CloseReport,
) {
    report
        .problems
        .push(format!("the harness was not ended: {err}"));
    ctx.events.emit(terminated(
        key,
        target,
        None,
        Some((TerminateResult::Failed, None)),
    ));
}

/// [`end_session`] for a harness a person moved (they renamed its session,
/// or moved its pane into one of theirs), proven by its process: ended in
/// its pane where it lives. The session is theirs now, so a kill takes
/// only the harness's pane (the session goes with it only when that was
/// its last pane); a keep leaves the dead pane for its scrollback.
fn end_moved(
    ctx: &Context,
    key: &SessionKey,
    options: CloseOptions,
    owned: &Owned,
    moved: &super::owner::MovedTo,
    report: &mut CloseReport,
) {
    let session = moved.session.as_str();
    report.record_target = Some(std::mem::replace(
        &mut report.tmux_target,
        session.to_owned(),
    ));
    report.probe = owned.fleet.probe(session);
    let grace = ctx.config.routing.tmux.harness_kill_grace;
    let proven = owned.harness.as_ref().map(|h| (h.pid, h.start));
    let kill = options.disposition == Disposition::Kill;
    if options.end_harness || kill {
        match end_moved_harness(&ctx.tmux, session, &moved.pane_id, grace, proven) {
            Ok(endings) => {
                ctx.events
                    .emit(terminated(key, session, Some(endings.clone()), None));
                report.harness = endings;
            }
            Err(err) => {
                not_ended(ctx, key, session, &err, report);
                return;
            }
        }
    }
    if !kill {
        report.tmux = TmuxResult::Retained;
        ctx.events.emit(crate::events::Event::SessionRetained {
            subject: key.subject().target(session),
            harness_ended: options.end_harness,
        });
        return;
    }
    match kill_moved_pane(&ctx.tmux, session, &moved.pane_id) {
        Ok(gone) => {
            report.tmux = if gone {
                TmuxResult::Killed
            } else {
                TmuxResult::PaneKilled
            };
            ctx.events.emit(crate::events::Event::SessionTerminated {
                subject: key.subject().target(session).pane(&moved.pane_id),
            });
        }
        Err(err) => report
            .problems
            .push(format!("the harness's pane was not killed: {err}")),
    }
}

/// `session.harness_terminated` from a close: the panes it ended, or why none.
fn terminated(
    key: &SessionKey,
    target: &str,
    panes: Option<Vec<crate::runner::close::PaneEnding>>,
    result: Option<(TerminateResult, Option<&str>)>,
) -> crate::events::Event {
    crate::events::Event::SessionHarnessTerminated {
        subject: key.subject().target(target),
        pid: None,
        ending: None,
        panes,
        result: result.map(|(r, _)| r),
        reason: result.and_then(|(_, why)| why.map(String::from)),
    }
}
