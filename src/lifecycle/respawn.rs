//! The respawn path: the session a delivery was for is gone (absent, or
//! retained with its harness dead), so the harness is started again in
//! `loop-<slug>` with the pending text as its boot prompt.
//!
//! The recorded conversation is resumed when `resumeOnRespawn` allows and
//! the probe after `resumeProbeSeconds` finds it running; otherwise a fresh
//! conversation with a new id takes over (`session.resume_failed`). Whatever
//! holds the name decides what happens: see [`super::decide`].

use super::decide::{
    after_clear, on_respawn_path, redecide_after_duplicate, AfterClear, Occupancy, SPAWN_ROUNDS,
};
use super::key::{Record, SessionKey};
use super::probe::probe;
use super::spawn::{attempt, AttemptError, Start};
use crate::events::Event;
use crate::harness::resumable::check;
use crate::harness::{by_name, new_session_id, refusal, Launch};
use crate::lifecycle::context::Context;
use crate::observed::Probe;
use crate::registry::RecordFacts;
use crate::runner::close::kill;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RespawnOutcome {
    /// A harness is running in the session with the prompt as its boot prompt.
    Spawned {
        resumed: bool,
        session_id: String,
        /// Why the recorded conversation was not resumed, when it was not.
        resume_failure: Option<String>,
    },
    /// A live (or possibly live) occupant holds the name: deliver into it.
    DeliverInto,
    /// A dead occupant could not be cleared.
    Occupied,
    /// The respawn could not proceed; the dispatch should be retried later.
    Failed(String),
}

pub fn respawn(
    ctx: &Context,
    key: &SessionKey,
    record: &Record,
    name: &str,
    initial: Probe,
    prompt: Option<&str>,
) -> RespawnOutcome {
    if let Err(err) = crate::runner::close::guard(name) {
        return RespawnOutcome::Failed(err.to_string());
    }
    let mut state = initial;
    for round in 0..SPAWN_ROUNDS {
        match on_respawn_path(state) {
            Occupancy::DeliverInto => return RespawnOutcome::DeliverInto,
            Occupancy::Clear => match clear(ctx, key, name) {
                AfterClear::Spawn => {}
                AfterClear::DeliverInto => return RespawnOutcome::DeliverInto,
                AfterClear::DropOccupied => return RespawnOutcome::Occupied,
                AfterClear::Fail => {
                    return RespawnOutcome::Failed(
                        "tmux did not answer after the dead session was killed, so the clear is unverified".into(),
                    )
                }
            },
            Occupancy::Spawn => {}
        }
        match spawn_verified(ctx, key, record, name, prompt) {
            Ok(spawned) => return spawned,
            Err(AttemptError::Duplicate) if redecide_after_duplicate(round) => {
                // tmux's answer is authoritative: the probe missed something
                // (it went unanswered, or lost a race). Decide again, once.
                ctx.events.emit(Event::SessionSpawnCollided {
                    subject: key.subject().target(name),
                    round,
                });
                state = probe(&ctx.tmux, name).0;
            }
            Err(AttemptError::Duplicate) => {
                return RespawnOutcome::Failed(
                    "tmux answered `duplicate session` again after re-deciding once; not retrying"
                        .into(),
                )
            }
            Err(AttemptError::Failed(reason) | AttemptError::Held(reason)) => {
                return RespawnOutcome::Failed(reason)
            }
        }
    }
    RespawnOutcome::Failed("no spawn round was left".into())
}

/// Kills a dead occupant and verifies from a fresh probe. A kill that tmux
/// reports as failed against a session that is gone anyway counts as cleared.
fn clear(ctx: &Context, key: &SessionKey, name: &str) -> AfterClear {
    if let Err(err) = kill(&ctx.tmux, name) {
        tracing::warn!(session = name, error = %err, "clearing the dead occupant failed");
    }
    let verdict = after_clear(probe(&ctx.tmux, name).0);
    if verdict == AfterClear::Spawn {
        ctx.events.emit(Event::SessionOccupantCleared {
            subject: key.subject().target(name),
        });
    }
    verdict
}

/// Resume when allowed and possible, else (or when the resume does not stay
/// up) a fresh conversation. `Duplicate` is passed up to be re-decided.
fn spawn_verified(
    ctx: &Context,
    key: &SessionKey,
    record: &Record,
    name: &str,
    prompt: Option<&str>,
) -> Result<RespawnOutcome, AttemptError> {
    let harness =
        by_name(record.harness()).ok_or_else(|| AttemptError::Failed(refusal(record.harness())))?;
    let cwd = record
        .cwd()
        .filter(|c| c.is_absolute())
        .ok_or_else(|| {
            AttemptError::Failed(
                "the record has no absolute working directory to respawn in".into(),
            )
        })?
        .to_path_buf();
    if let Some(problem) = crate::harness::resumable::directory_problem(&cwd) {
        return Err(AttemptError::Failed(format!(
            "the recorded working directory {} {problem}",
            cwd.display()
        )));
    }
    let args = record.launch_args();
    let identity = key.clone();
    let resumable = if ctx.config.routing.tmux.resume_on_respawn {
        let facts = RecordFacts {
            harness: record.harness().to_owned(),
            session_id: record.harness_session_id().map(String::from),
            previous_session_ids: Vec::new(),
            cwd: Some(cwd.clone()),
            args: args.clone(),
            conversation_begun: None,
        };
        // Where the new pane will look for the transcript, not where our
        // caller's environment says.
        let home = crate::harness::home_for_new_pane(&ctx.tmux, &super::spawn::passthrough(ctx));
        check(&facts, Some(&home.as_env())).map(|r| r.session_id)
    } else {
        Err("routing.tmux.resumeOnRespawn is off".into())
    };

    // The resume and, if it fails, the fresh start differ only in the launch.
    let start = |launch| {
        attempt(
            ctx,
            &identity,
            name,
            &cwd,
            Start {
                harness,
                launch,
                args: &args,
                prompt,
            },
        )
    };
    let resume_failure = match resumable {
        Ok(session_id) => {
            let launch = Launch::Resume {
                session_id: session_id.clone(),
            };
            match start(launch)? {
                Probe::Live => {
                    return Ok(RespawnOutcome::Spawned {
                        resumed: true,
                        session_id,
                        resume_failure: None,
                    })
                }
                Probe::Unknown => return Err(unanswered()),
                Probe::Dead => {
                    // The failed resume's pane is retained; clear it so the
                    // fresh conversation can take the name.
                    match clear(ctx, key, name) {
                        AfterClear::Spawn => {}
                        _ => {
                            return Err(AttemptError::Failed(
                                "the resume failed and its dead session could not be cleared"
                                    .into(),
                            ))
                        }
                    }
                    "the resumed harness exited at once".to_owned()
                }
                Probe::Absent => "the resumed harness exited at once".to_owned(),
            }
        }
        Err(reason) => reason,
    };
    // A harness that makes its own ids (Codex) is never started on a new
    // conversation here: the record could not name it, and the one it
    // names would be given up without a word.
    if !harness.names_fresh_conversations() {
        return Err(AttemptError::Failed(format!(
            "{resume_failure}; {} makes its own conversation ids, so it is not started on a new conversation in its place",
            harness.name()
        )));
    }
    let session_id = new_session_id();
    ctx.events.emit(Event::SessionResumeFailed {
        subject: key.subject().target(name),
        reason: resume_failure.clone(),
        resumed: Some(false),
        fresh_started: true,
    });
    let launch = Launch::Fresh {
        session_id: session_id.clone(),
        prompt: None,
    };
    match start(launch)? {
        Probe::Live => Ok(RespawnOutcome::Spawned {
            resumed: false,
            session_id,
            resume_failure: Some(resume_failure),
        }),
        Probe::Unknown => Err(unanswered()),
        Probe::Dead | Probe::Absent => Err(AttemptError::Failed(format!(
            "the harness exited at once in a fresh conversation too; check that `{}` is installed and starts in {}",
            crate::harness::resumable::harness_binary(&ctx.config, harness).to_string_lossy(),
            cwd.display()
        ))),
    }
}

fn unanswered() -> AttemptError {
    AttemptError::Failed(
        "tmux did not answer after the harness was started, so whether it is running is unknown"
            .into(),
    )
}
