//! Delivering text into a session: paste it into the running harness, or,
//! when the session is gone, respawn the harness with the text as its boot
//! prompt. One delivery at a time per session, in arrival order.
//!
//! Delivery ids make redelivery safe: an id already in `recentDeliveries`
//! is a no-op; the id is noted in the record before anything is sent
//! (`deliver/note.rs`), so a record that cannot be written refuses the
//! delivery (exit 1) with nothing pasted; a delivery that fails for a
//! reason that may pass is not recorded, so the next redelivery retries it;
//! a delivery dropped because
//! the session's name is held by a dead session that cannot be cleared *is*
//! recorded, so the same collision is not re-run every cycle.
//!
//! Import circle: `deliver.rs` ↔ `deliver/refusal.rs`. A refusal is one way a
//! delivery ends, so it finishes with this file's `finish` and report types,
//! and this file calls it; it is a file of its own only for size.

use super::decide::{on_delivery, Entry};
use super::key::{self, Record, SessionKey};
use super::owner::Intent;
use super::probe::probe_harness;
use super::queue;
use super::respawn::{respawn, RespawnOutcome};
use crate::events::{Dispatch, Event, Level, Subject};
use crate::lifecycle::context::Context;
use crate::observed::Probe;
use crate::runner::spawn::exact;
use serde::Serialize;

mod drifted;
mod note;
mod refusal;

pub use crate::events::session::Route;
use note::Note;
use refusal::Refusal;

/// What happened to one delivery.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// The text is in the harness.
    Delivered,
    /// The delivery id was already processed: nothing was done.
    Duplicate,
    /// The session is paused: nothing was delivered.
    Suppressed,
    /// The session is closed: nothing was delivered.
    Ignored,
    /// Not delivered, and not to be retried (the id is kept, or the item was cleaned up).
    Dropped,
    /// Not delivered; the id was not recorded, so a redelivery retries it.
    Failed,
}

impl Outcome {
    /// 0: delivered or nothing to do; 1: failed, retry; 2: not delivered by rule.
    pub fn exit_code(self) -> u8 {
        match self {
            Outcome::Delivered | Outcome::Duplicate => 0,
            Outcome::Failed => 1,
            Outcome::Suppressed | Outcome::Ignored | Outcome::Dropped => 2,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct DeliveryReport {
    #[serde(rename = "ref")]
    pub reference: Option<String>,
    pub standing: Option<String>,
    /// The pull request the delivery was addressed to, when it was routed
    /// into the session of the work item that pull request is linked to.
    pub via_pull_request: Option<String>,
    pub tmux_target: String,
    pub delivery_id: Option<String>,
    pub outcome: Outcome,
    pub route: Option<Route>,
    /// On a respawn: whether the recorded conversation was resumed.
    pub resumed: Option<bool>,
    pub harness_session_id: Option<String>,
    pub reason: Option<String>,
    /// Set when the session's launch arguments had drifted and it was
    /// relaunched (or not: `outcome` says) before the text was delivered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relaunch: Option<Relaunch>,
    /// With [`Delivery::relaunch_drifted`]: the running harness's launch
    /// drifted, and nothing was done, so the caller can relaunch it first.
    #[serde(skip)]
    pub args_drifted: Vec<crate::events::roll::ArgsChange>,
}

/// A relaunch before a delivery, by the roll engine.
#[derive(Debug, Clone, Serialize)]
pub struct Relaunch {
    /// The roll's outcome for the session (`restarted`, `deferred`, …).
    pub outcome: crate::apply::Outcome,
    pub detail: Option<String>,
    /// The launch arguments that had drifted.
    pub args_changes: Vec<crate::events::roll::ArgsChange>,
}

pub struct Delivery<'a> {
    pub key: SessionKey,
    pub text: &'a str,
    pub delivery_id: Option<&'a str>,
    pub via_pull_request: Option<String>,
    /// How long a paste waits for the harness to be ready (see [`super::ready`]).
    pub ready_timeout: std::time::Duration,
    /// Stop before pasting into a harness whose launch arguments drifted
    /// from the record's, and say so in [`DeliveryReport::args_drifted`].
    pub relaunch_drifted: bool,
}

#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum DeliveryError {
    #[error("no session is registered for {0}")]
    #[diagnostic(
        code(the_loop::deliver::not_registered),
        help("start one with `the-loop sessions start <ref> --cwd DIR` (or `the-loop standing create`); `the-loop sessions list` shows what is registered")
    )]
    NotRegistered(String),
    #[error(transparent)]
    #[diagnostic(transparent)]
    Queue(#[from] queue::QueueError),
    #[error(transparent)]
    #[diagnostic(transparent)]
    Registry(#[from] crate::registry::RegistryError),
}

pub fn deliver(ctx: &Context, delivery: &Delivery) -> Result<DeliveryReport, DeliveryError> {
    let key = &delivery.key;
    let _turn = queue::wait_turn(
        &ctx.config.state_root,
        &key.tmux_name(),
        queue::DEFAULT_WAIT,
    )?;
    let mut report = DeliveryReport {
        reference: key.as_work_item().map(|r| r.to_string()),
        standing: match key {
            SessionKey::Standing(n) => Some(n.clone()),
            SessionKey::WorkItem(_) => None,
        },
        via_pull_request: delivery.via_pull_request.clone(),
        tmux_target: key.tmux_name(),
        delivery_id: delivery.delivery_id.map(String::from),
        outcome: Outcome::Failed,
        route: None,
        resumed: None,
        harness_session_id: None,
        reason: None,
        relaunch: None,
        args_drifted: Vec::new(),
    };
    let dispatch = Dispatch {
        delivery_id: delivery.delivery_id.map(String::from),
        via_pull_request: delivery.via_pull_request.clone(),
    };
    let base = key.subject();
    let event = |make: &dyn Fn(Subject, Dispatch) -> Event| {
        ctx.events.emit(make(base.clone(), dispatch.clone()))
    };

    if let Some(r) = key.as_work_item() {
        if super::control::last(&ctx.registry, r).as_deref() == Some(super::control::CLEANUP) {
            return Ok(Refusal::CLEANED_UP.apply(report, event));
        }
    }
    let Some(mut record) = key::load(&ctx.registry, key)? else {
        return Err(DeliveryError::NotRegistered(key.label()));
    };
    let name = key::target_of(key, Some(&record));
    report.tmux_target = name.clone();
    let base = base.clone().target(&name);
    let event = |make: &dyn Fn(Subject, Dispatch) -> Event| {
        ctx.events.emit(make(base.clone(), dispatch.clone()))
    };

    if let Some(refusal) = Refusal::of(&record, delivery.delivery_id) {
        return Ok(refusal.apply(report, event));
    }

    // Never paste into, or spawn under, a session that is not this record's.
    let owned = match super::owner::prove(ctx, key, Some(&record), &name, Intent::Use) {
        Ok(owned) => owned,
        Err(refused) => {
            event(&|subject, dispatch| Event::DispatchFailed {
                subject,
                dispatch,
                reason: refused.code().into(),
            });
            return Ok(finish(report, Outcome::Failed, &refused.with_fix()));
        }
    };
    let target_recorded = record.tmux_target().is_some();
    // Decided from the listing the proof read: no second look to race. A
    // harness a person moved (proven its own) is delivered into there.
    let at = owned.moved_to.as_ref().map_or(&name, |m| &m.session);
    report.tmux_target = at.clone();
    let state = owned.fleet.probe(at);
    let pane = Some(owned.fleet.find_harness_pane(at).cloned());
    let entry = on_delivery(target_recorded, state);
    let live_harness = matches!((&pane, state), (Some(Ok(p)), Probe::Live) if !p.dead);
    if delivery.relaunch_drifted && entry == Entry::Paste && live_harness {
        report.args_drifted = drifted::args(ctx, &record, &owned);
        if !report.args_drifted.is_empty() {
            // Nothing done: the caller relaunches, then delivers into the
            // new process.
            return Ok(report);
        }
    }
    // The id is in the record before anything can reach the harness.
    let mut note = match Note::take(ctx, &mut record, delivery.delivery_id) {
        Ok(note) => note,
        Err(why) => {
            event(&|subject, dispatch| Event::DispatchFailed {
                subject,
                dispatch,
                reason: "record-not-writable".into(),
            });
            return Ok(finish(report, Outcome::Failed, &why));
        }
    };
    let outcome = match entry {
        Entry::Paste => {
            let into = match (pane, state) {
                (Some(Ok(p)), Probe::Live) if !p.dead => {
                    if let Err(why) = super::ready::wait(&ctx.tmux, &p, delivery.ready_timeout) {
                        event(&|subject, dispatch| Event::DispatchFailed {
                            subject,
                            dispatch,
                            reason: "harness-not-ready".into(),
                        });
                        return Ok(finish(report, Outcome::Failed, &not_ready(why, delivery)));
                    }
                    p.pane_id
                }
                (Some(Ok(_)), Probe::Live) => {
                    // Another pane lives but the harness's is dead: pasting
                    // there could feed an operator's shell.
                    event(&|subject, dispatch| Event::DispatchFailed {
                        subject,
                        dispatch,
                        reason: "harness-pane-dead".into(),
                    });
                    return Ok(finish(report, Outcome::Failed, "the harness pane is dead while another pane of the session runs; not pasting into a pane that is not the harness"));
                }
                (Some(Err(why)), _) => {
                    // Text plus Enter in an operator's shell runs as a command.
                    event(&|subject, dispatch| Event::DispatchFailed {
                        subject,
                        dispatch,
                        reason: "harness-pane-not-found".into(),
                    });
                    return Ok(finish(report, Outcome::Failed, &format!("no pane of {name} can be taken for the harness ({why}); not pasting into a pane that may be an operator's shell")));
                }
                // Unknown: tmux did not answer. Read as live: try the paste,
                // which fails (transiently) if the session is really gone.
                _ => format!("{}:", exact(&name)),
            };
            match note.paste_and_submit(ctx, &mut record, &into, delivery.text) {
                Ok(()) => Pasted::Plain,
                Err(err) => Pasted::Failed(err),
            }
        }
        Entry::PasteIntoOccupant => {
            paste_into_occupant(ctx, &name, delivery, &mut note, &mut record)
        }
        Entry::Respawn => match respawn(ctx, key, &record, &name, state, Some(delivery.text)) {
            RespawnOutcome::Spawned {
                resumed,
                session_id,
                resume_failure,
            } => {
                record.set_tmux_target(&name);
                ctx.note_server(record.session_mut());
                record.set_harness_session_id(&session_id);
                record.forget_runner();
                // The respawn ran the recorded arguments as the config
                // resolves them now; the record says what was launched.
                let launched = crate::harness::models::resolve(
                    &record.launch_args(),
                    &ctx.config.routing.models,
                );
                record.set_launched_args(&launched.args);
                event(&|subject, dispatch| Event::SessionRespawned {
                    subject,
                    dispatch: Some(dispatch),
                    old_pid: None,
                    new_pid: None,
                    resumed: Some(resumed),
                    harness_session_id: Some(session_id.clone()),
                    verification: None,
                    reason: None,
                    boot_prompt: Some(true),
                });
                report.resumed = Some(resumed);
                report.harness_session_id = Some(session_id);
                report.reason = resume_failure;
                Pasted::Respawned
            }
            RespawnOutcome::DeliverInto => {
                paste_into_occupant(ctx, &name, delivery, &mut note, &mut record)
            }
            RespawnOutcome::Occupied => {
                tracing::error!(session = %name, "a dead session holds the name and cannot be cleared; dropping the delivery");
                event(&|subject, dispatch| Event::DispatchDropped {
                    subject,
                    dispatch,
                    reason: "session-occupied".into(),
                    level: Level::Error,
                });
                // Kept on purpose: releasing it would re-run the collision every cycle.
                if let Some(id) = delivery.delivery_id {
                    record.record_delivery(id);
                }
                record.set_pending_delivery(None);
                save_or_warn(ctx, &record);
                return Ok(finish(report, Outcome::Dropped, "a dead tmux session holds the name and could not be cleared; end it with `tmux kill-session` and redeliver with a new id"));
            }
            RespawnOutcome::Failed(reason) => Pasted::Failed(reason),
        },
    };

    let route = match outcome {
        Pasted::Failed(reason) => {
            event(&|subject, dispatch| Event::DispatchFailed {
                subject,
                dispatch,
                reason: reason.clone(),
            });
            return Ok(finish(report, Outcome::Failed, &reason));
        }
        Pasted::Plain => Route::Pasted,
        Pasted::Respawned => Route::Respawned,
        Pasted::IntoOccupant => {
            // The lazy heal: a record with no session yet now has one.
            if !target_recorded {
                record.set_tmux_target(&name);
            }
            event(&|subject, dispatch| Event::SessionRespawnAverted {
                subject,
                dispatch,
                reason: "live-occupant".into(),
            });
            Route::RespawnAverted
        }
    };
    report.route = Some(route);
    if let Err(why) = note.done(ctx, &mut record) {
        event(&|subject, dispatch| Event::DispatchFailed {
            subject,
            dispatch,
            reason: "record-not-writable".into(),
        });
        return Ok(finish(report, Outcome::Failed, &why));
    }
    event(&|subject, dispatch| Event::DispatchDelivered {
        subject,
        dispatch,
        route,
    });
    report.outcome = Outcome::Delivered;
    Ok(report)
}

enum Pasted {
    Plain,
    Respawned,
    IntoOccupant,
    Failed(String),
}

/// A live occupant holds the name on the respawn path: it is never killed
/// or spawned over; the text goes into it instead.
fn paste_into_occupant(
    ctx: &Context,
    name: &str,
    delivery: &Delivery,
    note: &mut Note,
    record: &mut Record,
) -> Pasted {
    let into = match probe_harness(&ctx.tmux, name).1 {
        Some(Ok(pane)) if !pane.dead => {
            if let Err(why) = super::ready::wait(&ctx.tmux, &pane, delivery.ready_timeout) {
                return Pasted::Failed(not_ready(why, delivery));
            }
            pane.pane_id
        }
        Some(Ok(_)) => {
            return Pasted::Failed(
                "the harness pane of the live occupant is dead; not pasting into another pane"
                    .into(),
            )
        }
        Some(Err(why)) => {
            return Pasted::Failed(format!(
                "no pane of {name} can be taken for the harness ({why}); not pasting into a pane that may be an operator's shell"
            ))
        }
        None => format!("{}:", exact(name)),
    };
    match note.paste_and_submit(ctx, record, &into, delivery.text) {
        Ok(()) => Pasted::IntoOccupant,
        Err(err) => Pasted::Failed(err),
    }
}

/// Nothing was pasted, so the delivery is released for a retry.
fn not_ready(why: super::ready::NotReady, delivery: &Delivery) -> String {
    format!(
        "the harness was not ready to take input within {}s ({}); nothing was pasted, so a redelivery retries it",
        delivery.ready_timeout.as_secs(),
        why.describe()
    )
}

/// A save after a delivery that ends without the text (a dropped one): the
/// id is only kept to spare a retry, so a failed save is a warning.
fn save_or_warn(ctx: &Context, record: &Record) {
    if let Err(err) = key::save(&ctx.registry, record) {
        tracing::warn!(error = %err, "could not update the registry record after the delivery");
        crate::errln!("warning: the registry record was not updated: {err}");
    }
}

fn finish(mut report: DeliveryReport, outcome: Outcome, reason: &str) -> DeliveryReport {
    report.outcome = outcome;
    report.reason = Some(reason.to_owned());
    report
}
